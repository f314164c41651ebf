"""`astjax.nn.initializers`: JAX's initializer constructors. Each returns
`init(key, shape, dtype=float32)`; random ones draw with `astjax.random`, so they
give JAX's values for the same key."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .. import dtypes, lax
from .. import numpy as _jnp
from .. import random as _random
from ..typing import Array, ArrayLike, DTypeLike

__all__ = ["zeros", "ones", "constant", "normal", "uniform", "truncated_normal",
           "variance_scaling", "glorot_normal", "glorot_uniform", "xavier_normal",
           "xavier_uniform", "lecun_normal", "lecun_uniform", "he_normal", "he_uniform",
           "kaiming_normal", "kaiming_uniform", "orthogonal", "delta_orthogonal",
           "Initializer"]


class Initializer(Protocol):
    """What every initializer is: `init(key, shape, dtype=...) -> array`."""

    def __call__(self, key: ArrayLike, shape: Sequence[int], dtype: DTypeLike = ...) -> Array:
        ...


def _dt(dtype):
    return dtypes.canonicalize(dtypes.dtype(dtype))


def _shape(shape):
    return tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))


def zeros(key: ArrayLike, shape: Sequence[int], dtype: DTypeLike = np.float32) -> Array:
    return lax.full(_shape(shape), 0, _dt(dtype))


def ones(key: ArrayLike, shape: Sequence[int], dtype: DTypeLike = np.float32) -> Array:
    return lax.full(_shape(shape), 1, _dt(dtype))


def constant(value: ArrayLike, dtype: DTypeLike = np.float32) -> Initializer:
    def init(key, shape, dtype=dtype):
        return _jnp.broadcast_to(_jnp.asarray(value, dtype=_dt(dtype)), _shape(shape))
    return init


def normal(stddev: float = 0.01, dtype: DTypeLike = np.float32) -> Initializer:
    def init(key, shape, dtype=dtype):
        dt = _dt(dtype)
        return lax.mul(_random.normal(key, _shape(shape), dt), np.asarray(stddev, dt)[()])
    return init


def uniform(scale: float = 0.01, dtype: DTypeLike = np.float32) -> Initializer:
    def init(key, shape, dtype=dtype):
        dt = _dt(dtype)
        return lax.mul(_random.uniform(key, _shape(shape), dt), np.asarray(scale, dt)[()])
    return init


def truncated_normal(stddev: float = 0.01, dtype: DTypeLike = np.float32, lower: float = -2.0,
                     upper: float = 2.0) -> Initializer:
    def init(key, shape, dtype=dtype):
        dt = _dt(dtype)
        return lax.mul(_random.truncated_normal(key, lower, upper, _shape(shape), dt),
                       np.asarray(stddev, dt)[()])
    return init


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    if len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}"
                         "-dimensional weights tensor. Must be at least 2D.")
    in_axes = (in_axis,) if isinstance(in_axis, int) else tuple(in_axis)
    out_axes = (out_axis,) if isinstance(out_axis, int) else tuple(out_axis)
    b_axes = (batch_axis,) if isinstance(batch_axis, int) else tuple(batch_axis)
    in_size = int(np.prod([shape[i] for i in in_axes]))
    out_size = int(np.prod([shape[i] for i in out_axes]))
    batch = int(np.prod([shape[i] for i in b_axes]))
    rf = np.prod(shape) / in_size / out_size / batch
    return in_size * rf, out_size * rf


def variance_scaling(scale: float, mode: str, distribution: str, in_axis: int | Sequence[int] = -2,
                     out_axis: int | Sequence[int] = -1, batch_axis: Sequence[int] = (),
                     dtype: DTypeLike = np.float32) -> Initializer:
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dt(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            den = fan_in
        elif mode == "fan_out":
            den = fan_out
        elif mode == "fan_avg":
            den = (fan_in + fan_out) / 2
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = np.asarray(scale / den, dt)
        if distribution == "truncated_normal":
            stddev = (np.sqrt(variance) / np.asarray(.87962566103423978, dt)).astype(dt)
            return lax.mul(_random.truncated_normal(key, -2, 2, shape, dt), stddev[()])
        if distribution == "normal":
            return lax.mul(_random.normal(key, shape, dt), np.sqrt(variance).astype(dt)[()])
        if distribution == "uniform":
            return lax.mul(_random.uniform(key, shape, dt, -1),
                           np.sqrt(3 * variance).astype(dt)[()])
        raise ValueError(f"invalid distribution for variance scaling initializer: "
                         f"{distribution}")
    return init


def glorot_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                   batch_axis: Sequence[int] = (), dtype: DTypeLike = np.float32) -> Initializer:
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                  batch_axis: Sequence[int] = (), dtype: DTypeLike = np.float32) -> Initializer:
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def lecun_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                  batch_axis: Sequence[int] = (), dtype: DTypeLike = np.float32) -> Initializer:
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                 batch_axis: Sequence[int] = (), dtype: DTypeLike = np.float32) -> Initializer:
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def he_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
               batch_axis: Sequence[int] = (), dtype: DTypeLike = np.float32) -> Initializer:
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
              batch_axis: Sequence[int] = (), dtype: DTypeLike = np.float32) -> Initializer:
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: float = 1.0, column_axis: int | Sequence[int] = -1,
               dtype: DTypeLike = np.float32) -> Initializer:
    """A (semi-)orthogonal matrix over the `column_axis` columns, times `scale`."""
    def init(key, shape, dtype=dtype):
        dt = _dt(dtype)
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return _jnp.zeros(shape, dt)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = _random.orthogonal(key, n_rows, (), dt, n_cols)
        q = _jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        return _jnp.array(scale, dt) * _jnp.moveaxis(q, -1, column_axis)
    return init


def delta_orthogonal(scale: float = 1.0, column_axis: int | Sequence[int] = -1,
                     dtype: DTypeLike = np.float32) -> Initializer:
    """A convolution kernel (3-D to 5-D) that is an orthogonal matrix at the centre of
    its spatial window and zero elsewhere."""
    def init(key, shape, dtype=dtype):
        dt = _dt(dtype)
        shape = _shape(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        mat = orthogonal(scale, column_axis, dt)(key, shape[-2:])
        return _jnp.zeros(shape, dt).at[centre + (Ellipsis,)].set(mat)
    return init

