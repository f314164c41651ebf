"""`astjax.scipy.ndimage` (JAX's `jax.scipy.ndimage`): `map_coordinates`, values of an
N-d array at fractional coordinates by nearest-neighbour (order 0) or N-linear
(order 1) interpolation, with JAX's boundary modes:

- 'constant' (JAX's meaning, SciPy's 'grid-constant'): outside points read `cval`;
- 'nearest': clamp to the edge; 'wrap' (SciPy's 'grid-wrap'): periodic;
- 'mirror' (reflect about the edge samples) and 'reflect' (about the edges' borders).

Each output is a sum over the 2**N (order 1) corner reads of the input weighted by the
product of the per-axis weights; integer inputs round half away from zero."""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..errors import ArgumentValueError, AstjaxError

__all__ = ["map_coordinates"]


class UnsupportedInterpolationError(AstjaxError, NotImplementedError):
    """A `map_coordinates` order or mode JAX does not offer (JAX raises
    NotImplementedError)."""


def _mirror(index, size):
    """Reflect about the first and last samples: a triangle wave of half-period size-1."""
    half = size - 1
    return jnp.abs((index + half) % (2 * half) - half)


def _reflect(index, size):
    """Reflect about the outer borders of the first and last samples."""
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_BOUNDARY = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round(a):
    """Round half away from zero (integers unchanged)."""
    return a if jnp.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest(coord):
    return [(_round(coord).astype(np.int32), coord.dtype.type(1))]


def _linear(coord):
    below = jnp.floor(coord)
    frac = coord - below
    index = below.astype(np.int32)
    return [(index, 1 - frac), (index + 1, frac)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):  # noqa: A002
    """Interpolate `input` at `coordinates` (a sequence of input.ndim arrays of one
    shape, one per axis), as JAX's `jax.scipy.ndimage.map_coordinates`: `order` 0
    (nearest) or 1 (linear), `mode` one of 'constant', 'nearest', 'wrap', 'mirror',
    'reflect' (JAX's meanings), `cval` the value outside the input for 'constant'.
    The result has the coordinates' shape and the input's dtype."""
    image = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, image.dtype)
    if len(coords) != image.ndim:
        raise ArgumentValueError("coordinates must be a sequence of length input.ndim, but "
                                 f"{len(coords)} != {image.ndim}",
                                 hint="give one coordinate array per axis of input")
    fix = _BOUNDARY.get(mode)
    if fix is None:
        raise UnsupportedInterpolationError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_BOUNDARY)}.",
            hint="mode='constant', 'nearest', 'wrap', 'mirror' or 'reflect'")
    if order not in (0, 1):
        raise UnsupportedInterpolationError(
            "jax.scipy.ndimage.map_coordinates currently requires order<=1",
            hint="order=0 (nearest) or order=1 (linear)")
    nodes = _nearest if order == 0 else _linear
    per_axis = []
    for coord, size in zip(coords, image.shape):
        per_axis.append([(fix(index, size),
                          (0 <= index) & (index < size) if mode == "constant" else None,
                          weight) for index, weight in nodes(coord)])
    terms = []
    for corner in itertools.product(*per_axis):
        indices = tuple(c[0] for c in corner)
        masks = [c[1] for c in corner if c[1] is not None]
        value = image[indices]
        if masks:
            value = jnp.where(functools.reduce(operator.and_, masks), value, cval)
        terms.append(functools.reduce(operator.mul, [c[2] for c in corner]) * value)
    out = functools.reduce(operator.add, terms)
    if jnp.issubdtype(image.dtype, np.integer):
        out = _round(out)
    return out.astype(image.dtype)
