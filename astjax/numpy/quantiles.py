"""Order statistics: quantile / percentile and their NaN-skipping forms (weighted
with `method='inverted_cdf'`), median / nanmedian, as JAX 0.10.2 computes them.

The reduced axes are moved last and flattened, the data sorted along that axis, and
ranks read back with one gather (`_take_rank`, as JAX's indexing); `grad` flows to the
data through the gather and the sort. Weighted quantiles (JAX's only weighted
method is 'inverted_cdf') sort the weights with the data, and pick the first sorted
value whose running weight reaches `q` times the total weight."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import (ArgumentIndexError, ArgumentValueError, NotImplementedInAstjaxError,
                      ShapeValueError)
from . import ufuncs as uf
from .reductions import any as _any, sum as _sum
from .sorting import cumsum
from .ufuncs import asarray_operand, promote_args_inexact, where
from .util import canonicalize_axes, check_hashable, library_jit, with_out_sharding

__all__ = ["quantile", "nanquantile", "percentile", "nanpercentile", "median", "nanmedian"]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


class EmptyQuantileAxisError(ArgumentIndexError, TypeError):
    """A quantile / median over an empty axis with results to fill: JAX 0.10.2 raises
    (its rank gather's TypeError, an IndexError for the NaN-skipping forms), as NumPy's
    `quantile` (an IndexError)."""


def _dt(x):
    return core.get_aval(x).dtype


def _take_rank(sorted_a, idx):
    """sorted_a[..., idx] for integer idx of shape Q + batch: one gather of a rank per
    batch element (JAX's `a[tuple(index)]`; a one-hot masked sum, which XLA fuses with
    the interpolation after it, rounds the JVP otherwise, and loses a -0.0)."""
    ia = core.get_aval(idx)
    sa = core.get_aval(sorted_a)
    nb = sa.ndim - 1
    if 0 in ia.shape:   # nothing to read (an empty batch: no slice of `sorted_a` exists)
        return lax.full(ia.shape, 0, sa.dtype)
    coords = [lax.broadcasted_iota(ia.dtype, ia.shape + (1,), ia.ndim - nb + d)
              for d in range(nb)]
    coords.append(lax.reshape(idx, ia.shape + (1,)))
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=tuple(range(sa.ndim)),
                                    start_index_map=tuple(range(sa.ndim)))
    return lax.gather(sorted_a, lax.concatenate(coords, ia.ndim), dn, (1,) * sa.ndim,
                      mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)


def _check_weights(a, weights, axis, method):
    """JAX's checks of `weights=` (in its order), and the weights broadcast to `a`'s
    shape; `a` and the weights promoted to one inexact dtype."""
    if dtypes.issubdtype(_dt(weights), np.complexfloating):
        raise ArgumentValueError("Weights cannot be complex types.",
                                 hint="pass real, nonnegative weights")
    if method != "inverted_cdf":
        raise NotImplementedInAstjaxError(
            f"{method} doesn't support weights. Only method 'inverted_cdf' supports weights.",
            hint="pass method='inverted_cdf'")
    a, weights = uf.promote_dtypes_inexact(a, weights)
    ash, wsh = core.get_aval(a).shape, core.get_aval(weights).shape
    if wsh != ash:
        if axis is None:
            raise ArgumentValueError("Weights shape must match 'a' shape when axis is None.",
                                     hint="give `axis`, or weights of a's shape")
        axes = canonicalize_axes(axis, len(ash), "quantile", unique=False)
        want = tuple(ash[i] for i in axes)
        if wsh != want:
            raise ArgumentValueError(f"Weights shape {wsh} must match reduction axes {want}",
                                     hint="one weight per element of the reduced axes")
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        weights = lax.broadcast_in_dim(lax.transpose(weights, order), ash,
                                       tuple(sorted(axes)))
    return a, weights


def _to_last(x, axes):
    """`x` with `axes` moved last and flattened into one: (batch..., n)."""
    av = core.get_aval(x)
    rest = [i for i in range(av.ndim) if i not in axes]
    n = int(np.prod([av.shape[i] for i in axes], dtype=np.int64))
    return lax.reshape(lax.transpose(x, rest + list(axes)),
                       tuple(av.shape[i] for i in rest) + (n,))


def _inverted_cdf(s, w, qb, squash_nans):
    """The weighted 'inverted_cdf' quantiles of sorted data `s` (batch..., n) with
    weights `w` sorted alongside: the first value whose running weight reaches q times
    the total (negative or NaN weights, and the weights of NaN data, count as zero;
    a negative or NaN weight anywhere makes the slice's result NaN, as JAX's)."""
    dt = _dt(w)
    zero = np.asarray(0, dt)[()]
    bad_w = uf.logical_or(lax.lt(w, zero), uf.isnan(w))
    nan_data = uf.isnan(s)
    cw = cumsum(where(uf.logical_or(bad_w, nan_data), zero, w), axis=-1)
    n = core.get_aval(s).shape[-1]
    total = lax.index_in_dim(cw, n - 1, axis=core.get_aval(cw).ndim - 1, keepdims=False)
    qa = core.get_aval(qb)
    batch_dims = tuple(range(qa.ndim - (core.get_aval(s).ndim - 1), qa.ndim))
    target = uf.multiply(qb, lax.broadcast_in_dim(total, qa.shape, batch_dims))
    full = qa.shape + (n,)
    cwb = lax.broadcast_in_dim(cw, full, batch_dims + (qa.ndim,))
    below = lax.lt(cwb, lax.broadcast_in_dim(lax.convert_element_type(target, dt), full,
                                             tuple(range(qa.ndim))))
    idx = _sum(below, axis=-1, dtype=dtypes.int32)
    if squash_nans:
        valid = _sum(uf.logical_not(nan_data), axis=-1, dtype=dtypes.int32)
    else:
        valid = lax.full(core.get_aval(total).shape, n, dtypes.int32)
    hi = lax.broadcast_in_dim(lax.sub(valid, np.int32(1)), qa.shape, batch_dims)
    idx = uf.maximum(np.int32(0), uf.minimum(idx, hi))
    res = _take_rank(s, idx)
    force = uf.logical_or(_any(bad_w, axis=-1), lax.eq(valid, np.int32(0)) if squash_nans
                          else _any(nan_data, axis=-1))
    return where(lax.broadcast_in_dim(force, qa.shape, batch_dims),
                 np.asarray(np.nan, _dt(res))[()], res)


@library_jit(static_argnums=(3, 4, 5, 6, 7, 8))
def _quantile(a, q, weights, axis, method, keepdims, squash_nans, name, percent=None):
    check_hashable(axis, f"jnp.{name}")   # (static in JAX's jitted quantile)
    if percent is not None:   # (`percent`'s q / 100 in the same executable, as JAX's
        [q] = promote_args_inexact(percent, q)   # jitted percentile)
        q = uf.true_divide(q, 100.0)
    if method not in _METHODS:
        raise ArgumentValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                                 "'nearest' or 'inverted_cdf'", hint="use one of "
                                 + ", ".join(_METHODS))
    if weights is not None:
        a, weights = _check_weights(asarray_operand(a), asarray_operand(weights), axis, method)
    else:
        [a] = uf.promote_dtypes_inexact(a)
    out_dt = _dt(a)
    if dtypes.issubdtype(out_dt, np.complexfloating):
        raise ArgumentValueError("quantile does not support complex input, as the operation "
                                 "is poorly defined.", hint="take jnp.real / jnp.abs of the "
                                 "input first")
    [q] = uf.promote_dtypes_inexact(q)
    if core.get_aval(q).ndim > 1:
        raise ShapeValueError(f"q must be have rank <= 1, got shape {core.get_aval(q).shape}",
                              hint="pass a scalar or a 1-D array of quantiles")
    if method == "inverted_cdf":
        a, q = uf.promote_dtypes(a, q)
    # (else, as JAX: the ranks and weights in q's dtype, the data in a's)
    av = core.get_aval(a)
    axes = canonicalize_axes(axis, av.ndim, name, sequences=(tuple,))
    # (JAX's keepdims shape of a 0-d operand is (1,), where NumPy's is (): it reduces
    # the operand raveled to one axis and keeps that axis)
    keep_shape = tuple(1 if i in axes else d for i, d in enumerate(av.shape)) or (1,)
    a = _to_last(a, axes)
    batch, n = core.get_aval(a).shape[:-1], core.get_aval(a).shape[-1]
    if n == 0 and int(np.prod(batch)) != 0:
        raise EmptyQuantileAxisError(f"{name}: the quantile of an empty axis is undefined "
                                     f"(operand shape {av.shape}, axes {axes})",
                                     hint="reduce a non-empty axis")
    dt = _dt(a)
    nan = np.asarray(np.nan, dt)[()]
    nan_a = uf.isnan(a)
    # NaNs positive, so they sort last; without squash_nans a slice with one is all NaN
    a = where(nan_a if squash_nans else _any(nan_a, axis=-1, keepdims=True), nan, a)
    qa = core.get_aval(q)
    qb = lax.broadcast_in_dim(q, qa.shape + batch, tuple(range(qa.ndim)))
    batch_dims = tuple(range(qa.ndim, qa.ndim + len(batch)))
    if method == "inverted_cdf":
        w = (lax.full_like(a, 1) if weights is None
             else _to_last(lax.convert_element_type(weights, dt), axes))
        s, w = lax.sort((a, w), dimension=len(batch), num_keys=1)
        res = _inverted_cdf(s, w, qb, squash_nans)
    else:
        res = _interpolated(lax.sort(a, dimension=len(batch)), qb, batch_dims, n,
                            method, squash_nans)
    if keepdims:
        res = lax.reshape(res, qa.shape + keep_shape)
    return lax.convert_element_type(res, out_dt)


def _interpolated(s, qb, batch_dims, n, method, squash_nans):
    """The unweighted methods: the ranks around q (n - 1) of the sorted data `s`, found
    in q's dtype (`linear` interpolates in q's dtype too, JAX's rounding)."""
    dt = _dt(qb)
    qa = core.get_aval(qb)
    if squash_nans:
        n_eff = _sum(uf.logical_not(uf.isnan(s)), axis=-1, dtype=dt)
    else:
        n_eff = lax.full(core.get_aval(s).shape[:-1], n, dt)
    nb = lax.broadcast_in_dim(n_eff, qa.shape, batch_dims)
    pos = uf.multiply(qb, uf.subtract(nb, 1.0))
    low_f = uf.floor(pos)
    hi_clip = uf.maximum(uf.subtract(nb, 1.0), 0.0)
    low = uf.clip(low_f, 0.0, hi_clip)
    high = uf.clip(uf.ceil(pos), 0.0, hi_clip)

    def at(i):
        return _take_rank(s, lax.convert_element_type(i, dtypes.int32))
    if method == "lower":
        res = at(low)
    elif method == "higher":
        res = at(high)
    elif method == "nearest":   # JAX's: the lower rank up to and including a tie
        res = where(lax.le(uf.subtract(pos, low_f), np.asarray(0.5, dt)[()]), at(low),
                    at(high))
    elif method == "midpoint":
        res = uf.multiply(uf.add(at(low), at(high)), 0.5)
    else:
        frac = uf.subtract(pos, low_f)
        res = uf.add(uf.multiply(lax.convert_element_type(at(low), dt), uf.subtract(1.0, frac)),
                     uf.multiply(lax.convert_element_type(at(high), dt), frac))
    if squash_nans:
        res = where(lax.eq(nb, np.asarray(0, dt)[()]), np.asarray(np.nan, _dt(res))[()], res)
    return res


def _no_out(name, out, overwrite_input):
    if overwrite_input or out is not None:
        raise ArgumentValueError(f"jax.numpy.{name} does not support overwrite_input=True or "
                                 "out != None", hint="arrays are immutable: use the result")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """The q-th quantiles of the data along an axis (q in [0, 1]).

    Args:
      a: input array. q: scalar or 1-D array of quantiles in [0, 1].
      axis: axis or axes to reduce (None: all). method: one of 'linear' (default),
        'lower', 'higher', 'nearest', 'midpoint', 'inverted_cdf'.
      keepdims: keep reduced axes.
      weights: (keyword) one nonnegative weight per element of `a` (or of the reduced
        axes); only with method='inverted_cdf', as JAX's.
    Returns:
      The quantiles; a leading axis of q's shape is added for array `q`.
    Differs from NumPy: `out=` and `overwrite_input=True` are ValueErrors (as JAX's);
    'nearest' takes the lower rank at a tie, as JAX's.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.quantile(jnp.array([1.0, 2.0, 3.0, 4.0, 5.0]), jnp.array([0.5, 1.0]))
      Array([3., 5.], dtype=float32)
    """
    _no_out("quantile", out, overwrite_input)
    return _quantile(a, q, weights, axis, method, keepdims, False, "quantile")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """Like `quantile`, but NaN entries are left out of the computation.

    Args:
      a, q, axis, method, keepdims, weights: as for `quantile`.
    Returns:
      The quantiles of the non-NaN values (NaN where a slice has none).
    Differs from NumPy: `out=` and `overwrite_input=True` are ValueErrors (as JAX's).
    """
    _no_out("nanquantile", out, overwrite_input)
    return _quantile(a, q, weights, axis, method, keepdims, True, "nanquantile")


def _percentile(a, q, axis, out, overwrite_input, method, keepdims, weights, squash_nans,
                name):
    """`(nan)quantile(a, q / 100, ...)`, one executable on an eager call."""
    q = asarray_operand(q)
    quantile_name = "nanquantile" if squash_nans else "quantile"
    _no_out(quantile_name, out, overwrite_input)
    return _quantile(a, q, weights, axis, method, keepdims, squash_nans, quantile_name, name)


@with_out_sharding("jnp.percentile", device=False, auto=True)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """The q-th percentiles of the data along an axis (q in [0, 100]).

    Args:
      a: input array. q: scalar or 1-D array of percentiles in [0, 100].
      axis, method, keepdims, weights: as for `quantile`.
      out_sharding: (keyword) the result's layout on an Explicit mesh, as JAX's.
    Returns:
      `quantile(a, q / 100, ...)`.
    Differs from NumPy: `out=` and `overwrite_input=True` are ValueErrors (as JAX's).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.percentile(jnp.array([1.0, 2.0, 3.0, 4.0, 5.0]), 25)
      Array(2., dtype=float32)
    """
    return _percentile(a, q, axis, out, overwrite_input, method, keepdims, weights, False,
                       "percentile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """Like `percentile`, but NaN entries are left out of the computation.

    Args:
      a, q, axis, method, keepdims, weights: as for `percentile`.
    Returns:
      The percentiles of the non-NaN values.
    Differs from NumPy: `out=` and `overwrite_input=True` are ValueErrors (as JAX's).
    """
    return _percentile(a, q, axis, out, overwrite_input, method, keepdims, weights, True,
                       "nanpercentile")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Middle value of the data along an axis (mean of the two middle ones for
    even counts).

    Args:
      a: input array. axis: axis or axes to reduce (None: all). keepdims: keep
        reduced axes.
    Returns:
      The median, i.e. `quantile(a, 0.5, method='midpoint')`.
    Differs from NumPy: `out=` and `overwrite_input=True` are ValueErrors (as JAX's).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.median(jnp.array([3.0, 1.0, 4.0, 2.0]))
      Array(2.5, dtype=float32)
    """
    return quantile(a, 0.5, axis, out, overwrite_input, method="midpoint", keepdims=keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median of the non-NaN values along an axis.

    Args:
      a, axis, keepdims: as for `median`.
    Returns:
      The median ignoring NaNs (NaN where a slice is all NaN).
    Differs from NumPy: `out=` and `overwrite_input=True` are ValueErrors (as JAX's).
    """
    return nanquantile(a, 0.5, axis, out, overwrite_input, method="midpoint",
                       keepdims=keepdims)
