"""Statistics and NaN-aware reductions: nan* variants, average, cov, corrcoef,
diff/ediff1d/gradient, trapezoid, convolve/correlate (quantiles and medians:
`quantiles.py`)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import (ArgumentTypeError, ArgumentValueError, DTypeError,
                      NotImplementedInAstjaxError, ShapeError, ShapeValueError)
from . import ufuncs as uf
from .contractions import matmul
from .reductions import (_var_dtypes, all as _all, _initial_saturates,
                         max as _max, mean as _mean, min as _min, prod, sum as _sum)
from .shapes import (atleast_2d, concatenate, diagonal, flip, moveaxis, ravel,
                     _reshape as reshape, squeeze)
from .sorting import argmax, argmin, cumprod, cumsum
from .operands import asarray
from .ufuncs import asarray_operand, broadcast_to_shape, promote_args_inexact, where
from .util import canonicalize_axes, canonicalize_axis, library_jit

__all__ = ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd",
           "nanargmax", "nanargmin", "nancumsum", "nancumprod", "average", "cov", "corrcoef",
           "diff", "ediff1d", "gradient", "trapezoid", "convolve", "correlate"]


def _dt(x):
    return core.get_aval(x).dtype


def _shape(x):
    return core.get_aval(x).shape


def _zero_nans(a, fill):
    a = asarray_operand(a)
    if not dtypes.is_inexact(_dt(a)):
        return a
    return where(uf.isnan(a), np.asarray(fill, _dt(a))[()], a)


@library_jit(static_argnames=("axis", "dtype", "keepdims", "initial"))
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum of array elements, counting NaNs as zero.

    Args:
      a: input array. axis, dtype, keepdims, initial, where: as for `jnp.sum`.
    Returns:
      The sum over `axis` with NaN entries ignored.
    Differs from NumPy: `out=` is not supported (arrays are immutable).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.nansum(jnp.array([1.0, 2.0, jnp.nan, 4.0]))
      Array(7., dtype=float32)
    """
    with _initial_saturates():
        return _sum(_zero_nans(a, 0), axis=axis, dtype=dtype, keepdims=keepdims,
                    initial=initial, where=where)


@library_jit(static_argnames=("axis", "dtype", "keepdims", "initial"))
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product of array elements, counting NaNs as one.

    Args:
      a: input array. axis, dtype, keepdims, initial, where: as for `jnp.prod`.
    Returns:
      The product over `axis` with NaN entries ignored.
    Differs from NumPy: `out=` is not supported (arrays are immutable).
    """
    with _initial_saturates():
        return prod(_zero_nans(a, 1), axis=axis, dtype=dtype, keepdims=keepdims,
                    initial=initial, where=where)


def _nan_extreme(red, fill):
    def f(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        with _initial_saturates():
            return extreme(a, axis, keepdims, initial, where)

    def extreme(a, axis, keepdims, initial, where):
        a = asarray_operand(a)
        if not dtypes.is_inexact(_dt(a)):
            return red(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
        out_ = red(_zero_nans(a, fill), axis=axis, keepdims=keepdims, initial=initial,
                   where=where)
        if initial is not None:   # as JAX: an all-NaN slice gives `initial`, not NaN
            return out_
        all_nan = _all(uf.isnan(a), axis=axis, keepdims=keepdims)
        return uf.where(all_nan, np.asarray(np.nan, _dt(a))[()], out_)
    return library_jit(f, static_argnames=("axis", "keepdims", "initial"))


nanmax = _nan_extreme(_max, -np.inf)
nanmax.__doc__ = """Maximum along an axis, skipping NaNs (NaN only where a slice is all NaN).

Args:
  a: input array. axis, keepdims, initial, where: as for `jnp.max`.
Returns:
  The maximum of the non-NaN values.
Differs from NumPy: no `out=`; an all-NaN slice gives NaN without a warning.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.nanmax(jnp.array([1.0, jnp.nan, 3.0]))
  Array(3., dtype=float32)
"""
nanmin = _nan_extreme(_min, np.inf)
nanmin.__doc__ = """Minimum along an axis, skipping NaNs (NaN only where a slice is all NaN).

Args:
  a: input array. axis, keepdims, initial, where: as for `jnp.min`.
Returns:
  The minimum of the non-NaN values.
Differs from NumPy: no `out=`; an all-NaN slice gives NaN without a warning.
"""


@library_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """Arithmetic mean that skips NaN entries.

    Args:
      a: input array. axis, dtype, keepdims, where: as for `jnp.mean`.
    Returns:
      Sum of the non-NaN values divided by their count (NaN where all are NaN).
    Differs from NumPy: `out=` is not supported (arrays are immutable).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.nanmean(jnp.array([1.0, 2.0, jnp.nan, 4.0]))
      Array(2.3333333, dtype=float32)
    """
    a = asarray_operand(a)
    if not dtypes.is_inexact(_dt(a)):
        return _mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    dt = dtypes.canonicalize(dtypes.dtype(dtype)) if dtype is not None else _dt(a)
    valid = uf.logical_not(uf.isnan(a))
    if where is not None:   # (NumPy's rule: it broadcasts to `a`, never beyond; a ValueError)
        where = broadcast_to_shape(asarray_operand(where), core.get_aval(a).shape)
        valid = uf.logical_and(valid, where)
    s = _sum(lax.convert_element_type(_zero_nans(a, 0), dt), axis=axis, keepdims=keepdims,
             where=where)
    n = _sum(valid, axis=axis, keepdims=keepdims, dtype=dt)
    return lax.div(s, n)    # (in `dt`: an integer `dtype=` divides as integers, as JAX's)


@library_jit(static_argnames=("axis", "dtype", "ddof", "keepdims"))
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
    """Variance that skips NaN entries.

    Args:
      a: input array. axis, dtype, keepdims, where: as for `jnp.var` (`dtype` is the
        computation and result dtype, as JAX's). ddof: degrees-of-freedom correction.
      mean: a precomputed NaN-skipping mean (reduced axes kept), used in place of
        computing it, as JAX's.
    Returns:
      The variance of the non-NaN values along `axis` (NaN where N - ddof <= 0).
    Differs from NumPy: `out=` is not supported (arrays are immutable); no
    `correction=` (as JAX's).
    """
    if out is not None:
        raise NotImplementedInAstjaxError("The 'out' argument to jnp.nanvar is not supported.",
                                          hint="arrays are immutable: use the result")
    a = asarray_operand(a)
    if where is not None:
        where = broadcast_to_shape(asarray_operand(where), core.get_aval(a).shape)
    comp, dtype = _var_dtypes(_dt(a), dtype)   # (var's dtypes, as JAX's nanvar)
    a = lax.convert_element_type(a, comp)
    m = (nanmean(a, axis=axis, dtype=comp, keepdims=True, where=where) if mean is None
         else lax.convert_element_type(asarray_operand(mean), comp))
    nans = uf.isnan(a)
    centered = uf.where(nans, np.asarray(0, comp)[()], uf.subtract(a, m))
    if dtypes.issubdtype(comp, np.complexfloating):
        sq = lax.real(uf.multiply(centered, uf.conjugate(centered)))
    else:
        sq = uf.square(centered)
    n = uf.subtract(_sum(uf.logical_not(nans), axis=axis, keepdims=keepdims, where=where), ddof)
    empty = lax.le(n, np.asarray(0, _dt(n))[()])      # N - ddof <= 0: NaN, as JAX's
    # (a weak NaN: an integer `dtype=` makes the sum float, as JAX's)
    s = uf.where(empty, np.nan, _sum(sq, axis=axis, keepdims=keepdims, where=where))
    n = lax.convert_element_type(uf.where(empty, np.asarray(1, _dt(n))[()], n), _dt(s))
    return lax.convert_element_type(lax.div(s, n), dtype)


@library_jit(static_argnames=("axis", "dtype", "ddof", "keepdims"))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None):
    """Standard deviation that skips NaN entries.

    Args:
      a: input array. axis, dtype, keepdims, where: as for `jnp.std`.
      ddof, mean: as for `nanvar`.
    Returns:
      The square root of `nanvar` with the same arguments.
    Differs from NumPy: `out=` is not supported (arrays are immutable).
    """
    # (lax's sqrt, as JAX's: an integer `dtype=` is its TypeError)
    return lax.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where, mean))


def _nanarg(arg_reduction, fill):
    def f(a, axis=None, out=None, keepdims=None):
        a, keepdims = asarray_operand(a), bool(keepdims)  # None: False, as JAX's
        if not dtypes.is_inexact(_dt(a)):
            return arg_reduction(a, axis=axis, keepdims=keepdims)
        nan_mask = uf.isnan(a)
        res = arg_reduction(where(nan_mask, np.asarray(fill, _dt(a))[()], a), axis=axis,
                            keepdims=keepdims)
        all_nan = _all(nan_mask, axis=axis, keepdims=keepdims)
        return where(all_nan, np.asarray(-1, _dt(res))[()], res)
    f.__name__ = "nan" + arg_reduction.__name__
    return library_jit(f, static_argnames=("axis", "keepdims"))


nanargmax = _nanarg(argmax, -np.inf)
nanargmax.__doc__ = """Index of the maximum along an axis, skipping NaNs.

Args:
  a: input array. axis: axis to search (None: the flattened array).
  keepdims: keep the reduced axis.
Returns:
  Integer indices of the largest non-NaN values.
Differs from NumPy: no `out=`; an all-NaN slice gives -1 instead of raising.
"""
nanargmin = _nanarg(argmin, np.inf)
nanargmin.__doc__ = """Index of the minimum along an axis, skipping NaNs.

Args:
  a: input array. axis: axis to search (None: the flattened array).
  keepdims: keep the reduced axis.
Returns:
  Integer indices of the smallest non-NaN values.
Differs from NumPy: no `out=`; an all-NaN slice gives -1 instead of raising.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.nanargmin(jnp.array([1.0, jnp.nan, 3.0]))
  Array(0, dtype=int32)
"""


@library_jit(static_argnames=("axis", "dtype"))
def nancumsum(a, axis=None, dtype=None, out=None):
    """Running sum along an axis, treating NaNs as zero.

    Args:
      a: input array. axis: axis to accumulate over (None: the flattened array).
      dtype: accumulator / result dtype.
    Returns:
      An array of partial sums, same shape as `a` (1-D when `axis` is None).
    Differs from NumPy: `out=` is not supported (arrays are immutable).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.nancumsum(jnp.array([1.0, 2.0, jnp.nan, 4.0]))
      Array([1., 3., 3., 7.], dtype=float32)
    """
    return cumsum(_zero_nans(a, 0), axis=axis, dtype=dtype)


@library_jit(static_argnames=("axis", "dtype"))
def nancumprod(a, axis=None, dtype=None, out=None):
    """Running product along an axis, treating NaNs as one.

    Args:
      a: input array. axis: axis to accumulate over (None: the flattened array).
      dtype: accumulator / result dtype.
    Returns:
      An array of partial products, same shape as `a` (1-D when `axis` is None).
    Differs from NumPy: `out=` is not supported (arrays are immutable).
    """
    return cumprod(_zero_nans(a, 1), axis=axis, dtype=dtype)


@library_jit(static_argnames=("axis", "returned", "keepdims"))
def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted mean along an axis.

    Args:
      a: input array. axis: axis or axes to average over (None: all).
      weights: optional weights broadcastable along `axis` (None: plain mean).
      returned: if True, also return the sum of the weights.
      keepdims: keep reduced axes with size one.
    Returns:
      The weighted average, or `(average, weight_sum)` when `returned`.
    Differs from NumPy: weights that sum to zero give NaN/inf instead of raising.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.average(jnp.array([1.0, 2.0, 3.0]), weights=jnp.array([3.0, 1.0, 0.0]))
      Array(1.25, dtype=float32)
    """
    a = asarray_operand(a)
    if weights is None:
        avg = _mean(a, axis=axis, keepdims=keepdims)
        av = core.get_aval(a)
        n = int(np.prod([av.shape[i] for i in canonicalize_axes(axis, av.ndim, "average")],
                        dtype=np.int64))
        wsum = lax.full(core.get_aval(avg).shape, n, _dt(avg))
    else:
        # dtypes only: weights along `axis` are placed below, not broadcast first
        a, w = uf.promote_dtypes_inexact(a, asarray_operand(weights))
        ash, wsh = core.get_aval(a).shape, core.get_aval(w).shape
        if ash != wsh:   # (JAX's checks, as ValueErrors)
            if axis is None:
                raise ShapeValueError("average: axis must be specified when shapes of a and "
                                      "weights differ")
            axes = canonicalize_axes(axis, len(ash), "average")
            if wsh != tuple(ash[i] for i in axes):
                raise ShapeValueError("average: shape of weights must be consistent with "
                                      f"shape of a along the specified axis; got {wsh} for "
                                      f"a of shape {ash} and axis={axis!r}")
            # JAX's one reshape, `dimensions` putting the weights' axes in order
            w = lax.reshape(w, tuple(d if i in axes else 1 for i, d in enumerate(ash)),
                            tuple(int(i) for i in np.argsort(axes)))
        wsum = _sum(w, axis=axis, keepdims=keepdims)
        avg = uf.true_divide(_sum(uf.multiply(a, w), axis=axis, keepdims=keepdims), wsum)
        if returned and core.get_aval(wsum).shape != core.get_aval(avg).shape:
            wsum = uf.broadcast_to_shape(wsum, core.get_aval(avg).shape)
    return (avg, wsum) if returned else avg

# ----------------------------------------------------------- covariance etc.


@library_jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """Covariance matrix of a set of variables.

    Args:
      m: 1-D or 2-D array of observations; each row is a variable unless
        `rowvar=False`. y: optional extra variables stacked onto `m`.
      bias: normalize by N instead of N - 1. ddof: overrides `bias` when given.
      fweights: integer frequency weights. aweights: observation weights.
      dtype: a floating or complex dtype to compute in.
    Returns:
      The (variables x variables) covariance matrix (0-d for a single variable).
    Differs from NumPy: computed in floating point under JAX's dtype rules.
    """
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ArgumentValueError(f"cov: dtype must be a subclass of float or complex; got "
                                 f"dtype={dtype!r}")
    [m] = promote_args_inexact("cov", asarray_operand(m))
    if core.get_aval(m).ndim > 2:
        raise ShapeError("cov: m has more than 2 dimensions")
    X = atleast_2d(m)
    if not rowvar and core.get_aval(X).shape[0] != 1:
        X = lax.transpose(X, (1, 0))
    if y is not None:
        [y] = promote_args_inexact("cov", asarray_operand(y))
        Y = atleast_2d(y)
        if not rowvar and core.get_aval(Y).shape[0] != 1:
            Y = lax.transpose(Y, (1, 0))
        X, Y = uf.promote_dtypes(X, Y)
        X = concatenate([X, Y], axis=0)
    if dtype is not None:
        X = lax.convert_element_type(X, dtypes.canonicalize(dtypes.dtype(dtype)))
    if ddof is None:
        ddof = 0 if bias else 1
    nobs = core.get_aval(X).shape[1]
    w = None
    if fweights is not None:
        w = lax.convert_element_type(asarray_operand(fweights), _dt(X))
    if aweights is not None:
        aw = lax.convert_element_type(asarray_operand(aweights), _dt(X))
        w = aw if w is None else uf.multiply(w, aw)
    if w is None:
        avg = _mean(X, axis=1, keepdims=True)
        fact = float(nobs - ddof)
        Xc = uf.subtract(X, avg)
        c = matmul(Xc, uf.conjugate(lax.transpose(Xc, (1, 0))))
        c = uf.true_divide(c, fact)
    else:
        w_sum = _sum(w)
        avg = uf.true_divide(_sum(uf.multiply(X, w), axis=1, keepdims=True), w_sum)
        if aweights is None:
            fact = uf.subtract(w_sum, float(ddof))
        else:
            aw = lax.convert_element_type(asarray_operand(aweights), _dt(X))
            fact = uf.subtract(w_sum, uf.true_divide(uf.multiply(float(ddof), _sum(
                uf.multiply(w, aw))), w_sum))
        Xc = uf.subtract(X, avg)
        c = matmul(uf.multiply(Xc, w), uf.conjugate(lax.transpose(Xc, (1, 0))))
        c = uf.true_divide(c, fact)
    return squeeze(c)


@library_jit(static_argnames=("rowvar", "dtype"))
def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients of a set of variables.

    Args:
      x: 1-D or 2-D array of observations. y: optional extra variables.
      rowvar: if True (default) each row is a variable, else each column.
      dtype: a floating or complex dtype to compute in.
    Returns:
      The correlation matrix `cov / outer(std, std)`.
    Differs from NumPy: computed in float32 by default (JAX's dtype rules).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.corrcoef(jnp.array([1.0, 2.0, 3.0]), jnp.array([2.0, 4.0, 7.0]))
      Array([[1.       , 0.9933992],
             [0.9933992, 0.9999999]], dtype=float32)
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if core.get_aval(c).ndim == 0:
        return uf.true_divide(c, c)
    d = diagonal(c)
    sd = uf.sqrt(uf.real(d))
    n = core.get_aval(sd).shape[0]
    c = uf.true_divide(c, reshape(sd, (n, 1)))
    c = uf.true_divide(c, reshape(sd, (1, n)))
    if not dtypes.issubdtype(_dt(c), np.complexfloating):
        c = uf.clip(c, -1, 1)
    return c


@library_jit(static_argnames=("n", "axis"))
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """n-th discrete difference along an axis.

    Args:
      a: input array. n: how many times to difference (static int).
      axis: axis to difference along. prepend / append: values joined to `a`
        along `axis` before differencing.
    Returns:
      An array whose `axis` is shorter by `n` (plus any prepended/appended length).
    Differs from NumPy: `n` must be a static Python int.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.diff(jnp.array([1, 4, 9, 16]))
      Array([3, 5, 7], dtype=int32)
    """
    a = asarray_operand(a)
    av = core.get_aval(a)
    if av.ndim == 0:
        raise ShapeError("diff requires input that is at least one dimensional")
    if n < 0:
        raise ArgumentValueError(f"diff: order must be non-negative, got {n}")
    axis = canonicalize_axis(axis, av.ndim, "diff")
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        e = asarray_operand(extra)
        if core.get_aval(e).ndim == 0:
            shape = list(av.shape)
            shape[axis] = 1
            e = uf.broadcast_to_shape(e, tuple(shape))
        parts.append(e)
    if parts[0] is not None or parts[1] is not None:
        a = concatenate([p for p in (parts[0], a, parts[1]) if p is not None], axis=axis)
    for _ in range(n):
        m = core.get_aval(a).shape[axis]
        hi = lax.slice_in_dim(a, min(1, m), m, axis=axis)   # (an empty axis stays empty)
        lo = lax.slice_in_dim(a, 0, max(m - 1, 0), axis=axis)
        a = uf.not_equal(hi, lo) if _dt(a) == dtypes.bool_ else uf.subtract(hi, lo)
    return a


@library_jit
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array.

    Args:
      ary: input array (flattened). to_end / to_begin: values appended /
        prepended to the result.
    Returns:
      A 1-D array `[to_begin, diff(ravel(ary)), to_end]`.
    Differs from NumPy: the result follows JAX's dtype promotion rules.
    """
    d = diff(ravel(asarray_operand(ary)))
    parts = []
    if to_begin is not None:
        parts.append(ravel(lax.convert_element_type(asarray_operand(to_begin), _dt(d))))
    parts.append(d)
    if to_end is not None:
        parts.append(ravel(lax.convert_element_type(asarray_operand(to_end), _dt(d))))
    return concatenate(parts) if len(parts) > 1 else d


@library_jit(static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
    """Numerical gradient of sampled values.

    Central differences inside, one-sided first-order differences at the edges.

    Args:
      f: sampled values. varargs: the spacing per axis (default 1): one for every
        axis, or one each; a scalar (uniform spacing) or a 1-D array of the sample
        coordinates along its axis.
      axis: axis or axes to differentiate along (None: all). edge_order: must be None
        (JAX raises NotImplementedError otherwise).
    Returns:
      One array per axis (a single array when only one axis is used).
    Differs from NumPy: edges are first order only, as JAX's.
    """
    if edge_order is not None:
        raise NotImplementedInAstjaxError(
            "The 'edge_order' argument to jnp.gradient is not supported.")
    f, *spacing = uf.promote_dtypes_inexact(asarray_operand(f), *varargs)
    fv = core.get_aval(f)
    # a repeated axis gives its gradient twice, as JAX (NumPy rejects it)
    axes = canonicalize_axes(axis, fv.ndim, "gradient", unique=False) if axis is not None \
        else tuple(range(fv.ndim))
    if not axes:
        return []
    if min(fv.shape[ax] for ax in axes) < 2:
        raise ShapeValueError("Shape of array too small to calculate a numerical gradient, "
                              "at least 2 elements are required.")
    if len(spacing) == 0:
        spacing = [1.0] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise ArgumentTypeError(f"Invalid number of spacing arguments {len(spacing)} for "
                                f"axis={axis}")
    outs = [_gradient_along(f, h, ax) for ax, h in zip(axes, spacing)]
    return outs[0] if len(outs) == 1 else outs


def _gradient_along(f, h, ax):
    """`gradient` along axis `ax` with spacing `h` (a scalar, or the 1-D coordinates),
    in JAX's arithmetic order."""
    n = core.get_aval(f).shape[ax]
    sl = lambda s, e, v=f: lax.slice_in_dim(v, s, e, axis=ax)  # noqa: E731
    first = uf.subtract(sl(1, 2), sl(0, 1))
    last = uf.subtract(sl(n - 1, n), sl(n - 2, n - 1))
    hv = core.get_aval(h)
    if hv.ndim == 0:
        mid = uf.true_divide(uf.multiply(uf.subtract(sl(2, n), sl(0, n - 2)), 0.5), h)
        first, last = uf.true_divide(first, h), uf.true_divide(last, h)
    elif hv.ndim == 1:
        if hv.shape[0] != n:
            raise ShapeValueError("Spacing arrays must have the same length as the dimension "
                                  "along which the gradient is calculated.")
        shape = [1] * core.get_aval(f).ndim
        shape[ax] = n
        x = reshape(h, tuple(shape))
        first = uf.true_divide(first, uf.subtract(sl(1, 2, x), sl(0, 1, x)))
        last = uf.true_divide(last, uf.subtract(sl(n - 1, n, x), sl(n - 2, n - 1, x)))
        dx1 = uf.subtract(sl(1, n - 1, x), sl(0, n - 2, x))
        dx2 = uf.subtract(sl(2, n, x), sl(1, n - 1, x))
        ca = uf.true_divide(uf.negative(dx2), uf.multiply(dx1, uf.add(dx1, dx2)))
        cb = uf.true_divide(uf.subtract(dx2, dx1), uf.multiply(dx1, dx2))
        cc = uf.true_divide(dx1, uf.multiply(dx2, uf.add(dx1, dx2)))
        mid = uf.add(uf.add(uf.multiply(ca, sl(0, n - 2)), uf.multiply(cb, sl(1, n - 1))),
                     uf.multiply(cc, sl(2, n)))
    else:
        raise ShapeValueError("Spacing arrays must be 1D arrays or scalars.")
    return concatenate([first, mid, last], axis=ax)


@library_jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of sampled values with the trapezoidal rule.

    Args:
      y: sampled values. x: sample positions along `axis` (None: spacing `dx`).
      dx: uniform spacing when `x` is None. axis: axis to integrate along.
    Returns:
      The integral, with `axis` removed.
    Differs from NumPy: results follow JAX's dtype rules (float32 by default).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.trapezoid(jnp.array([1.0, 2.0, 3.0]))
      Array(4., dtype=float32)
    """
    # as JAX's: the values (and positions) made inexact first (no integer overflow), a
    # constant spacing through dx * (sum - (first + last) / 2)
    if x is None:
        [y] = uf.promote_dtypes_inexact(asarray_operand(y))
        d = asarray(dx)
        if core.get_aval(d).ndim:
            d = lax.expand_dims(d, tuple(range(core.get_aval(y).ndim - core.get_aval(d).ndim)))
            d = moveaxis(d, axis, -1)
    else:
        y, x = uf.promote_dtypes_inexact(asarray_operand(y), asarray_operand(x))
        d = diff(x) if core.get_aval(x).ndim == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    last, n = core.get_aval(y).ndim - 1, core.get_aval(y).shape[-1]
    dv = core.get_aval(d)
    if dv.ndim == 0 or dv.shape[-1] == 1:
        step = d if dv.ndim == 0 else lax.index_in_dim(d, 0, dv.ndim - 1, False)
        ends = uf.add(lax.index_in_dim(y, 0, last, False), lax.index_in_dim(y, n - 1, last, False))
        return uf.multiply(step, uf.subtract(_sum(y, axis=-1), uf.multiply(0.5, ends)))
    pairs = uf.add(lax.slice_in_dim(y, 1, n, axis=last), lax.slice_in_dim(y, 0, n - 1, axis=last))
    return uf.multiply(0.5, _sum(uf.multiply(d, pairs), axis=-1))


@library_jit(static_argnums=(2, 3, 4), keep_call=True)
def _conv(a, v, mode, correlate, precision):
    """1-D convolution (correlation: `v` conjugated, not flipped) as JAX computes it: one
    XLA convolution of the longer operand with the shorter (so JAX's roundings, and on CPU
    / GPU its three-real-convolution complex product); a correlation whose operands were
    swapped comes out reversed. Staged, an inner `jit` equation (JAX's `_conv`)."""
    reverse = False
    if correlate:
        v = uf.conjugate(v)
    if _shape(a)[0] < _shape(v)[0]:
        a, v, reverse = v, a, correlate
    if not correlate:
        v = flip(v)
    nv = _shape(v)[0]
    pads = {"valid": (0, 0), "same": (nv // 2, nv - nv // 2 - 1), "full": (nv - 1, nv - 1)}
    if mode not in pads:
        raise ArgumentValueError(f"mode must be one of 'full', 'same', 'valid', got {mode!r}")
    out = lax.conv_general_dilated(lax.expand_dims(a, (0, 1)), lax.expand_dims(v, (0, 1)),
                                   (1,), [pads[mode]], precision=precision)
    out = lax.squeeze(out, (0, 1))
    return lax.rev(out, (0,)) if reverse else out


def _conv_args(name, a, v, preferred_element_type=None):
    """The operands of `convolve` / `correlate`, promoted as JAX's: to an inexact dtype
    (NumPy's default for convolutions) unless `preferred_element_type` is given, then
    computed in that dtype."""
    a, v = asarray_operand(a), asarray_operand(v)
    if preferred_element_type is None:
        a, v = uf.promote_dtypes_inexact(a, v)
    else:
        a, v = uf.promote_dtypes(a, v)
        want = dtypes.canonicalize(preferred_element_type)
        kinds = {"b": "i", "u": "i", "i": "i", "f": "f", "c": "c"}
        if (kinds.get(_dt(a).kind), kinds.get(want.kind)) not in (
                ("i", "i"), ("i", "f"), ("f", "f"), ("c", "c")):
            raise DTypeError(
                "Input type is incompatible with `preferred_element_type`. The compatible "
                "combinations of (input_type, preferred_element_type) are (integral, "
                "integral), (integral, floating), (floating, floating), (complex, complex.",
                hint=f"inputs are {_dt(a)}: pick a preferred_element_type of that kind")
        a, v = (lax.convert_element_type(x, want) for x in (a, v))
    if core.get_aval(a).ndim != 1 or core.get_aval(v).ndim != 1:
        raise ShapeValueError(f"{name}() only supports 1-dimensional inputs")
    na, nv = core.get_aval(a).shape[0], core.get_aval(v).shape[0]
    if na == 0 or nv == 0:
        raise ShapeValueError(f"{name}: inputs cannot be empty")
    return a, v


@library_jit(static_argnums=(2,), static_argnames=("mode", "precision", "preferred_element_type"),
             keep_call=True)
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of two 1-D arrays.

    Args:
      a, v: non-empty 1-D arrays. mode: 'full' (default), 'same' or 'valid'.
      precision: accepted for JAX compatibility; preferred_element_type: the dtype to
        compute and return in (default: the operands' promoted inexact dtype, as JAX).
    Returns:
      The convolution, of length `len(a) + len(v) - 1` for 'full'.
    Differs from NumPy: adds JAX's `precision=`/`preferred_element_type=` keywords.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.convolve(jnp.array([1.0, 2.0]), jnp.array([1.0, 1.0, 1.0]))
      Array([1., 3., 3., 2.], dtype=float32)
    """
    a, v = _conv_args("convolve", a, v, preferred_element_type)
    return _conv(a, v, mode, False, precision)


@library_jit(static_argnums=(2,), static_argnames=("mode", "precision", "preferred_element_type"),
             keep_call=True)
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of two 1-D arrays (v is conjugated and slid over a).

    Args:
      a, v: non-empty 1-D arrays. mode: 'valid' (default), 'same' or 'full'.
      precision: accepted for JAX compatibility; preferred_element_type: the dtype to
        compute and return in (default: the operands' promoted inexact dtype, as JAX).
    Returns:
      The correlation sequence for the chosen mode.
    Differs from NumPy: adds JAX's `precision=`/`preferred_element_type=` keywords.
    """
    a, v = _conv_args("correlate", a, v, preferred_element_type)
    return _conv(a, v, mode, True, precision)
