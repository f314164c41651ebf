"""`jnp.ufunc`: NumPy's universal-function objects, as `jax.numpy.ufunc`.

`jnp.add`, `jnp.multiply`, `jnp.maximum`, `jnp.logical_and`, ... (the fourteen names
JAX makes ufuncs) are instances of `ufunc`: calling one is the elementwise function
of `ufuncs.py` (the same eager fast path), and each has `nin`, `nout`, `nargs`,
`identity` and the methods `reduce`, `accumulate`, `reduceat`, `outer` and `at`.
`frompyfunc(f, nin, nout, identity=...)` makes one from any scalar function. Where
JAX has a dedicated implementation of a method (`add.reduce` is `sum`, `add.at` a
scatter-add) so does this module; the others fold the function over the axis with a
`lax` loop, as JAX's do. Everything stages, so the methods work under `jit`, `grad`
and `vmap`."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import core, dtypes, lax
from ..api import eval_shape
from ..batching_api import vmap
from ..errors import ArgumentValueError, NotImplementedInAstjaxError
from ..frontend import operators
from ..stages import ShapeDtypeStruct
from . import ufuncs as uf
from .advanced_indexing import take
from .arraylike import _ARRAYLIKE_TYPES, check_arraylike
from .operands import asarray
from .reductions import max as _max, min as _min, prod, sum as _sum
from .shapes import concatenate, moveaxis, _reshape as reshape, transpose
from .sorting import cumprod, cumsum
from .util import canonicalize_axes, canonicalize_axis
from .vectorize import vectorize

__all__ = ["ufunc", "frompyfunc", "add", "subtract", "multiply", "maximum", "minimum",
           "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or",
           "logical_xor", "logaddexp", "logaddexp2", "negative"]

_AT_INPLACE = ("Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
               "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
               ">>> arr = jnp.add.at(arr, ind, val, inplace=False)")


def _static_arguments(**statics):
    """JAX jits reduce / accumulate / reduceat with these arguments static: an unhashable
    one (an array `out`, a list `axis`) is its ValueError before anything else."""
    for name, v in statics.items():
        try:
            hash(v)
        except TypeError as e:
            raise ArgumentValueError(
                "Non-hashable static arguments are not supported. An error occurred while "
                f"trying to hash an object of type {type(v)}, {v}. The error was:\n"
                f"TypeError: {e}\n",
                hint=f"`{name}` is static: pass a hashable value (a tuple for a list)") from None


def _unsupported_out(what):
    raise NotImplementedInAstjaxError(f"out argument of {what}",
                                      hint="arrays are immutable: use the returned value")


class ufunc:
    """A universal function: an elementwise function of `nin` arrays with NumPy's
    methods (`reduce`, `accumulate`, `reduceat`, `outer`, `at`), as `jax.numpy.ufunc`.

    Args:
      func: the elementwise function (scalar semantics; it is vectorized when called).
      nin, nout: its numbers of inputs and outputs.
      name: defaults to `func.__name__`. nargs: defaults to `nin`.
      identity: the value the reduction of an empty axis gives (None: no identity).
      call, reduce, accumulate, at, reduceat: dedicated implementations (defaults:
        `vectorize(func)` and folds of `func` with `lax` loops).
    """

    _arraylike_checked = True   # its calls and methods check their operands themselves

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None,
                 call=None, reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # read-only, so a ufunc is a valid static argument (its hash never changes)
        self.__props = dict(func=func, nin=operator.index(nin), nout=operator.index(nout),
                            nargs=operator.index(nargs or nin), identity=identity,
                            call=call, reduce=reduce, accumulate=accumulate, at=at,
                            reduceat=reduceat)

    _func = property(lambda self: self.__props["func"])
    nin = property(lambda self: self.__props["nin"], doc="Number of inputs.")
    nout = property(lambda self: self.__props["nout"], doc="Number of outputs.")
    nargs = property(lambda self: self.__props["nargs"], doc="Number of arguments.")
    identity = property(lambda self: self.__props["identity"],
                        doc="The identity of the reduction (None: it has none).")

    @property
    def _elementwise(self):
        """The plain elementwise function behind a built-in ufunc's call (None for one
        made by `frompyfunc`): what the array operators call."""
        return self.__props["call"]

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        """Apply the function elementwise (broadcasting its arguments)."""
        check_arraylike(self.__name__, *args)
        if out is not None:
            _unsupported_out(repr(self))
        if where is not None:
            raise NotImplementedInAstjaxError(f"where argument of {self!r}",
                                              hint="use jnp.where on the result")
        call = self.__props["call"]
        if call is not None:
            return call(*args)
        return vectorize(self._func)(*args)

    def _binary_only(self, method):
        if self.nin != 2:
            raise ArgumentValueError(f"{method} only supported for binary ufuncs",
                                     hint=f"{self.__name__} takes {self.nin} input(s)")
        if self.nout != 1:
            raise ArgumentValueError(f"{method} only supported for functions returning a "
                                     "single value", hint=f"{self.__name__} returns {self.nout}")

    def _result_dtype(self, *avals_of):
        """The dtype `func` returns on scalars of these operands' dtypes."""
        ins = [ShapeDtypeStruct((), core.get_aval(asarray(x)).dtype) for x in avals_of]
        return eval_shape(lambda *xs: operators.call(self._func, *xs), *ins).dtype

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """Reduce `a` along `axis` (an int, a tuple or None: all axes) by repeated
        application; `initial` starts the fold, `where` (bool) masks elements."""
        _static_arguments(axis=axis, dtype=dtype, out=out, keepdims=keepdims)
        check_arraylike(f"{self.__name__}.reduce", a)
        self._binary_only("reduce")
        if out is not None:
            _unsupported_out(f"{self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ArgumentValueError(
                    f"reduction operation {self.__name__!r} does not have an identity, so to "
                    "use a where mask one has to specify 'initial'.",
                    hint="pass initial=<a neutral value>")
            wdt = core.get_aval(asarray(where)).dtype
            if wdt != dtypes.bool_:
                raise ArgumentValueError(f"where argument must have dtype=bool; got "
                                         f"dtype={wdt}", hint="pass a boolean mask")
        impl = self.__props["reduce"] or self._fold_reduce
        return impl(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                    where=where)

    def _fold_reduce(self, a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        a = asarray(a)
        shape = core.get_aval(a).shape
        if initial is None:
            initial = self.identity
        dtype = self._result_dtype(a, a) if dtype is None else dtypes.dtype(dtype)
        if where is not None:
            where = uf.broadcast_to_shape(asarray(where), shape)
        if isinstance(axis, tuple):
            canonicalize_axes(axis, len(shape))
            raise NotImplementedInAstjaxError("tuple of axes",
                                              hint="reduce over one axis at a time")
        if axis is None:
            final = (1,) * len(shape) if keepdims else ()
            a = reshape(a, (-1,))
            where = None if where is None else reshape(where, (-1,))
            axis = 0
        else:
            axis = canonicalize_axis(axis, len(shape))
            final = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]
            a = moveaxis(a, axis, 0)
            where = None if where is None else moveaxis(where, axis, 0)
        n = core.get_aval(a).shape[0]
        if n == 0:
            if initial is None:
                raise ArgumentValueError(f"zero-size array to reduction operation "
                                         f"{self.__name__} which has no identity",
                                         hint="pass initial=")
            return lax.full(final, initial, dtype)
        f = self._func

        def body(i, acc):
            new = operators.call(f, acc, lax.convert_element_type(a[i], dtype))
            return new if where is None else uf.where(where[i], new, acc)
        start = a[0] if initial is None else asarray(initial)
        start = uf.broadcast_to_shape(lax.convert_element_type(start, dtype),
                                      core.get_aval(a).shape[1:])
        out = lax.fori_loop(0 if initial is not None else 1, n, body, start)
        return reshape(out, final) if keepdims else out

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running reduction along `axis` (same shape as `a`)."""
        _static_arguments(axis=axis, dtype=dtype)
        self._binary_only("accumulate")
        if out is not None:
            _unsupported_out(f"{self.__name__}.accumulate()")
        impl = self.__props["accumulate"] or self._fold_accumulate
        return impl(a, axis=axis, dtype=dtype)

    def _fold_accumulate(self, a, axis=0, dtype=None):
        check_arraylike(f"{self.__name__}.accumulate", a)
        a = asarray(a)
        dtype = self._result_dtype(a, a) if dtype is None else dtypes.dtype(dtype)
        if axis is None or isinstance(axis, tuple):
            raise ArgumentValueError("accumulate does not allow multiple axes",
                                     hint="pass one integer axis")
        shape = core.get_aval(a).shape
        axis = canonicalize_axis(axis, len(shape))
        if int(np.prod(shape)) == 0:
            return lax.full(shape, 0, dtype)
        a = lax.convert_element_type(moveaxis(a, axis, 0), dtype)
        f = self._func

        def step(acc, x):
            y = lax.convert_element_type(operators.call(f, acc, x), dtype)
            return y, y
        _, rest = lax.scan(step, a[0], a[1:])
        return moveaxis(concatenate([a[:1], rest]), 0, axis)

    def at(self, a, indices, b=None, /, *, inplace=True):
        """`a` with the function applied at `indices` (with `b` for a binary ufunc),
        unbuffered: a repeated index applies it repeatedly. Needs `inplace=False`."""
        if inplace:
            raise NotImplementedInAstjaxError(_AT_INPLACE, hint="pass inplace=False")
        impl = self.__props["at"] or self._fold_at
        return impl(a, indices) if b is None else impl(a, indices, b)

    def _fold_at(self, a, indices, *args):
        check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = self._result_dtype(a, *args)
        a = lax.convert_element_type(asarray(a), dtype)
        args = [lax.convert_element_type(asarray(x), dtype) for x in args]
        indices = indices if isinstance(indices, tuple) else (indices,)
        if not indices:
            return a
        f = self._func
        shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
        shape = uf.broadcast_shapes(*shapes) if shapes else ()
        if not shape:
            return a.at[indices].set(operators.call(f, a.at[indices].get(), *args))
        n = int(np.prod(shape))
        if args:
            tail = core.get_aval(args[0]).shape[len(shape):]
            args = [reshape(uf.broadcast_to_shape(args[0], shape + tail), (n,) + tail)]
        flat = [i if isinstance(i, slice) else reshape(uf.broadcast_to_shape(asarray(i), shape),
                                                        (n,)) for i in indices]

        def body(k, acc):
            idx = tuple(i if isinstance(i, slice) else i[k] for i in flat)
            return acc.at[idx].set(operators.call(f, acc.at[idx].get(), *(x[k] for x in args)))
        return lax.fori_loop(0, n, body, a)

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """Reductions over the slices `a[indices[i]:indices[i+1]]` along `axis` (the
        element at `indices[i]` where the next index is not larger)."""
        _static_arguments(axis=axis, dtype=dtype)
        self._binary_only("reduceat")
        if out is not None:
            _unsupported_out(f"{self.__name__}.reduceat()")
        impl = self.__props["reduceat"] or self._fold_reduceat
        return impl(a, indices, axis=axis, dtype=dtype)

    def _fold_reduceat(self, a, indices, axis=0, dtype=None):
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a, indices = asarray(a), asarray(indices)
        shape, ishape = core.get_aval(a).shape, core.get_aval(indices).shape
        if not shape:
            raise ArgumentValueError(f"reduceat: a must have 1 or more dimension, got "
                                     f"a.shape={shape}", hint="pass an array")
        if len(ishape) != 1:
            raise ArgumentValueError(f"reduceat: indices must be one-dimensional, got "
                                     f"indices.shape={ishape}", hint="pass a 1-d index array")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ArgumentValueError("reduceat requires a single integer axis.",
                                     hint="pass one integer axis")
        axis = canonicalize_axis(axis, len(shape))
        if dtype is not None:
            a = lax.convert_element_type(a, dtypes.dtype(dtype))
        out = take(a, indices, axis=axis)
        bounds = concatenate([indices, lax.full((1,), shape[axis], core.get_aval(indices).dtype)])
        keep = [d for d in range(len(shape)) if d != axis]
        start = lax.expand_dims(bounds[:-1], keep)
        end = lax.expand_dims(bounds[1:], keep)
        f = self._func

        def body(i, acc):
            inside = uf.logical_and(uf.greater(i, start), uf.less(i, end))
            return uf.where(inside, operators.call(f, acc, take(a, lax.expand_dims(i, (0,)),
                                                                axis=axis)), acc)
        return lax.fori_loop(0, shape[axis], body, out)

    def outer(self, A, B, /):
        """The function of every pair (A[i...], B[j...]): shape A.shape + B.shape."""
        self._binary_only("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        A, B = asarray(A), asarray(B)
        sa, sb = core.get_aval(A).shape, core.get_aval(B).shape
        pairs = vmap(vmap(self, (None, 0)), (0, None))(reshape(A, (-1,)), reshape(B, (-1,)))
        return reshape(pairs, sa + sb)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A `ufunc` made from the scalar function `func` of `nin` inputs and `nout`
    outputs (`identity`: its reduction's identity), as `jnp.frompyfunc`."""
    return ufunc(func, nin, nout, identity=identity)


# ---- the dedicated methods of the built-in ufuncs -----------------------------------

def _monoid_reduce(name, op, identity, prepare):
    """A reduction by an associative, commutative `op` with `identity`: the reduced
    axes are flattened into one and halved pairwise (log n steps, any axes)."""
    def reduce(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        a = prepare(asarray(a), dtype)
        av = core.get_aval(a)
        ident = np.array(identity).astype(av.dtype)[()]   # -1: all bits set, any width
        axes = canonicalize_axes(axis, av.ndim)
        if where is not None:
            a = uf.where(uf.broadcast_to_shape(asarray(where), av.shape), a,
                         lax.full_like(a, ident))
        rest = [d for d in range(av.ndim) if d not in axes]
        n = int(np.prod([av.shape[d] for d in axes]))
        x = reshape(transpose(a, tuple(axes) + tuple(rest)),
                    (n,) + tuple(av.shape[d] for d in rest))
        while n > 1:
            if n % 2:
                x = concatenate([x, lax.full_like(x[:1], ident)])
                n += 1
            x, n = op(x[:n // 2], x[n // 2:]), n // 2
        r = x[0] if n else lax.full(core.get_aval(x).shape[1:], ident, av.dtype)
        if initial is not None:
            r = op(r, lax.convert_element_type(asarray(initial), av.dtype))
        if keepdims:
            r = reshape(r, tuple(1 if d in axes else s for d, s in enumerate(av.shape)))
        return r
    reduce.__name__ = name
    return reduce


def _as_bool(a, dtype):
    if dtypes.issubdtype(core.get_aval(a).dtype, np.complexfloating):
        a = uf.real(a)   # JAX reads a complex truth value from its real part
    return uf.not_equal(a, 0)


def _as_integer(a, dtype):
    if dtype is not None:
        a = lax.convert_element_type(a, dtypes.dtype(dtype))
    dt = core.get_aval(a).dtype
    if not (dtypes.is_int(dt) or dt == dtypes.bool_):
        raise ArgumentValueError(f"integer argument required; got dtype={dt}",
                                 hint="bitwise reductions take integer or bool arrays")
    return a


def _bitwise(op, ident):
    return _monoid_reduce(op.__name__, op, ident, _as_integer)


def _logsumexp(a, axis=None, dtype=None, keepdims=False, initial=None, where=None, scale=1.0):
    """log(sum(exp(a))) (base e**scale: scale=ln 2 for logaddexp2), shifted by the
    largest finite real part so it neither overflows nor underflows."""
    [a] = uf.promote_args_inexact("logaddexp.reduce", asarray(a))
    if scale != 1.0:
        a = uf.multiply(a, scale)
    av = core.get_aval(a)
    axes = canonicalize_axes(axis, av.ndim)
    real = uf.real(a)
    top = _max(real, axis=axes, keepdims=True, where=where, initial=-np.inf)
    top = lax.stop_gradient(uf.where(uf.isfinite(top), top, lax.full_like(top, 0)))
    total = _sum(uf.exp(uf.subtract(a, lax.convert_element_type(top, av.dtype))), axis=axes,
                 keepdims=keepdims, where=where)
    shift = top if keepdims else reshape(top, core.get_aval(total).shape)
    out = uf.add(uf.log(total), lax.convert_element_type(shift, core.get_aval(total).dtype))
    if initial is not None:
        out = uf.logaddexp(uf.multiply(initial, scale) if scale != 1.0 else initial, out)
    return out if scale == 1.0 else uf.true_divide(out, scale)


def _logsumexp2(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
    return _logsumexp(a, axis, dtype, keepdims, initial, where, scale=float(np.log(2)))


def _max_reduce(reduction):
    def reduce(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        r = reduction(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
        return r if dtype is None else lax.convert_element_type(r, dtypes.dtype(dtype))
    return reduce


def _scatter_at(method):
    """`ufunc.at` as the scatter `x.at[indices].<method>(b)` (bool: through int32)."""
    def at(a, indices, b):
        a = asarray(a)
        if core.get_aval(a).dtype == dtypes.bool_:
            b = lax.convert_element_type(uf.not_equal(asarray(b), 0), dtypes.int32)
            a = lax.convert_element_type(a, dtypes.int32)
            return lax.convert_element_type(getattr(a.at[indices], method)(b), dtypes.bool_)
        return getattr(a.at[indices], method)(b)
    return at


def _fast_call(fn):
    """`fn` as a ufunc's `__call__` that keeps `fn`'s eager fast path: only `out` and
    `where` are checked on top of it."""
    name = fn.__name__
    known = _ARRAYLIKE_TYPES

    def call(*args, out=None, where=None):
        for a in args:   # JAX's array-like check; one dict lookup per seen type
            if type(a) not in known:
                check_arraylike(name, *args)
                break
        if out is None and where is None:
            return fn(*args)
        if out is not None:
            _unsupported_out(f"<jnp.ufunc '{name}'>")
        raise NotImplementedInAstjaxError(f"where argument of <jnp.ufunc '{name}'>",
                                          hint="use jnp.where on the result")
    return call


def _builtin(fn, nin, identity=None, **methods) -> Any:
    """A built-in ufunc around the `ufuncs.py` function `fn`. Its class is a subclass
    of `ufunc` whose `__call__` is the plain function (no bound-method layer on the
    eager path: `x + y` dispatches here)."""
    cls = type("ufunc", (ufunc,), {"__call__": staticmethod(_fast_call(fn)),
                                   "__module__": ufunc.__module__,
                                   "__doc__": ufunc.__doc__})
    return cls(fn, nin, 1, identity=identity, call=fn, **methods)


add = _builtin(uf.add, 2, 0, reduce=_sum, accumulate=cumsum, at=_scatter_at("add"))
multiply = _builtin(uf.multiply, 2, 1, reduce=prod, accumulate=cumprod, at=_scatter_at("mul"))
subtract = _builtin(uf.subtract, 2, None, at=lambda a, i, b: asarray(a).at[i].subtract(b))
maximum = _builtin(uf.maximum, 2, None, reduce=_max_reduce(_max))
minimum = _builtin(uf.minimum, 2, None, reduce=_max_reduce(_min))
bitwise_and = _builtin(uf.bitwise_and, 2, -1, reduce=_bitwise(uf.bitwise_and, -1))
bitwise_or = _builtin(uf.bitwise_or, 2, 0, reduce=_bitwise(uf.bitwise_or, 0))
bitwise_xor = _builtin(uf.bitwise_xor, 2, 0, reduce=_bitwise(uf.bitwise_xor, 0))
logical_and = _builtin(uf.logical_and, 2, True,
                       reduce=_monoid_reduce("logical_and", uf.logical_and, True, _as_bool))
logical_or = _builtin(uf.logical_or, 2, False,
                      reduce=_monoid_reduce("logical_or", uf.logical_or, False, _as_bool))
logical_xor = _builtin(uf.logical_xor, 2, False,
                       reduce=_monoid_reduce("logical_xor", uf.logical_xor, False, _as_bool))
logaddexp = _builtin(uf.logaddexp, 2, -np.inf, reduce=_logsumexp)
logaddexp2 = _builtin(uf.logaddexp2, 2, -np.inf, reduce=_logsumexp2)
negative = _builtin(uf.negative, 1)
