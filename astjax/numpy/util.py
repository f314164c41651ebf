"""Helpers shared by the array-API modules (`numpy`, `random`, `nn`, `scipy`).

- `library_jit(fn, static_argnums=...)`: compile a *library* function with
  `astjax.jit` without converting its source (library code is ordinary Python
  running on Tracers). Called while staging, it stages inline (with `keep_call=True`,
  one `jit` equation, as JAX's pjit: a reverse mode over it accumulates cotangents
  inside the call, in JAX's order); called eagerly it compiles once per signature
  instead of one executable per primitive.
- `static_shape`, `static_int`: read shape-like arguments that must be known while
  staging, with located errors otherwise.
- `prefix_sum`: an inclusive prefix sum along axis 0 from lax ops only
  (Hillis-Steele doubling), used for masks and counts.
- `canonicalize_axis`, `canonicalize_axes`: the one reading of an `axis` argument
  (`operator.index`, then the bounds, as NumPy and JAX), used by every jnp function
  that takes one.
- `with_device`: the Array API's keyword `device=` on a creation function (the
  result put on that Device or Sharding); `with_out_sharding` adds JAX's
  `out_sharding=` (the result's layout on an Explicit mesh).
"""
from __future__ import annotations

import functools
import inspect
import operator
from typing import Any, Callable, TypeVar, cast, overload

import numpy as np

from .. import core, lax, op_by_op, tree_util
from ..api import device_put, jit
from ..primitives.untyped_made import not_made_here
from ..shape_poly import shape_entries
from ..errors import (ArgumentError, ArgumentTypeError, ArgumentValueError, ArityError,
                      AstjaxError, AxisError, ScalarOverflowError, TracerIntegerConversionError)
from ..primitives.structural import out_layout
from ..sharding import (AxisType, NamedSharding, PartitionSpec, auto_axes, get_abstract_mesh,
                        reshard)
from ..staging import StagedCallable


class _Direct(StagedCallable):
    """A callable that staging runs as is (no source conversion)."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def stage_inline(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


_L = TypeVar("_L", bound=Callable[..., Any])


@overload
def library_jit(fn: _L, *, static_argnums: Any = (), static_argnames: Any = (),
                keep_call: bool = False, eager: bool = True) -> _L: ...
@overload
def library_jit(fn: None = None, *, static_argnums: Any = (), static_argnames: Any = (),
                keep_call: bool = False, eager: bool = True) -> Callable[[_L], _L]: ...


def library_jit(fn=None, *, static_argnums=(), static_argnames=(), keep_call=False,
                eager=True):
    """`jit` for astjax's own library functions (see module docstring); typed as the
    function it wraps. `keep_call=True`: called while staging, it stages a nested call
    (JAX's inner `jit`, named as `fn`) instead of inline, as JAX's jnp functions defined
    under `jit`; for some the digits depend on it: reverse mode accumulates cotangents
    inside the call (JAX's order), and XLA folds a constant operand into the caller's
    program only after simplifying the call's body (so `var`'s division by `N - ddof`
    stays a division). `eager=False`: called outside staging, `fn` runs as it is (its
    operations' own eager programs: a one-operation function gains nothing compiled)."""
    if fn is None:
        return functools.partial(library_jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, keep_call=keep_call,
                                 eager=eager)
    jitted = jit(_Direct(fn), static_argnums=static_argnums, static_argnames=static_argnames)
    # (each completed from the other through the signature, as `jit` does: a static
    # parameter is static however it is passed)
    nums, names = jitted.static_argnums, jitted.static_argnames

    @functools.wraps(fn)
    def call(*args, **kwargs):
        staged = core.current_builder() is not None
        # an eager transformation staging its function, on operands none of which is
        # staged: one `jit` equation, which `core.bind` runs now (`op_by_op`) as one
        # compiled call, as JAX's op by op runs this jitted function (its digits are
        # the eager call's, not each operation's)
        now = staged and eager and op_by_op.stages_function() and op_by_op.known_values(
            tree_util.staging_leaves((args, kwargs))) is not None
        if not (keep_call or now) if staged else not eager:
            return fn(*args, **kwargs)
        statics = [args[i] for i in nums if i < len(args)] + [kwargs[k] for k in names
                                                              if k in kwargs]
        try:
            hash(tuple(statics))
        except TypeError:  # e.g. an array where a static value is usual: run unjitted
            return fn(*args, **kwargs)
        try:
            return jitted(*args, **kwargs)
        except OverflowError as e:   # a Python int too wide for its weak type
            if isinstance(e, AstjaxError):
                raise
            raise ScalarOverflowError(str(e), hint="pass an array of a wider dtype") from None
        except ArityError:   # a call the signature refuses (`jnp.clip(x, a_min=0)`)
            if staged:   # (Python's own message, located at the call, as inline)
                return fn(*args, **kwargs)
            raise
        except ArgumentTypeError:
            # an argument `jit` does not take (an object with `__jax_array__`, ...): the
            # function's own conversion decides, op by op (its error, or its value)
            return fn(*args, **kwargs)
    call.__wrapped__ = fn
    return call


def static_int(v, what="value"):
    """`v` as a Python int now: a staged value is a TracerIntegerConversionError (JAX's
    ConcretizationTypeError), a non-integer an ArgumentTypeError (both TypeErrors)."""
    if isinstance(v, core.Tracer):
        if v.known is None:
            raise TracerIntegerConversionError(f"{what} must be known at staging time")
        return int(v.known)
    try:
        return operator.index(v)
    except TypeError:
        if hasattr(v, "__array__") and np.ndim(v) == 0 and np.issubdtype(np.asarray(v).dtype,
                                                                         np.integer):
            return int(np.asarray(v))
        raise ArgumentTypeError(f"{what} must be an integer, got {v!r:.60}") from None


def static_shape(shape, what="shape"):
    """A shape argument (None: `()`) as a tuple of Python ints, each read by `static_int`."""
    if shape is None:
        return ()
    return tuple(static_int(d, what) for d in shape_entries(shape))


def canonicalize_axis(axis, ndim, what=None):
    """`axis` (an integer, negative counting from the end) as an index in [0, ndim):
    an `ArgumentTypeError` (a TypeError) for a non-integer, an `AxisError` (a
    ValueError and an IndexError, as NumPy's) out of bounds."""
    where = f"`{what}`: " if what else ""
    try:
        a = operator.index(axis)  # a staged axis: TracerIntegerConversionError, as JAX's
    except TypeError as e:
        if isinstance(e, AstjaxError):
            raise
        raise ArgumentTypeError(f"{where}axis must be an integer, got {type(axis).__name__} "
                                f"{axis!r:.60}", hint="pass an int (or a tuple of ints)") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{where}axis {a} is out of bounds for array of dimension {ndim}")
    return a + ndim if a < 0 else a


def axis_entries(axis) -> tuple:
    """An axis argument's entries: a tuple, list, `range` or an array of one or more
    dimensions (a NumPy integer array) is a sequence of axes, as JAX iterates what is
    not an index; anything else is one axis."""
    if isinstance(axis, (tuple, list, range)) or getattr(axis, "ndim", 0) >= 1:
        return tuple(axis)
    return (axis,)


def check_hashable(value, what):
    """JAX's ValueError for an unhashable `value` (a list, an array) that its jitted
    function `what` takes as a static argument."""
    try:
        hash(value)
    except TypeError as e:
        raise ArgumentValueError(
            f"{what}: Non-hashable static arguments are not supported. An error occurred "
            f"while trying to hash an object of type {type(value)}, {value!r:.60}. The error "
            f"was: TypeError: {e}", hint="pass a tuple (or an int)") from None
    return value


def canonicalize_axes(axis, ndim, what=None, *, unique=True, sequences=None):
    """`axis` (None: every axis; an integer; a tuple or list of them) as a tuple of
    indices in [0, ndim), each read by `canonicalize_axis`; a repeated axis is an
    `AxisError` unless `unique=False`. `sequences`: the types a function takes as a
    sequence of axes where JAX's takes fewer than `axis_entries` (`linalg.norm`'s and
    `quantile`'s only a tuple: a `range` or list is then one axis, a TypeError)."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis_entries(axis) if sequences is None or isinstance(axis, sequences) else (axis,)
    out = tuple(canonicalize_axis(a, ndim, what) for a in axes)
    if unique and len(set(out)) != len(out):
        raise AxisError(f"{f'`{what}`: ' if what else ''}duplicate value in 'axis': "
                        f"{tuple(axes)!r:.60}", hint="name each axis once")
    return out


def prefix_sum(x, axis=0, exclusive=False):
    """Inclusive (or exclusive) prefix sum of `x` along `axis`, in log2(n) steps."""
    av = core.get_aval(x)
    n = av.shape[axis]
    zero = np.zeros((), av.dtype)[()]
    shift = 1
    while shift < n:
        cfg = [(0, 0, 0)] * av.ndim
        cfg[axis] = (shift, -shift, 0)
        x = lax.add(x, lax.pad(x, zero, cfg))
        shift *= 2
    if exclusive:
        cfg = [(0, 0, 0)] * av.ndim
        cfg[axis] = (1, -1, 0)
        x = lax.pad(x, zero, cfg)
    return x


def _with_keywords(fn, placed, names):
    """`placed` with `fn`'s signature plus keyword-only `names` (default None) before
    any **kwargs."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    k = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params[k:k] = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None)
                   for n in names]
    placed.__signature__ = sig.replace(parameters=params)
    return placed


def with_device(fn):
    """`fn` with a keyword-only `device=` (the Array API's): its result is put on
    that Device or Sharding (None: the default device). A staged result is left as it
    is, as JAX does: inside a staged function placement is the compiled program's."""
    @functools.wraps(fn)
    def placed(*args, device=None, **kwargs):
        out = fn(*args, **kwargs)
        if device is None or isinstance(out, core.Tracer):
            return out
        return device_put(out, device)
    return _with_keywords(fn, placed, ["device"])


def out_sharding_arg(s, name):
    """An `out_sharding=` argument read as JAX reads it: None (also for a
    NamedSharding over the empty mesh), else a NamedSharding over Explicit mesh axes (a
    bare PartitionSpec takes the mesh of `set_mesh`); JAX's errors otherwise."""
    if s is None or (isinstance(s, NamedSharding) and s.mesh.empty):
        return None
    if not isinstance(s, (NamedSharding, PartitionSpec)):
        raise ArgumentTypeError(f"`out_sharding` argument of {name} only supports instances "
                                f"of `NamedSharding` or `PartitionSpec`. Got {s} of type: "
                                f"{type(s)}", hint="pass a NamedSharding or a PartitionSpec")
    context = get_abstract_mesh()
    if isinstance(s, NamedSharding) and not context.empty:
        mesh = s.mesh.abstract_mesh
        auto = {AxisType.Auto}
        if mesh != context and not (set(mesh.axis_types) <= auto
                                    and set(context.axis_types) <= auto):
            raise ArgumentValueError(
                f"Context mesh {context!r} should match the mesh of sharding {mesh!r} passed "
                f"to {name}.", hint="give a sharding over the mesh of `jax.set_mesh`")
    return out_layout(s, name)


_F = TypeVar("_F", bound=Callable[..., Any])


def with_out_sharding(name: str, device: bool = True,
                      auto: bool = False) -> Callable[[_F], _F]:
    """Decorator: `fn` with JAX's keyword-only `device=` (when `device`) and
    `out_sharding=`: the result laid out as `out_sharding` says on an Explicit mesh
    (its type inside `jit`); giving both is JAX's ValueError. `auto`: `fn` runs with
    the mesh's Explicit axes made Auto, as JAX runs `percentile` and `repeat`."""
    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def placed(*args, **kwargs):
            out_sharding = kwargs.pop("out_sharding", None)
            dev = kwargs.pop("device", None) if device else None
            if dev is not None and out_sharding is not None:
                raise ArgumentValueError(
                    f"Only one of `device` or `out_sharding` can be set. Got device={dev!r} "
                    f"and out_sharding={out_sharding!r}", hint="give one of them")
            s = out_sharding_arg(out_sharding, name)
            if s is None:
                out = fn(*args, **kwargs)
                if dev is None or isinstance(out, core.Tracer):
                    return out
                return device_put(out, dev)
            if auto:
                axes = tuple(n for n, t in zip(s.mesh.axis_names, s.mesh.axis_types)
                             if t == AxisType.Explicit)
                return auto_axes(fn, axes=axes, out_sharding=s)(*args, **kwargs)
            with not_made_here():          # (JAX makes it laid out so: no replicated type)
                out = fn(*args, **kwargs)  # (the spec padded to the result's rank, as JAX's)
            return reshard(out, NamedSharding(s.mesh, s.spec.update(
                partitions=s.spec._normalized(core.get_aval(out).ndim))))
        return cast(_F, _with_keywords(fn, placed, ["device", "out_sharding"] if device
                                       else ["out_sharding"]))
    return wrap
