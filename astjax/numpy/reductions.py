"""Reductions: sum, prod, max, min, mean, var, std, any, all, argmax/argmin, with
NumPy's axis/keepdims/dtype/where arguments."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentValueError, AxisNameError, ReductionError
from ..primitives.base import max_value as _max_value, min_value as _min_value
from ..primitives.while_loop import eagerly_staged as _eagerly_staged
from ..shape_poly import is_symbolic_dim
from . import ufuncs
from .operands import asarray, _strong_result
from .ufuncs import asarray_operand, broadcast_to_shape, where as _where
from .util import axis_entries as _axis_entries, canonicalize_axes, library_jit as _library_jit
from ..typing import Array


def _axes(axis, ndim, name):
    """The reduced axes: `util.canonicalize_axes`, and JAX's error for a string axis (a
    named axis, which jnp reductions here do not bind)."""
    for a in _axis_entries(axis):
        if isinstance(a, str):
            raise AxisNameError(f"`{name}`: found an unbound axis name: {a}",
                                hint="jnp reductions take integer axes; reduce over a named "
                                     "vmap/pmap axis with lax.psum / lax.pmax / lax.pmin")
    return canonicalize_axes(axis, ndim, name)


# False while a `nan*` reduction runs one of these: JAX's are jitted, not inlined, so a
# Python `initial` is their operand (converted saturating) even inside a user's `jit`
_INITIAL_FOLDED: ContextVar[bool] = ContextVar("astjax_initial_folded", default=True)


@contextmanager
def _initial_saturates():
    """While inside: a float `initial` converts saturating, as an operand (`_as_traced`)."""
    token = _INITIAL_FOLDED.set(False)
    try:
        yield
    finally:
        _INITIAL_FOLDED.reset(token)


def _as_traced(initial, dt):
    """A concrete float `initial` for an integer reduction as JAX converts it. Called
    eagerly, JAX's reductions are jitted with `initial` an operand, so XLA converts the
    float saturating (NaN to 0, out-of-range to dt's limits), as under an eager `vmap`.
    Staged in a user's `jit`, the reduction is inlined (JAX's `jit(inline=True)`) and
    its conversion of the constant folded by the host's cast (-1.0 -> 65535 for uint16,
    1e30 or NaN -> int64's minimum: NumPy's cast of the canonical float). (The `nan*`
    reductions are not inlined: saturating everywhere.)"""
    if (initial is None or isinstance(initial, core.Tracer) or hasattr(initial, "_buf")
            or not dtypes.is_int(dt) or np.ndim(initial) != 0):
        return initial
    v = np.asarray(initial)
    if v.dtype.kind != "f":
        return initial
    if _INITIAL_FOLDED.get() and not _eagerly_staged():
        if not np.isfinite(v):   # (the NaN or infinity of its canonical dtype)
            v = v.astype(dtypes.canonicalize(v.dtype))
        with np.errstate(invalid="ignore", over="ignore"):
            return np.asarray(v, dtype=dt)
    info = np.iinfo(dt)
    v = float(v.astype(dtypes.canonicalize(v.dtype)))
    if np.isnan(v):
        return 0
    # (compared as floats: float(info.max) of a 64-bit type rounds up past it)
    return info.max if v >= float(info.max) else info.min if v <= info.min else int(v)


def _check_where(name, where):
    """JAX's ValueError for a `where=` mask that is not boolean (a number is not taken
    as its truth value)."""
    if where is not None:
        dt = core.get_aval(asarray_operand(where)).dtype
        if dt != dtypes.bool_:
            raise ArgumentValueError(f"jnp.{name}: where must be None or a boolean array; "
                                     f"got where.dtype=dtype('{np.dtype(dt).name}').",
                                     hint="pass a bool mask, e.g. where=x > 0")


def _static_axis(axis):
    """A list of axes as a tuple: the same reduction, and a key `library_jit` can hash."""
    return tuple(axis) if isinstance(axis, list) else axis


def _keep(x, axes, in_shape):
    """A reduction's result `x` with its reduced `axes` of `in_shape` back as size-1
    dimensions (JAX's `expand_dims`: a broadcast_in_dim)."""
    return lax.expand_dims(x, tuple(sorted(axes)))


_RED_ARGS = """
Args:
  a: an array or scalar to reduce.
  axis: an int or tuple of ints (static) to reduce over; None reduces over all axes.
  dtype: the dtype to accumulate and return in (default: see Returns).
  out: accepted for NumPy compatibility only; astjax never writes in place.
  keepdims: keep the reduced axes as size-1 dimensions.
  initial: a scalar folded into the reduction (required for an empty max/min).
  where: a bool mask broadcast to `a`; masked-out elements do not take part.
  promote_integers: (sum, prod) accumulate small integers in the default integer type
    (True, JAX's default) or in their own type (False); 2- and 4-bit integers raise
    ValueError unless False or a `dtype` is given, as in JAX 0.10.2.
"""


def _reduction(name, lax_fn, *, upcast_bool=False, bool_op=None, init=None, identity=True,
               doc=None) -> Callable[..., Array]:
    """A `jnp` reduction over axes; `doc` becomes its docstring. `upcast_bool` (sum and
    prod) adds JAX's `promote_integers` argument."""
    def reduce(a, axis, dtype, keepdims, initial, where, promote_integers):
        a = asarray(asarray_operand(a))  # a Python scalar: a 0-d array, never a WeakConst
        _check_where(name, where)
        av = core.get_aval(a)
        axes = _axes(axis, av.ndim, name)
        if not identity and initial is None:
            if where is not None:
                raise ReductionError(f"reduction operation {name} does not have an identity, "
                                     "so to use a where mask one has to specify 'initial'")
            if _count(av.shape, axes) == 0:
                raise ReductionError(f"zero-size array to reduction operation {name} which "
                                     "has no identity")
        if dtype is not None:
            a = lax.convert_element_type(a, dtypes.canonicalize(dtypes.dtype(dtype), warn=True))
        elif upcast_bool and (av.dtype == dtypes.bool_ or (
                promote_integers and dtypes.is_int(av.dtype) and
                av.dtype.itemsize < dtypes.canonicalize(dtypes.int64).itemsize)):   # (JAX's)
            if dtypes.itemsize_bits(av.dtype) < 8:
                # JAX 0.10.2 asks np.iinfo for the accumulator's width, which fails on
                # ml_dtypes' 2-/4-bit integers: the same ValueError here
                raise ArgumentValueError(
                    f"Invalid integer data type 'V'. (jnp.{name} of a {av.dtype} array: JAX "
                    f"0.10.2 cannot pick a wider accumulator for a "
                    f"{dtypes.itemsize_bits(av.dtype)}-bit integer)",
                    hint=f"pass dtype= (e.g. dtype=jnp.int32) to accumulate in a wider type, "
                         f"or promote_integers=False to accumulate in {av.dtype}")
            a = lax.convert_element_type(a, dtypes.canonicalize(
                dtypes.uint64 if dtypes.issubdtype(av.dtype, np.unsignedinteger) else dtypes.int64))
        elif bool_op is not None and av.dtype == dtypes.bool_:
            return _finish(bool_op(a, axes), axes, av.shape, keepdims)
        # strong before reducing, as JAX's (not after: the cotangent of a weak operand
        # comes back weak through the conversion's transpose)
        a = _strong_result(a)
        if where is not None:
            ident = init(core.get_aval(a).dtype)
            a = _where(broadcast_to_shape(where, av.shape), a, lax.full_like(a, ident))
        half = core.get_aval(a).dtype
        # sums and products of float16/bfloat16 accumulate in float32 unless `dtype` is
        # given, as JAX's
        wide = upcast_bool and dtype is None and half in (np.float16, dtypes.bfloat16)
        r = lax.convert_element_type(a, np.float32) if wide and axes else a
        r = lax_fn(r, axes) if axes else r
        if initial is not None:
            # as JAX: `initial` is cast to the accumulator's dtype (not promoted with it)
            init_arr = lax.convert_element_type(_as_traced(initial, core.get_aval(r).dtype),
                                                core.get_aval(r).dtype)
            if np.shape(init_arr) != ():
                raise ArgumentValueError("initial value must be a scalar. Got array of "
                                         f"shape {tuple(np.shape(init_arr))}",
                                         hint="pass a scalar `initial`")
            r = getattr(ufuncs, {"sum": "add", "prod": "multiply", "max": "maximum",
                                 "min": "minimum"}[name])(init_arr, r)
        r = lax.convert_element_type(r, half) if wide and axes else r
        return _finish(r, axes, av.shape, keepdims)

    # one executable per signature when called eagerly, as JAX's jitted reductions:
    # axis, dtype, keepdims and promote_integers static, `initial` and `where` operands
    reduce.__name__ = name
    reduce = _library_jit(reduce, static_argnums=(1, 2, 3, 6))
    if upcast_bool:
        def f(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
              promote_integers=True):
            return reduce(a, _static_axis(axis), dtype, keepdims, initial, where,
                          promote_integers)
    else:
        def f(a, axis=None, out=None, keepdims=False, initial=None, where=None):
            # (no dtype, as JAX)
            return reduce(a, _static_axis(axis), None, keepdims, initial, where, True)
    f.__name__ = name
    f.__doc__ = doc
    return f


def _finish(r, axes, shape, keepdims):
    """The reduction's result, its axes kept when `keepdims`; strongly typed, as JAX's
    (a reduction of a Python scalar or weak value is not weak)."""
    r = _keep(r, axes, shape) if keepdims else r
    ra = core.get_aval(r)
    return lax.convert_element_type(r, ra.dtype, weak_type=False) if ra.weak_type else r


_SUM_DOC = """Sum of the elements of `a` over the given axes.
""" + _RED_ARGS + """
Returns:
  The sums; bool and small-int inputs accumulate in the default int (the default
  unsigned int for small unsigned ints), other inputs in their own dtype. The result is never weakly typed.

Differences from NumPy: integer sums wrap around on overflow silently; without x64
the default int is int32, not int64; there is no in-place `out=`.

Example:
  >>> import astjax.numpy as jnp
  >>> x = jnp.array([[1, 2], [3, 4]])
  >>> jnp.sum(x)
  Array(10, dtype=int32)
  >>> jnp.sum(x, axis=0)
  Array([4, 6], dtype=int32)
"""

_PROD_DOC = """Product of the elements of `a` over the given axes.
""" + _RED_ARGS + """
Returns:
  The products, accumulated as `sum` accumulates (bool and small ints upcast).

Differences from NumPy: integer products wrap around on overflow silently; without
x64 the default int is int32; there is no in-place `out=`.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.prod(jnp.array([1, 2, 3, 4]))
  Array(24, dtype=int32)
"""

_MAX_DOC = """Largest element of `a` over the given axes (alias `amax`).
""" + _RED_ARGS + """
Returns:
  An array of a's dtype with the reduced axes removed (or kept, with `keepdims`).

Differences from NumPy: NaN propagates (any NaN in a slice gives NaN); an empty
reduction, or a `where` mask, needs `initial`, else a ReductionError is raised at trace
time since shapes are static. There is no in-place `out=`.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.max(jnp.array([[1, 2], [3, 4]]), axis=1)
  Array([2, 4], dtype=int32)
  >>> jnp.max(jnp.array([1.0, jnp.nan]))
  Array(nan, dtype=float32)
"""

_MIN_DOC = """Smallest element of `a` over the given axes (alias `amin`).
""" + _RED_ARGS + """
Returns:
  An array of a's dtype with the reduced axes removed (or kept, with `keepdims`).

Differences from NumPy: NaN propagates; an empty reduction, or a `where` mask, needs
`initial` (a ReductionError otherwise). There is no in-place `out=`.
"""

sum = _reduction("sum", lax.reduce_sum, upcast_bool=True, init=lambda d: 0,  # noqa: A001
                 doc=_SUM_DOC)
prod = _reduction("prod", lax.reduce_prod, upcast_bool=True, init=lambda d: 1, doc=_PROD_DOC)
max = _reduction("max", lax.reduce_max, init=_min_value, identity=False,  # noqa: A001
                 doc=_MAX_DOC)
min = _reduction("min", lax.reduce_min, init=_max_value, identity=False,  # noqa: A001
                 doc=_MIN_DOC)
amax, amin = max, min


def _bool_reduction(name, lax_fn, doc=None):
    """A `jnp` truth-value reduction (all/any); `doc` becomes its docstring."""
    def reduce(a, axis, keepdims, where):
        a = asarray(asarray_operand(a))
        _check_where(name, where)
        av = core.get_aval(a)
        if dtypes.issubdtype(av.dtype, np.complexfloating):
            a = lax.real(a)   # JAX tests a complex value's real part only
        if av.dtype != dtypes.bool_:
            a = lax.ne(a, lax.full_like(a, 0))
        if where is not None:
            a = _where(broadcast_to_shape(where, av.shape), a, name == "all")
        axes = _axes(axis, av.ndim, name)
        r = lax_fn(a, axes) if axes else a
        return _finish(r, axes, av.shape, keepdims)
    reduce.__name__ = name
    reduce = _library_jit(reduce, static_argnums=(1, 2))   # (as JAX's, one executable)

    def f(a, axis=None, out=None, keepdims=False, where=None):
        return reduce(a, _static_axis(axis), keepdims, where)
    f.__name__ = name
    f.__doc__ = doc
    return f


_BOOL_ARGS = """
Args:
  a: an array or scalar; non-bool values are tested against zero (a complex value by its
    real part only, as JAX: `any(1j)` is False, unlike NumPy).
  axis: an int or tuple of ints (static) to reduce over; None reduces over all axes.
  out: accepted for NumPy compatibility only; astjax never writes in place.
  keepdims: keep the reduced axes as size-1 dimensions.
  where: a bool mask broadcast to `a`; masked-out elements are ignored.

Returns:
  A bool array.
"""

_ALL_DOC = """Whether every element of `a` is true (non-zero) along the given axes.
""" + _BOOL_ARGS + """
Differences from NumPy: the result is always a bool Array (never a Python bool or an
object-dtype value), and the reduction of an empty slice is True.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.all(jnp.array([1, 0]))
  Array(False, dtype=bool)
"""

_ANY_DOC = """Whether any element of `a` is true (non-zero) along the given axes.
""" + _BOOL_ARGS + """
Differences from NumPy: the result is always a bool Array; an empty slice gives False.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.any(jnp.array([1, 0]))
  Array(True, dtype=bool)
"""

all = _bool_reduction("all", lax.reduce_and, _ALL_DOC)  # noqa: A001
any = _bool_reduction("any", lax.reduce_or, _ANY_DOC)  # noqa: A001


def _count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None) -> Array:
    """Arithmetic mean of the elements of `a` over the given axes.

    Args:
      a: an array or scalar.
      axis: an int or tuple of ints (static); None averages over all elements.
      dtype: the result dtype (default: a's dtype if inexact, else the default float).
      out: accepted for NumPy compatibility only; astjax never writes in place.
      keepdims: keep the reduced axes as size-1 dimensions.
      where: a bool mask; the mean is taken over the selected elements only.

    Returns:
      A floating (or complex) array of the means.

    Differences from NumPy: integer inputs average in float32 unless x64 is enabled;
    float16/bfloat16 inputs accumulate in float32 (R16) unless `dtype` is given; an
    empty slice gives NaN with no warning.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.mean(jnp.array([[1, 2], [3, 4]]), axis=1)
      Array([1.5, 3.5], dtype=float32)
    """
    return _mean_jit(a, _static_axis(axis), dtype, out, keepdims, where)


@_library_jit(static_argnums=(1, 2, 4))
def _mean_jit(a, axis, dtype, out, keepdims, where):
    """`mean`, one executable per signature when called eagerly (JAX's jitted `_mean`)."""
    a = asarray_operand(a)
    _check_where("mean", where)
    av = core.get_aval(a)
    # float16/bfloat16 accumulate in float32 unless `dtype` is given, as JAX's
    upcast = dtype is None
    if dtype is None:
        dtype = dtypes.to_inexact(av.dtype)   # as JAX: int32 -> float32, int64 -> float64
    dtype = dtypes.canonicalize(dtypes.dtype(dtype))
    comp = dtypes.float32 if upcast and dtype in (dtypes.float16, dtypes.bfloat16) else dtype
    axes = _axes(axis, av.ndim, "mean")
    if where is None:
        n = _count(av.shape, axes)
        s = sum(lax.convert_element_type(a, comp), axis=axes, dtype=comp, keepdims=keepdims)
        m = lax.div(s, np.asarray(n, comp)[()] if type(n) is int   # (else symbolic)
                    else lax.convert_element_type(asarray_operand(n), comp))
    else:
        w = broadcast_to_shape(where, av.shape)
        s = sum(lax.convert_element_type(a, comp), axis=axes, dtype=comp, keepdims=keepdims,
                where=w)
        m = lax.div(s, sum(w, axis=axes, dtype=comp, keepdims=keepdims))
    return m if comp == dtype else lax.convert_element_type(m, dtype)


def _var_dtypes(a_dtype, dtype):
    """(computation dtype, result dtype) of `var`/`std`, as JAX chooses them: `dtype=`
    when given (a real one for complex data is JAX's ValueError), else a's real dtype
    for inexact data and float32 (float64 for 64-bit integers) for the rest;
    float16/bfloat16 compute in float32."""
    if dtype is not None:
        dtype = dtypes.canonicalize(dtypes.dtype(dtype), warn=True)
        if (dtypes.issubdtype(a_dtype, np.complexfloating)
                and not dtypes.issubdtype(dtype, np.complexfloating)):
            raise ArgumentValueError(      # (JAX's text)
                "jax.numpy.var does not yet support real dtype parameters when computing the "
                "variance of an array of complex values. The semantics of numpy.var seem "
                "unclear in this case. Please comment on "
                "https://github.com/jax-ml/jax/issues/2283 if this behavior is important to "
                "you.", hint="pass a complex dtype, or none (the result is then real)")
        comp = dtype
    elif dtypes.is_inexact(a_dtype):
        comp, dtype = a_dtype, np.dtype(np.zeros((), a_dtype).real.dtype)
    else:
        wide = np.dtype(a_dtype) in (np.dtype(np.int64), np.dtype(np.uint64))
        comp = dtype = dtypes.canonicalize(dtypes.float64 if wide else dtypes.float32)
    if comp in (dtypes.float16, dtypes.bfloat16):
        comp = dtypes.float32
    return comp, dtype


_mean = mean  # (var's and std's `mean` parameter shadows it)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
        correction=None, *, mean=None) -> Array:
    """Variance of the elements of `a` over the given axes.

    Args:
      a: an array or scalar.
      axis: an int or tuple of ints (static); None uses all elements.
      dtype: the dtype to compute in and return (default: a's real dtype if inexact,
        else float32); a real dtype for complex `a` is a ValueError, as in JAX.
      out: accepted for NumPy compatibility only; astjax never writes in place.
      ddof: delta degrees of freedom; the divisor is N - ddof.
      keepdims: keep the reduced axes as size-1 dimensions.
      where: a bool mask; only selected elements take part.
      correction: the Array-API name for `ddof` (giving both is a ValueError).
      mean: a precomputed mean of `a` (with the reduced axes kept), used in place of
        computing it, as JAX's.

    Returns:
      An array of `dtype` (complex inputs without `dtype` give a real variance; an
      integer `dtype` computes in it and returns the default float, as JAX does); NaN
      where N - ddof <= 0, as in JAX.

    Differences from NumPy: integer inputs are computed in float32 unless they are
    64-bit; no warnings.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.var(jnp.array([1.0, 2.0, 3.0, 4.0]))
      Array(1.25, dtype=float32)
    """
    return _var(a, axis=axis, dtype=dtype, correction=_correction(ddof, correction),
                keepdims=keepdims, where=where, mean=mean)


def _correction(ddof, correction):
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ArgumentValueError("ddof and correction can't be provided simultaneously.",
                                 hint="pass one of them")
    return correction


# The correction is an operand, not a static argument, as in JAX: its compiled program
# divides by a run-time N - ddof, whose digits differ from a division by a constant;
# staged, it is a nested call as JAX's (see `library_jit`'s `keep_call`)
@_library_jit(static_argnames=("axis", "dtype", "keepdims"), keep_call=True)
def _var(a, *, axis, dtype, correction, keepdims, where, mean):
    a = asarray_operand(a)
    _check_where("var", where)
    av = core.get_aval(a)
    comp, dtype = _var_dtypes(av.dtype, dtype)
    a = lax.convert_element_type(a, comp)
    axes = _axes(axis, av.ndim, "var")
    m = (_mean(a, axis=axes, dtype=comp, keepdims=True, where=where) if mean is None
         else lax.convert_element_type(asarray_operand(mean), comp))
    centered = lax.sub(a, broadcast_to_shape(m, av.shape))
    if dtypes.issubdtype(comp, np.complexfloating):
        sq = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        sq = lax.square(centered)
    sdt = core.get_aval(sq).dtype
    if where is None:
        s = sum(sq, axis=axes, dtype=sdt, keepdims=keepdims)
        n = _count(av.shape, axes)
        n = (lax.convert_element_type(asarray_operand(n), sdt) if is_symbolic_dim(n)
             else np.asarray(n, sdt)[()])
    else:
        w = broadcast_to_shape(where, av.shape)
        s = sum(sq, axis=axes, dtype=sdt, keepdims=keepdims, where=w)
        n = sum(lax.convert_element_type(w, sdt), axis=axes, keepdims=keepdims)
    n = lax.sub(n, lax.convert_element_type(asarray_operand(correction), sdt))
    r = lax.convert_element_type(lax.div(s, n), dtype)
    # NaN where N - ddof <= 0; a weak NaN, so an integer `dtype` turns into the default
    # float as JAX's result does
    return _where(lax.gt(n, np.zeros((), sdt)[()]), r, float("nan"))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
        correction=None, *, mean=None) -> Array:
    """Standard deviation (square root of `var`) over the given axes.

    Args:
      a, axis, out, ddof, keepdims, where, correction, mean: as for `var`.
      dtype: as for `var`, but it must be inexact (else a ValueError, as in JAX).

    Returns:
      A real floating array.

    Differences from NumPy: as `var` (float32 for integer inputs without x64, no
    warnings); the gradient at zero variance is not finite.
    """
    if dtype is not None and not dtypes.is_inexact(dtypes.dtype(dtype)):
        raise ArgumentValueError(f"dtype argument to jnp.std must be inexact; got "
                                 f"{dtypes.dtype(dtype)}",
                                 hint="pass a floating or complex dtype")
    return _std(a, axis=axis, dtype=dtype, correction=_correction(ddof, correction),
                keepdims=keepdims, where=where, mean=mean)


@_library_jit(static_argnames=("axis", "dtype", "keepdims"), keep_call=True)   # (as `_var`)
def _std(a, *, axis, dtype, correction, keepdims, where, mean):
    return lax.sqrt(_var(a, axis=axis, dtype=dtype, correction=correction,
                         keepdims=keepdims, where=where, mean=mean))


@_library_jit(static_argnames=("axis", "keepdims"))
def ptp(a, axis=None, out=None, keepdims=False):
    """Peak to peak: `max(a) - min(a)` over the given axes.

    Args:
      a: an array or scalar.
      axis: an int or tuple of ints (static); None uses all elements.
      out: accepted for NumPy compatibility only; astjax never writes in place.
      keepdims: keep the reduced axes as size-1 dimensions.

    Returns:
      An array of a's dtype.

    Differences from NumPy: integer ranges wrap around on overflow silently; NaN
    propagates; an empty slice raises a ReductionError at trace time.
    """
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))
