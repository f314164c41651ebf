"""Searching, counting and set operations with static output sizes: searchsorted,
digitize, bincount, histogram (also 2-D and N-D), interp, unique (`size=`), union1d, intersect1d,
setdiff1d, setxor1d.

Counting and rank lookups are one-hot contractions (O(n*m) work, no scatter), which
keeps them differentiable-free of gather and fast for the moderate sizes these
functions see. Functions whose output size depends on the data accept `size=`
under `jit`, and compute on concrete values eagerly (as JAX does)."""
from __future__ import annotations

from builtins import range as builtins_range
from typing import Any, NamedTuple

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..primitives.comparisons import ordered_lt
from ..errors import (ArgumentError, ArgumentTypeError, ArgumentValueError,
                      ConcretizationError, ShapeError,
                      ShapeValueError)
from . import ufuncs as uf
from .creation import linspace
from .indexing import take
from .logic import isin
from .operands import asarray
from .reductions import any as _any, max as _max, min as _min, sum as _sum
from .shapes import concatenate, ravel
from .sorting import argsort
from .setops import intersect1d_indices, unique_along_axis
from .statistics import diff
from .ufuncs import asarray_operand, where
from .util import library_jit, out_sharding_arg, prefix_sum
from ..sharding import NamedSharding, ShardingTypeError, reshard

__all__ = ["searchsorted", "digitize", "bincount", "histogram", "histogram_bin_edges",
           "histogram2d", "histogramdd",
           "interp", "unique", "unique_values", "unique_counts", "unique_inverse",
           "unique_all", "union1d", "intersect1d", "setdiff1d", "setxor1d"]


def _dt(x):
    return core.get_aval(x).dtype


def _int_dtype():
    return dtypes.canonicalize(dtypes.dtype(int))


def _less_nan(x, y):
    """x < y in sort order (NaN sorts last)."""
    lt = ordered_lt(x, y)  # complex: lexicographic, as NumPy
    if dtypes.is_inexact(_dt(x)):
        lt = lax.bitwise_or(lt, lax.bitwise_and(lax.ne(y, y), lax.eq(x, x)))
    return lt


@library_jit(static_argnums=(2,), static_argnames=("side", "method"))
def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Indices where `v` would be inserted into the sorted 1-D `a`.

    Args:
      a: sorted 1-D array. v: values to insert. side: 'left' (first suitable
        position) or 'right' (last). sorter: optional indices that sort `a`.
      method: JAX's search strategy: 'scan' (default) and 'scan_unrolled' bisect (on an
        unsorted `a`, JAX's answer), 'compare_all' and 'sort' count the smaller elements.
    Returns:
      Integer array shaped like `v`.
    Differs from NumPy: adds JAX's `method=` keyword; `a` is not checked for order.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.searchsorted(jnp.array([1, 2, 3]), jnp.array([2, 5]))
      Array([1, 3], dtype=int32)
    """
    a, v = uf.promote_dtypes(asarray_operand(a), asarray_operand(v))
    if core.get_aval(a).ndim != 1:
        raise ShapeValueError(f"searchsorted: a must be 1-D, got shape {core.get_aval(a).shape}")
    if side not in ("left", "right"):
        raise ArgumentValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if method not in _METHODS:
        raise ArgumentValueError(f"invalid argument {method=}, expected one of {_METHODS}")
    if sorter is not None:
        a = take(a, asarray_operand(sorter))
    vs = core.get_aval(v).shape
    n = core.get_aval(a).shape[0]
    dt = np.int64 if n > np.iinfo(np.int32).max else np.int32
    if method.startswith("scan") and n:
        return _bisect(a, v, side, dt)
    vv = lax.reshape(ravel(v), (int(np.prod(vs, dtype=np.int64)), 1))
    aa = lax.reshape(a, (1, n))
    m = core.get_aval(vv).shape[0]
    aa, vv = uf.broadcast_to_shape(aa, (m, n)), uf.broadcast_to_shape(vv, (m, n))
    hit = _less_nan(aa, vv) if side == "left" else lax.bitwise_not(_less_nan(vv, aa))
    # as JAX: int32 indices unless `a` is too long for them
    out = _sum(hit, axis=1, dtype=dt)
    return lax.reshape(out, vs)


_METHODS = ["compare_all", "scan", "scan_unrolled", "sort"]


def _bisect(a, v, side, dt):
    """`searchsorted` by JAX's 'scan' method: ceil(log2(n + 1)) halvings of [0, n] per
    query (so an unsorted `a` gives JAX's answer too, not a count of the smaller
    elements, which 'compare_all' and 'sort' give)."""
    n = core.get_aval(a).shape[0]
    shape = core.get_aval(v).shape
    low, high = lax.full(shape, 0, dt), lax.full(shape, n, dt)
    for _ in builtins_range(int(np.ceil(np.log2(n + 1)))):
        mid = lax.add(low, lax.div(lax.sub(high, low), np.asarray(2, dt)[()]))
        at = take(a, mid)
        left = lax.bitwise_not(_less_nan(at, v)) if side == "left" else _less_nan(v, at)
        low, high = lax.select(left, low, mid), lax.select(left, mid, high)
    return high


@library_jit(static_argnames=("right", "method"))
def digitize(x, bins, right=False, *, method=None):
    """Index of the bin each value falls into.

    Args:
      x: values to place. bins: 1-D monotonic array of bin edges.
      right: if True, bins include their right edge instead of their left one.
      method: `searchsorted`'s method (default 'scan').
    Returns:
      Integer array shaped like `x`, with indices in `[0, len(bins)]`.
    Differs from NumPy: built on `searchsorted`, so it works on traced values.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.digitize(jnp.array([0.5, 1.5, 2.5]), jnp.array([1.0, 2.0]))
      Array([0, 1, 2], dtype=int32)
    """
    x, bins = asarray_operand(x), asarray_operand(bins)
    if core.get_aval(bins).ndim != 1:
        raise ShapeError("digitize: bins must be 1-D")
    n = core.get_aval(bins).shape[0]
    if n == 0:
        return lax.full(core.get_aval(x).shape, 0, _int_dtype())
    side = "left" if right else "right"
    first, last = lax.index_in_dim(bins, 0, 0, False), lax.index_in_dim(bins, n - 1, 0, False)
    method = "scan" if method is None else method
    inc = searchsorted(bins, x, side, method=method)
    dec = uf.subtract(n, searchsorted(lax.rev(bins, (0,)), x, side, method=method))
    return where(uf.greater_equal(last, first), inc, dec)


def _concrete(x, what):
    if isinstance(x, Tracer):
        if x.known is None:
            raise ConcretizationError(f"{what} depends on the values of the array",
                                      hint="pass a static `size=` (or `length=`)")
        return np.asarray(x.known)
    return np.asarray(x)


def _one_hot_count(idx, length, weights=None):
    """counts[k] = sum(weights[idx == k]) for k < length (idx 1-D)."""
    n = core.get_aval(idx).shape[0]
    ks = lax.broadcasted_iota(_dt(idx), (length, n), 0)
    hit = lax.eq(ks, lax.broadcast_in_dim(idx, (length, n), (1,)))
    if weights is None:
        return _sum(hit, axis=1, dtype=_int_dtype())
    w = lax.broadcast_in_dim(weights, (length, n), (1,))
    return _sum(where(hit, w, np.asarray(0, _dt(w))[()]), axis=1)


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """Count occurrences of each non-negative integer.

    Args:
      x: 1-D integer array; negative values count in bin 0, as JAX's. weights: optional per-element weights.
      minlength: minimum result length. length: static result length.
      out_sharding: the result's layout on an Explicit mesh: replicated (or unreduced
        over every mesh axis) only, as JAX's.
    Returns:
      Array `c` with `c[i]` the (weighted) count of `i` in `x`.
    Differs from NumPy: the length depends on `max(x)`; under jit pass a static
    `length=` (values at or past it are dropped).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.bincount(jnp.array([0, 1, 1, 3]), length=5)
      Array([1, 2, 0, 1, 0], dtype=int32)
    """
    x = asarray_operand(x)
    s = out_sharding_arg(out_sharding, "jnp.bincount")
    if s is not None and (s.spec.partitions or s.spec.reduced or (
            s.spec.unreduced and set(s.spec.unreduced) != set(s.mesh.axis_names))):
        raise ShardingTypeError("out_sharding passed to `jnp.bincount` can only be fully "
                                "replicated or fully unreduced along all mesh axes")
    if not dtypes.is_int(_dt(x)):
        raise ArgumentTypeError(f"bincount: x must be an integer array, got {_dt(x)}")
    if core.get_aval(x).ndim != 1:
        raise ShapeError("bincount: x must be 1-D")
    if length is None:
        xv = _concrete(x, "bincount's output length")
        length = max(int(minlength), int(xv.max()) + 1 if xv.size else 0)
    if weights is not None:
        [weights] = uf.promote_dtypes(ravel(asarray_operand(weights)))
    if np.issubdtype(_dt(x), np.signedinteger):
        x = lax.max(x, lax.full_like(x, 0))  # negative values count in bin 0, as JAX's
    out = _one_hot_count(x, int(length), weights)
    return out if s is None else reshard(out, NamedSharding(s.mesh, s.spec.update(
        partitions=(None,))))


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """Edges of the bins `histogram` would use.

    Args:
      a: input data. bins: number of equal-width bins or an array of edges.
      range: optional (lo, hi); defaults to the data's min and max.
      weights: accepted for NumPy compatibility; unused.
    Returns:
      1-D array of `bins + 1` edges.
    Differs from NumPy: string bin rules (e.g. 'auto') are not supported.
    """
    [a] = uf.promote_args_inexact("histogram_bin_edges", asarray_operand(a))
    if not isinstance(bins, (int, np.integer)):
        # edges as given, in the data's inexact type (complex data: complex edges), as JAX
        return _dim_edges(a, bins, range) if np.ndim(bins) == 1 else asarray_operand(bins)
    dt = _dt(a)
    if range is None:
        lo, hi = _min(a), _max(a)
    else:
        lo, hi = np.asarray(range[0], dt)[()], np.asarray(range[1], dt)[()]
    same = lax.eq(lo, hi)
    lo = where(same, uf.subtract(lo, 0.5), lo)
    hi = where(same, uf.add(hi, 0.5), hi)
    return linspace(lo, hi, int(bins) + 1, dtype=dt)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Histogram of a data set.

    Args:
      a: input data (flattened). bins: number of equal-width bins or an array of
        edges. range: optional (lo, hi). weights: optional per-element weights.
      density: if True, normalize so the histogram integrates to one.
    Returns:
      `(counts, bin_edges)`.
    Differs from NumPy: string bin rules are not supported; the number of bins
    must be static.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.histogram(jnp.array([1.0, 2.0, 2.0, 3.0]), bins=2)
      (Array([1., 3.], dtype=float32), Array([1., 2., 3.], dtype=float32))
    """
    a = asarray_operand(a)
    if weights is not None:
        weights = asarray_operand(weights)
        if np.shape(a) != np.shape(weights):
            raise ArgumentValueError("weights should have the same shape as a.")
        # counts take the inexact type of the data and weights together, as JAX's
        a, weights = uf.promote_dtypes_inexact(ravel(a), ravel(weights))
    else:
        [a] = uf.promote_dtypes_inexact(ravel(a))
    edges = histogram_bin_edges(a, bins, range)
    nb = core.get_aval(edges).shape[0] - 1
    idx = uf.subtract(searchsorted(edges, a, side="right"), 1)
    last = lax.index_in_dim(edges, nb, 0, False)
    idx = where(uf.equal(a, last), nb - 1, idx)
    valid = lax.bitwise_and(uf.greater_equal(idx, 0), uf.less(idx, nb))
    idx = where(valid, idx, nb)
    if weights is None:
        weights = lax.full_like(a, 1)
    counts = lax.slice_in_dim(_one_hot_count(idx, nb + 1, weights), 0, nb)
    if density:
        counts = lax.convert_element_type(counts, _dt(edges))
        w = diff(edges)
        counts = uf.true_divide(uf.true_divide(counts, w), _sum(counts))
    return counts, edges


def _dim_edges(column, bins, range_i):  # noqa: A002
    """One dimension's bin edges: an array of edges as given, else `bins` equal bins."""
    if np.ndim(bins) == 1:
        return lax.convert_element_type(asarray_operand(bins), _dt(column))
    if isinstance(bins, Tracer) or not np.issubdtype(np.asarray(bins).dtype, np.integer):
        raise ArgumentTypeError(f"histogramdd: bins must be an int or 1-D edges, got {bins!r}")
    return histogram_bin_edges(column, int(bins), range_i)


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """N-dimensional histogram of `N` points in `D` dimensions.

    Args:
      sample: (N, D) array of points.
      bins: an int (the same number of equal bins in each dimension) or a length-D
        sequence of ints and/or 1-D arrays of edges.
      range: optional length-D sequence of (lo, hi) pairs or Nones.
      weights: optional (N,) weights.
      density: if True, divide by the total and by each bin's volume.
    Returns:
      `(hist, edges)`: the D-dimensional counts and a list of D edge arrays.
    Vs NumPy: string bin rules are not supported; the numbers of bins are static.
    """
    sample = asarray_operand(sample)
    if weights is None:
        [sample] = uf.promote_dtypes_inexact(sample)
    else:
        weights = asarray_operand(weights)
        if core.get_aval(weights).shape != core.get_aval(sample).shape[:1]:
            raise ArgumentValueError("should have one weight for each sample.")
        sample, weights = uf.promote_dtypes_inexact(sample, weights)
    shape = core.get_aval(sample).shape
    if len(shape) != 2:
        raise ArgumentValueError(f"{'too many' if len(shape) > 2 else 'not enough'} values "
                                 f"to unpack (expected 2, got {len(shape)})")
    n, d = shape
    if range is not None and (len(range) != d or any(r is not None and np.shape(r)[0] != 2
                                                     for r in range)):
        raise ArgumentValueError(f"For sample.shape={(n, d)}, range must be a sequence "
                                 f"of {d} pairs or Nones; got {range=}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = d * [bins]
    else:
        if len(per_dim) != d:
            raise ArgumentValueError("should be a bin for each dimension.")
    # Each point's bin index per dimension counts an underflow bin 0 and an overflow
    # bin nb+1; the flat index over those padded grids is counted, then trimmed.
    edges, flat, grid = [], None, []
    for i in builtins_range(d):
        col = lax.index_in_dim(sample, i, 1, False)
        e = _dim_edges(col, per_dim[i], None if range is None else range[i])
        ne = core.get_aval(e).shape[0]
        idx = searchsorted(e, col, side="right")
        idx = where(uf.equal(col, lax.index_in_dim(e, ne - 1, 0, False)), uf.subtract(idx, 1), idx)
        # (clipped into the padded grid, as JAX's ravel_multi_index(mode='clip'): unsorted
        # edges can give -1)
        idx = lax.clamp(np.asarray(0, _dt(idx))[()], idx, np.asarray(ne, _dt(idx))[()])
        flat = idx if flat is None else uf.add(uf.multiply(flat, ne + 1), idx)
        edges.append(e)
        grid.append(ne + 1)
    hist = _one_hot_count(flat, int(np.prod(grid)), weights)
    hist = lax.reshape(hist, tuple(grid))
    hist = lax.slice(hist, (1,) * d, tuple(g - 1 for g in grid))
    if density:
        hist = lax.convert_element_type(hist, _dt(sample))
        hist = uf.true_divide(hist, _sum(hist))
        for i, e in enumerate(edges):
            width = diff(e)
            hist = uf.true_divide(hist, lax.broadcast_in_dim(
                width, core.get_aval(hist).shape, (i,)))
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Two-dimensional histogram of the points (x[i], y[i]).

    Args:
      x, y: 1-D coordinates of equal length.
      bins: an int, a pair of ints and/or edge arrays, or one edge array for both.
      range: optional ((xlo, xhi), (ylo, yhi)). weights: optional per-point weights.
      density: if True, normalize to a density over the bin areas.
    Returns:
      `(hist, x_edges, y_edges)`.
    Vs NumPy: string bin rules are not supported; the numbers of bins are static.
    """
    x, y = asarray_operand(x), asarray_operand(y)
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):
        bins = [bins, bins]
    x, y = uf.promote_dtypes(x, y)
    sample = lax.transpose(lax.concatenate([lax.reshape(v, (1,) + core.get_aval(v).shape)
                                            for v in (x, y)], 0), (1, 0))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def _take_1d(arr, idx):
    """arr[idx] for a 1-D arr by one-hot contraction (idx of any shape, in range)."""
    n = core.get_aval(arr).shape[0]
    ish = core.get_aval(idx).shape
    full = ish + (n,)
    hit = lax.eq(lax.broadcasted_iota(_dt(idx), full, len(ish)),
                 lax.broadcast_in_dim(idx, full, tuple(range(len(ish)))))
    a = lax.broadcast_in_dim(arr, full, (len(ish),))
    return _sum(where(hit, a, np.asarray(0, _dt(arr))[()]), axis=-1)


@library_jit
def interp(x, xp, fp, left=None, right=None, period=None):
    """One-dimensional piecewise-linear interpolation.

    Args:
      x: points to evaluate at. xp: increasing 1-D sample positions.
      fp: 1-D sample values, same length as `xp`.
      left / right: values below `xp[0]` / above `xp[-1]` (default: end values).
      period: optional period for periodic x-coordinates.
    Returns:
      Interpolated values shaped like `x`.
    Differs from NumPy: `xp` is not checked for being increasing.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.interp(jnp.array([0.5, 1.5]), jnp.array([0.0, 1.0, 2.0]),
      ...            jnp.array([0.0, 10.0, 30.0]))
      Array([ 5., 20.], dtype=float32)
    """
    if any(dtypes.issubdtype(core.get_aval(asarray_operand(v)).dtype, np.complexfloating)
           for v in (x, xp)):  # JAX: ValueError (fp may be complex)
        raise ArgumentValueError("interp: complex x / xp values are not supported (complex "
                                 "values have no ordering)", hint="interpolate on real positions")
    (x, xp), (fp,) = uf.promote_dtypes_inexact(x, xp), uf.promote_dtypes_inexact(fp)  # (as JAX)
    xs, fs = core.get_aval(xp).shape, core.get_aval(fp).shape
    if len(xs) != 1 or len(fs) != 1 or xs != fs:
        raise ShapeValueError(f"interp: xp and fp must be one-dimensional arrays of equal "
                              f"size, got shapes {xs} and {fs}")
    n = core.get_aval(xp).shape[0]
    if period is not None:
        x = uf.remainder(x, period)
        xp = uf.remainder(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concatenate([uf.subtract(lax.slice(xp, (n - 1,), (n,)), period), xp,
                          uf.add(lax.slice(xp, (0,), (1,)), period)])
        fp = concatenate([lax.slice(fp, (n - 1,), (n,)), fp, lax.slice(fp, (0,), (1,))])
        n += 2
    i = uf.clip(searchsorted(xp, x, side="right"), 1, n - 1)
    # (a gather, as JAX's: the values keep the weak type of a weak xp / fp)
    xl, xr = take(xp, uf.subtract(i, 1)), take(xp, i)
    fl, fr = take(fp, uf.subtract(i, 1)), take(fp, i)
    dx = uf.subtract(xr, xl)
    delta = uf.subtract(x, xl)
    # as JAX: a step no wider than the spacing of eps (not eps: a narrower real step
    # interpolates) takes the left value, so its gradient is not NaN
    eps = float(np.spacing(np.finfo(_dt(dx)).eps)) if dtypes.is_float(_dt(dx)) else 0.0
    dx0 = uf.less_equal(uf.abs(dx), eps)
    f = where(dx0, fl, uf.add(fl, uf.multiply(uf.true_divide(delta, where(dx0, 1, dx)),
                                              uf.subtract(fr, fl))))
    if period is None:
        x0 = lax.index_in_dim(xp, 0, 0, False)
        xn = lax.index_in_dim(xp, n - 1, 0, False)
        f0 = lax.index_in_dim(fp, 0, 0, False) if left is None else left
        fn = lax.index_in_dim(fp, n - 1, 0, False) if right is None else right
        f = where(uf.less(x, x0), f0, f)
        f = where(uf.greater(x, xn), fn, f)
    return f

# ------------------------------------------------------------------- unique


def _unique_sorted(ar, size, fill_value, equal_nan=True):
    """(values[size], mask-of-first[n], position[n], sort order[n], count) of ravel(ar)."""
    x = ravel(asarray_operand(ar))
    n = core.get_aval(x).shape[0]
    order = argsort(x, stable=True)
    s = take(x, order)
    if n == 0:
        raise ShapeError("unique with size= needs a non-empty array")
    differ = lax.ne(lax.slice(s, (1,), (n,)), lax.slice(s, (0,), (n - 1,)))
    if equal_nan and dtypes.is_inexact(_dt(s)):
        both_nan = lax.bitwise_and(uf.isnan(lax.slice(s, (1,), (n,))),
                                   uf.isnan(lax.slice(s, (0,), (n - 1,))))
        differ = lax.bitwise_and(differ, lax.bitwise_not(both_nan))
    mask = lax.concatenate([lax.full((1,), True, dtypes.bool_), differ], 0)
    pos = uf.subtract(prefix_sum(lax.convert_element_type(mask, dtypes.int32)), 1)
    ks = lax.broadcasted_iota(dtypes.int32, (size, n), 0)
    hit = lax.bitwise_and(lax.eq(ks, lax.broadcast_in_dim(pos, (size, n), (1,))),
                          lax.broadcast_in_dim(mask, (size, n), (1,)))
    vals = _sum(where(hit, lax.broadcast_in_dim(s, (size, n), (1,)),
                      np.asarray(0, _dt(s))[()]), axis=1)
    count = _sum(mask, dtype=dtypes.int32)
    slot = lax.broadcasted_iota(dtypes.int32, (size,), 0)
    fill = lax.index_in_dim(s, 0, 0, False) if fill_value is None else \
        lax.convert_element_type(asarray_operand(fill_value), _dt(s))
    vals = where(uf.less(slot, count), vals, fill)
    return vals, mask, pos, order, count, hit


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    """Sorted distinct elements of an array.

    Args:
      ar: input array (flattened). return_index / return_inverse / return_counts:
        also return first positions, the reconstruction indices, or counts.
      equal_nan: treat all NaNs as one value. size / fill_value: static output
        length and the padding value (default: the smallest element).
      sorted: accepted for compatibility; the result is always sorted.
    Returns:
      The unique values, or a tuple with the requested extra arrays.
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.unique(jnp.array([3, 1, 3, 2]))
      Array([1, 2, 3], dtype=int32)
      >>> jnp.unique(jnp.array([3, 1, 3, 2]), size=5, fill_value=0)
      Array([1, 2, 3, 0, 0], dtype=int32)
    """
    if axis is not None:
        return unique_along_axis(ar, axis, return_index, return_inverse, return_counts,
                                 equal_nan, size, fill_value)
    ar = asarray_operand(ar)
    if size is None:
        v = _concrete(ar, "the number of unique values")
        res = np.unique(v, return_index=return_index, return_inverse=return_inverse,
                        return_counts=return_counts, equal_nan=equal_nan)
        vals, *rest = res if isinstance(res, tuple) else (res,)
        vals = _host_values(vals, ar)   # (ar's weak type kept, as JAX's)
        if not isinstance(res, tuple):
            return vals
        return (vals,) + tuple(asarray(r.astype(_int_dtype())) for r in rest)
    res = unique_along_axis(ravel(ar), 0, return_index, return_inverse, return_counts,
                            equal_nan, size, fill_value)
    if not return_inverse:
        return res
    at = 1 + bool(return_index)   # the inverse has the input's shape, as JAX's
    return res[:at] + (lax.reshape(res[at], core.get_aval(ar).shape),) + res[at + 1:]


class _UniqueAllResult(NamedTuple):
    """`unique_all`'s result (the Array API's)."""
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    """`unique_counts`'s result (the Array API's)."""
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    """`unique_inverse`'s result (the Array API's)."""
    values: Any
    inverse_indices: Any


def unique_values(x, *, size=None, fill_value=None):
    """Array-API form of `unique`: just the distinct values.

    Args:
      x: input array. size / fill_value: as for `unique`.
    Returns:
      The sorted unique values.
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).
    """
    return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, *, size=None, fill_value=None):
    """Array-API form of `unique`: the distinct values and how often each occurs.

    Args:
      x: input array. size / fill_value: as for `unique`.
    Returns:
      `_UniqueCountsResult(values, counts)` (a named tuple).
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).
    """
    return _UniqueCountsResult(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(x, *, size=None, fill_value=None):
    """Array-API form of `unique`: distinct values and reconstruction indices.

    Args:
      x: input array. size / fill_value: as for `unique`.
    Returns:
      `_UniqueInverseResult(values, inverse_indices)` (a named tuple), with
      `values[inverse_indices]` equal to `x`.
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).
    """
    return _UniqueInverseResult(*unique(x, return_inverse=True, size=size,
                                       fill_value=fill_value))


def unique_all(x, *, size=None, fill_value=None):
    """Array-API form of `unique` returning everything.

    Args:
      x: input array. size / fill_value: as for `unique`.
    Returns:
      `_UniqueAllResult(values, indices, inverse_indices, counts)` (a named tuple).
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).
    """
    return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, size=size, fill_value=fill_value))


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """Sorted distinct values found in either of two arrays.

    Args:
      ar1, ar2: input arrays (flattened). size / fill_value: as for `unique`.
    Returns:
      1-D array of the union.
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).
    """
    return unique(concatenate([ravel(asarray_operand(ar1)), ravel(asarray_operand(ar2))]),
                  size=size, fill_value=fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """Sorted distinct values found in both arrays.

    Args:
      ar1, ar2: input arrays (flattened). assume_unique: accepted for compatibility.
      size / fill_value: static output length and padding value.
    Returns:
      1-D array of the intersection.
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.intersect1d(jnp.array([1, 2, 3]), jnp.array([2, 3, 4]))
      Array([2, 3], dtype=int32)
    """
    if return_indices:
        return intersect1d_indices(ar1, ar2, assume_unique, size, fill_value)
    a = ravel(asarray_operand(ar1))
    if size is None:
        b = asarray_operand(ar2)
        av, bv = _concrete(a, "intersect1d's size"), _concrete(b, "size")
        return _host_values(np.intersect1d(av, bv), a, b)
    keep = isin(a, ar2)
    return _masked_unique(a, keep, size, fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """Sorted distinct values of `ar1` that are not in `ar2`.

    Args:
      ar1, ar2: input arrays (flattened). assume_unique: accepted for compatibility.
      size / fill_value: static output length and padding value.
    Returns:
      1-D array of the difference.
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).
    """
    a = ravel(asarray_operand(ar1))
    if size is None:
        av, bv = _concrete(a, "setdiff1d's size"), _concrete(asarray_operand(ar2), "size")
        return _host_values(np.setdiff1d(av, bv), a)
    return _masked_unique(a, isin(a, ar2, invert=True), size, fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """Sorted distinct values in exactly one of the two arrays.

    Args:
      ar1, ar2: input arrays (flattened). assume_unique: accepted for compatibility.
      size / fill_value: static output length and padding value.
    Returns:
      1-D array of the symmetric difference.
    Differs from NumPy: the output length depends on the data, so under jit pass a
    static `size=` (missing slots take `fill_value`, extra ones are dropped).
    """
    a, b = ravel(asarray_operand(ar1)), ravel(asarray_operand(ar2))
    if size is None:
        return _host_values(np.setxor1d(_concrete(a, "size"), _concrete(b, "size")), a, b)
    both = concatenate([a, b])
    keep = concatenate([isin(a, b, invert=True), isin(b, a, invert=True)])
    return _masked_unique(both, keep, size, fill_value)


@library_jit(static_argnums=(2, 3))
def _host_values(vals, *sources):
    """Values NumPy computed from `sources` as an array of the first's dtype, weak when
    every source is (as JAX's results, gathered from sorted concatenations of them)."""
    dt = _dt(sources[0])
    weak = all(core.get_aval(s).weak_type for s in sources)
    return lax.convert_element_type(asarray(vals.astype(dt)), dt, weak_type=weak)


def _masked_unique(x, keep, size, fill_value):
    """unique(x[keep], size=size): kept values first, via a sort on (not keep, x)."""
    big = _max(x)
    dt = _dt(x)
    # move dropped entries to the end by replacing them with +inf / the maximum
    repl = np.asarray(np.inf, dt)[()] if dtypes.is_inexact(dt) else big
    xk = where(keep, x, repl)
    vals, mask, pos, order, count, hit = _unique_sorted(xk, size, fill_value)
    n_keep = _sum(keep, dtype=dtypes.int32)
    any_dropped = uf.less(n_keep, core.get_aval(x).shape[0])
    # the replacement value forms one extra unique entry unless it also occurs as kept
    slot = lax.broadcasted_iota(dtypes.int32, (size,), 0)
    repl_kept = _any(lax.bitwise_and(keep, uf.equal(x, repl)))
    n_unique = where(lax.bitwise_and(any_dropped, lax.bitwise_not(repl_kept)),
                     uf.subtract(count, 1), count)
    fill = fill_value if fill_value is not None else _min(xk)
    return where(uf.less(slot, n_unique), vals, lax.convert_element_type(
        asarray_operand(fill), dt))
