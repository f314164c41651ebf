"""`astjax.scipy.interpolate` (JAX's `jax.scipy.interpolate`): `RegularGridInterpolator`,
linear or nearest-neighbour interpolation on a rectangular grid with strictly increasing
axes, as JAX's (a pytree, so an interpolator can be passed through jit / vmap):

- each query point finds, per axis, the cell `g[i] <= x <= g[i + 1]` by `searchsorted`
  (clamped to the first / last cell, so outside points extrapolate) and its fractional
  position in it;
- 'linear' sums the 2**N cell corners weighted by the products of (1 - t) / t;
  'nearest' takes the corner with t <= 0.5 rounding down;
- points outside the grid read `fill_value` (NaN by default; None keeps the
  extrapolation). `bounds_error=True` is refused as in JAX (it could not act under jit).
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import numpy as jnp
from ..errors import ArgumentValueError, AstjaxError
from ..numpy.arraylike import check_arraylike
from ..numpy.operands import promote_dtypes_inexact
from ..tree_util import register_pytree_node

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


class BoundsErrorUnsupported(AstjaxError, NotImplementedError):
    """`bounds_error=True`, which JAX refuses with NotImplementedError."""


def _check_method(method):
    if method not in _METHODS:
        raise ArgumentValueError(f"method {method!r} is not defined",
                                 hint="method='linear' or method='nearest'")


def _points_array(xi, ndim):
    """Query points as one (..., ndim) array: from a tuple of per-axis arrays (broadcast
    together) or an array whose last axis is the dimension (1-D: rows of ndim)."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        parts = jnp.broadcast_arrays(*xi)
        out = jnp.empty(parts[0].shape + (len(xi),), dtype=float)
        for j, part in enumerate(parts):
            out = out.at[..., j].set(part)
        return out
    check_arraylike("_ndim_coords_from_arrays", xi)
    xi = jnp.asarray(xi)
    return xi.reshape(-1, ndim) if xi.ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolator of `values` on the grid `points` (one strictly increasing 1-D array
    per leading axis of values), as JAX's `jax.scipy.interpolate.RegularGridInterpolator`.
    `method` 'linear' or 'nearest'; `fill_value` for points outside the grid (default
    NaN; None extrapolates); `bounds_error` must stay False. Call it on query points
    `xi` (shape (..., N), or a tuple of N arrays) -> values at them, shaped
    xi.shape[:-1] + values.shape[N:]."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise BoundsErrorUnsupported("`bounds_error` takes no effect under JIT",
                                         hint="leave bounds_error=False and check the "
                                              "points, or use fill_value")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > values.ndim:
            raise ArgumentValueError(f"there are {len(points)} point arrays, but values has "
                                     f"{values.ndim} dimensions",
                                     hint="give one grid array per leading axis of values")
        values, = promote_dtypes_inexact(values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not jnp.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ArgumentValueError("fill_value must be either 'None' or of a type "
                                         "compatible with values",
                                         hint="pass a fill_value castable to values' dtype")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        """Interpolate at `xi`, with this interpolator's method unless `method` is given."""
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _points_array(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ArgumentValueError(f"the requested sample points xi have dimension "
                                     f"{xi.shape[1]}, but this RegularGridInterpolator has "
                                     f"dimension {ndim}",
                                     hint="give xi a last axis of one entry per grid axis")
        lead = xi.shape[:-1]
        cells, fracs, outside = self._locate(xi.reshape(-1, ndim).T)
        if method == "linear":
            out = self._linear(cells, fracs)
        else:
            out = self.values[tuple(jnp.where(t <= 0.5, i, i + 1)
                                    for i, t in zip(cells, fracs))]
        if self.fill_value is not None:
            out = jnp.where(outside.reshape(out.shape[:1] + (1,) * (out.ndim - 1)),
                            self.fill_value, out)
        return out.reshape(lead + self.values.shape[ndim:])

    def _locate(self, xi):
        """Per axis: cell index, fractional position in the cell; and which points lie
        outside the grid."""
        cells, fracs = [], []
        outside = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            cells.append(i)
            fracs.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return cells, fracs, outside

    def _linear(self, cells, fracs):
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(cells))
        out = jnp.asarray(0.0)
        for corner in itertools.product(*[(i, i + 1) for i in cells]):
            weight = jnp.asarray(1.0)
            for c, i, t in zip(corner, cells, fracs):
                weight = weight * jnp.where(c == i, 1 - t, t)
            out = out + self.values[corner] * weight[trailing]
        return out


register_pytree_node(
    RegularGridInterpolator,
    lambda r: ((r.grid, r.values, r.fill_value), (r.method, r.bounds_error)),
    lambda aux, kids: RegularGridInterpolator(kids[0], kids[1], aux[0], aux[1], kids[2]))
