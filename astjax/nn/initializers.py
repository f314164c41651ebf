"""`astjax.nn.initializers`: JAX's initializer constructors. Each returns
`init(key, shape, dtype=float32)`; random ones draw with `astjax.random`, so they
give JAX's values for the same key."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
    """An initializer that fills an array with zeros (the key is ignored).

    Args:
        key: a PRNG key (unused; there for the initializer signature).
        shape: the shape of the result.
        dtype: its dtype (float32 by default).

    Returns:
        An array of zeros of `shape` and `dtype`.

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> initializers.zeros(astjax.random.key(0), (2, 3))
        Array([[0., 0., 0.],
               [0., 0., 0.]], dtype=float32)
    """
    return lax.full(_shape(shape), 0, _dt(dtype))


def ones(key: ArrayLike, shape: Sequence[int], dtype: DTypeLike = np.float32) -> Array:
    """An initializer that fills an array with ones (the key is ignored).

    Args:
        key: a PRNG key (unused; there for the initializer signature).
        shape: the shape of the result.
        dtype: its dtype (float32 by default).

    Returns:
        An array of ones of `shape` and `dtype`.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> from astjax.nn import initializers
        >>> initializers.ones(astjax.random.key(0), (2,), jnp.int32)
        Array([1, 1], dtype=int32)
    """
    return lax.full(_shape(shape), 1, _dt(dtype))


def constant(value: ArrayLike, dtype: DTypeLike = np.float32) -> Initializer:
    """Make an initializer that fills every array with `value`.

    Args:
        value: a scalar or an array that broadcasts to the requested shapes.
        dtype: default dtype of the values.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)` broadcasts `value` to
        `shape` (the key is ignored).

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> initializers.constant(0.5)(astjax.random.key(0), (2, 2))
        Array([[0.5, 0.5],
               [0.5, 0.5]], dtype=float32)
    """
    def init(key, shape, dtype=dtype):
        return _jnp.broadcast_to(_jnp.asarray(value, dtype=_dt(dtype)), _shape(shape))
    return init


def normal(stddev: float = 0.01, dtype: DTypeLike = np.float32) -> Initializer:
    """Make an initializer that draws from a normal distribution with mean 0.

    Args:
        stddev: the standard deviation.
        dtype: default dtype of the values.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)` returns
        `stddev * random.normal(key, shape, dtype)` (JAX's values for the same key).

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> initializers.normal(1.0)(astjax.random.key(0), (3,))
        Array([ 1.6226422 ,  2.0252647 , -0.43359444], dtype=float32)
    """
    def init(key, shape, dtype=dtype):
        dt = _dt(dtype)
        return lax.mul(_random.normal(key, _shape(shape), dt), np.asarray(stddev, dt)[()])
    return init


def uniform(scale: float = 0.01, dtype: DTypeLike = np.float32) -> Initializer:
    """Make an initializer that draws uniformly from `[0, scale)`.

    Args:
        scale: the upper end of the interval.
        dtype: default dtype of the values.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)` returns
        `scale * random.uniform(key, shape, dtype)`.

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> initializers.uniform(2.0)(astjax.random.key(0), (3,))
        Array([1.895334  , 1.9571598 , 0.66458297], dtype=float32)
    """
    def init(key, shape, dtype=dtype):
        dt = _dt(dtype)
        return lax.mul(_random.uniform(key, _shape(shape), dt), np.asarray(scale, dt)[()])
    return init


def truncated_normal(stddev: float = 0.01, dtype: DTypeLike = np.float32, lower: float = -2.0,
                     upper: float = 2.0) -> Initializer:
    """Make an initializer that draws from a normal distribution truncated to
    `[lower, upper]` standard deviations, then scaled by `stddev`.

    Args:
        stddev: the scale of the result (the standard deviation before truncation).
        dtype: default dtype of the values.
        lower: lower bound of the truncation, in standard deviations.
        upper: upper bound of the truncation, in standard deviations.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)` returns
        `stddev * random.truncated_normal(key, lower, upper, shape, dtype)`.

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> initializers.truncated_normal(1.0)(astjax.random.key(0), (3,))
        Array([ 1.4559592 ,  1.7147487 , -0.41267535], dtype=float32)
    """
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
    """Make an initializer whose variance is `scale` divided by a fan of the shape.

    The fans are products of the sizes along `in_axis` and `out_axis`, each times the
    size of the remaining (receptive-field) axes other than `batch_axis`.

    Args:
        scale: the variance numerator.
        mode: the denominator: "fan_in", "fan_out", "fan_avg" (their mean) or
            "fan_geo_avg" (their geometric mean).
        distribution: "truncated_normal" (within two standard deviations, corrected
            to keep the variance), "normal" or "uniform" (symmetric around 0). For a
            complex dtype: a complex normal with its modulus truncated at 2, or uniform
            on a disk, each of the variance asked for.
        in_axis: axis or axes of the shape that count as inputs (fan-in).
        out_axis: axis or axes that count as outputs (fan-out).
        batch_axis: axes excluded from both fans.
        dtype: default dtype of the values.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)`; the shape needs two or
        more dimensions; an unknown `mode` or `distribution` raises ValueError.

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> init = initializers.variance_scaling(1.0, "fan_in", "normal")
        >>> init(astjax.random.key(0), (4, 2))
        Array([[ 0.8113211 ,  1.0126324 ],
               [-0.21679722, -0.03930867],
               [ 0.08804545, -0.48604462],
               [-0.24764937,  0.2471893 ]], dtype=float32)
    """
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
        elif mode == "fan_geo_avg":
            den = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = np.asarray(scale / den, dt)
        real = not np.issubdtype(dt, np.complexfloating)
        if distribution == "truncated_normal":
            if real:
                stddev = (np.sqrt(variance) / np.asarray(.87962566103423978, dt)).astype(dt)
                return lax.mul(_random.truncated_normal(key, -2, 2, shape, dt), stddev[()])
            # the standard deviation of a complex standard normal truncated to modulus 2
            stddev = (np.sqrt(variance) / np.asarray(.95311164380491208, dt)).astype(dt)
            return lax.mul(_complex_disk(key, shape, dt, 2.0), stddev[()])
        if distribution == "normal":
            return lax.mul(_random.normal(key, shape, dt), np.sqrt(variance).astype(dt)[()])
        if distribution == "uniform":
            if real:
                return lax.mul(_random.uniform(key, shape, dt, -1),
                               np.sqrt(3 * variance).astype(dt)[()])
            return lax.mul(_complex_disk(key, shape, dt, None),
                           np.sqrt(variance).astype(dt)[()])
        raise ValueError(f"invalid distribution for variance scaling initializer: "
                         f"{distribution}")
    return init


def _complex_disk(key, shape, dtype, upper):
    """Complex samples of unit variance: uniform on a disk (`upper` None), or a
    standard complex normal whose modulus is truncated to `upper` -- a uniform angle,
    and a modulus drawn by inverting its distribution function (JAX's draws)."""
    key_r, key_theta = _random.split(key)
    real = np.finfo(dtype).dtype
    u = _random.uniform(key_r, shape, real)
    if upper is None:
        r = _jnp.sqrt(2 * u).astype(dtype)
    else:
        t = (1 - _jnp.exp(_jnp.array(-(upper ** 2), dtype))) * u.astype(dtype)
        r = _jnp.sqrt(-_jnp.log(1 - t))
    theta = 2 * np.pi * _random.uniform(key_theta, shape, real).astype(dtype)
    return r * _jnp.exp(1j * theta)


def _shorthand(name: str, scale: float, mode: str, distribution: str, summary: str,
               example: str) -> Callable[..., Initializer]:
    """`name`: `variance_scaling(scale, mode, distribution, ...)` with its own docstring
    (`summary`, then what every shorthand shares, then `example`: the doctest output
    for key 0 and shape (2, 2))."""
    def init_factory(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                     batch_axis: Sequence[int] = (),
                     dtype: DTypeLike = np.float32) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis,
                                dtype)
    init_factory.__name__ = init_factory.__qualname__ = name
    init_factory.__doc__ = f"""{summary}

    The same as `variance_scaling({scale}, "{mode}", "{distribution}", in_axis,
    out_axis, batch_axis, dtype)`.

    Args:
        in_axis: axis or axes of the shape that count as inputs (fan-in).
        out_axis: axis or axes that count as outputs (fan-out).
        batch_axis: axes excluded from both fans (e.g. stacked kernels).
        dtype: default dtype of the values.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)`; the shape needs two or
        more dimensions.

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> initializers.{name}()(astjax.random.key(0), (2, 2))
        {example}
    """
    return init_factory


glorot_uniform = _shorthand(
    "glorot_uniform", 1.0, "fan_avg", "uniform",
    "Glorot (Xavier) uniform initializer: variance 1 / mean of the fans (also\n"
    "    `xavier_uniform`).",
    """Array([[ 1.0965558 ,  1.1722765 ],
               [-0.4108003 , -0.07674628]], dtype=float32)""")
glorot_normal = _shorthand(
    "glorot_normal", 1.0, "fan_avg", "truncated_normal",
    "Glorot (Xavier) normal initializer: truncated normal, variance 1 / mean of the\n"
    "    fans (also `xavier_normal`).",
    """Array([[ 1.1704054,  1.3784391],
               [-0.3317383, -0.0603173]], dtype=float32)""")
lecun_uniform = _shorthand(
    "lecun_uniform", 1.0, "fan_in", "uniform",
    "LeCun uniform initializer: variance 1 / fan-in.",
    """Array([[ 1.0965558 ,  1.1722765 ],
               [-0.4108003 , -0.07674628]], dtype=float32)""")
lecun_normal = _shorthand(
    "lecun_normal", 1.0, "fan_in", "truncated_normal",
    "LeCun normal initializer: truncated normal with variance 1 / fan-in.",
    """Array([[ 1.1704054,  1.3784391],
               [-0.3317383, -0.0603173]], dtype=float32)""")
he_uniform = _shorthand(
    "he_uniform", 2.0, "fan_in", "uniform",
    "He (Kaiming) uniform initializer: variance 2 / fan-in (also `kaiming_uniform`).",
    """Array([[ 1.550764  ,  1.6578493 ],
               [-0.5809593 , -0.10853563]], dtype=float32)""")
he_normal = _shorthand(
    "he_normal", 2.0, "fan_in", "truncated_normal",
    "He (Kaiming) normal initializer: truncated normal with variance 2 / fan-in\n"
    "    (also `kaiming_normal`).",
    """Array([[ 1.6552032 ,  1.9494075 ],
               [-0.46914884, -0.08530156]], dtype=float32)""")
# JAX's other names for the same functions
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: float = 1.0, column_axis: int | Sequence[int] = -1,
               dtype: DTypeLike = np.float32) -> Initializer:
    """Make an initializer of (semi-)orthogonal matrices times `scale`.

    The shape is read as a matrix whose columns run along `column_axis` and whose
    rows are all other axes flattened; the rows or the columns (whichever are fewer)
    are orthonormal.

    Args:
        scale: the factor applied to the orthogonal matrix.
        column_axis: the axis holding the columns.
        dtype: default dtype of the values.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)`; the shape needs two or
        more dimensions (ValueError otherwise).

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> initializers.orthogonal()(astjax.random.key(0), (2, 2))
        Array([[ 0.96610296,  0.25815725],
               [-0.25815725,  0.9661029 ]], dtype=float32)
    """
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
    """Make an initializer of convolution kernels that are orthogonal at the centre.

    A kernel of shape `spatial + (in_features, out_features)` (3-D to 5-D) is zero
    except at the centre of its spatial window, which holds an `orthogonal(scale)`
    matrix; this keeps a convolution norm-preserving at initialization.

    Args:
        scale: the factor applied to the orthogonal matrix.
        column_axis: the axis of the centre matrix holding the columns.
        dtype: default dtype of the values.

    Returns:
        An `Initializer`: `init(key, shape, dtype=dtype)`; ValueError when the shape
        is not 3-D to 5-D or has fewer outputs than inputs.

    Example:
        >>> import astjax
        >>> from astjax.nn import initializers
        >>> w = initializers.delta_orthogonal()(astjax.random.key(0), (3, 2, 2))
        >>> w[0]
        Array([[0., 0.],
               [0., 0.]], dtype=float32)
        >>> w[1]
        Array([[ 0.96610296,  0.25815725],
               [-0.25815725,  0.9661029 ]], dtype=float32)
    """
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

