"""The index-expression builders: `mgrid`, `ogrid` (grids from slices), `r_` and `c_`
(concatenation of slices, scalars and arrays, with NumPy's string directives), `s_`,
`index_exp`.

A slice `a:b:s` is `arange(a, b, s)`, or `linspace(a, b, |s|)` for an imaginary `s`,
built by astjax's own `arange` / `linspace` so the samples carry JAX's float32 bits."""
from __future__ import annotations

import numpy as np

from .. import core
from ..errors import ArgumentValueError, ConcretizationError
from .creation import arange, linspace, meshgrid
from .operands import array, promote_dtypes
from .shapes import concatenate, expand_dims, stack, transpose

__all__ = ["mgrid", "ogrid", "r_", "c_", "s_", "index_exp"]


def _concrete(v, what):
    if isinstance(v, core.Tracer):
        if v.known is None:
            raise ConcretizationError(f"the {what} must be static (known at staging time)")
        return v.known
    return v


def _grid_1d(s, name):
    """The 1-D samples of the slice `s`, as JAX's `jnp.<name>[s]`."""
    start = _concrete(s.start, f"slice start of jnp.{name}") or 0
    stop = _concrete(s.stop, f"slice stop of jnp.{name}")
    step = _concrete(s.step, f"slice step of jnp.{name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


class _Grid:
    """`jnp.mgrid` (dense, one stacked array) or `jnp.ogrid` (sparse, a list of arrays
    broadcasting against each other)."""

    def __init__(self, sparse):
        self.sparse = sparse
        self.name = "ogrid" if sparse else "mgrid"

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, self.name)
        axes = promote_dtypes(*[_grid_1d(k, self.name) for k in key])
        grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
        if self.sparse:
            return grids
        return stack(grids, 0) if grids else arange(0)

    def __len__(self):
        return 0


def _directive(text, params):
    """`[axis, ndmin, trans1d, matrix]` from a string directive ('r', 'c' or up to
    three comma-separated ints), NumPy's reading; `params` are the defaults."""
    if text == "r":
        return params[:3] + [0]
    if text == "c":
        return params[:3] + [1]
    parts = text.split(",")
    parts = parts + params[len(parts):] if len(parts) < 4 else parts[:3] + [params[3]]
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise ArgumentValueError(f"could not understand directive {text!r}") from None


class _AxisConcat:
    """`jnp.r_` (along the first axis) and `jnp.c_` (along the last, each piece made at
    least 2-D with its own dimensions first)."""

    def __init__(self, axis, ndmin, trans1d, name):
        self.axis, self.ndmin, self.trans1d, self.name = axis, ndmin, trans1d, name

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if key and isinstance(key[0], str):
            params, key = _directive(key[0], params), key[1:]
        axis, ndmin, trans1d, matrix = params
        pieces = []
        for item in key:
            if isinstance(item, slice):
                piece, item_ndim = _grid_1d(item, self.name), 0
            elif isinstance(item, str):
                raise ArgumentValueError("string directive must be placed at the beginning")
            else:
                piece = array(item, copy=False)
                item_ndim = core.get_aval(piece).ndim
            piece = array(piece, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                # the item's own dimensions move to position `trans1d` (NumPy's rule)
                order = tuple(range(ndmin))
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                piece = transpose(piece, order[shift:] + order[:shift])
            pieces.append(piece)
        out = concatenate(pieces, axis=axis)
        if matrix != -1 and core.get_aval(out).ndim == 1:
            out = expand_dims(out, matrix)
        return out

    def __len__(self):
        return 0


mgrid = _Grid(False)
ogrid = _Grid(True)
r_ = _AxisConcat(0, 1, -1, "r_")
c_ = _AxisConcat(-1, 2, 0, "c_")
s_ = np.s_
index_exp = np.index_exp
