"""`astjax.image` (JAX's `jax.image`): resampling images -- `resize` and
`scale_and_translate` with the methods of `ResizeMethod` (nearest, linear, cubic
(Keys, and PyTorch's), Lanczos 3 and 5, area), antialiased when downsampling.

A separable resampling: for each spatial dimension a weight matrix
`W[input pixel, output pixel]` is built from the method's kernel evaluated at the
distance between the output pixel's sample location (half-centred pixels, inverse
warp `(out + 0.5 - translation) / scale - 0.5`) and each input pixel, the kernel
stretched by `1 / scale` when antialiasing a downsample. Each column is normalised to
sum to one (a column summing to ~0 is zeroed) and output pixels whose sample falls
outside the input are zero -- except PyTorch's cubic without antialiasing, which
repeats the edge pixels instead. The image is contracted with each matrix in turn,
so the result is differentiable in the image, the scale and the translation."""
from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import numpy as np

from . import numpy as jnp
from .errors import ArgumentValueError

__all__ = ["resize", "scale_and_translate", "ResizeMethod"]


class ResizeMethod(enum.Enum):
    """Image resize method: NEAREST, LINEAR, LANCZOS3, LANCZOS5, CUBIC (the Keys
    kernel), CUBIC_PYTORCH (PyTorch's bicubic: a = -0.75, edge pixels repeated when not
    antialiased), AREA (the average of the input pixels an output pixel covers)."""
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> "ResizeMethod":
        """The method a name denotes ('bilinear' is LINEAR, 'bicubic' is CUBIC, ...);
        a ValueError for any other name."""
        method = _NAMES.get(s)
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"')
        return method


_NAMES = {"nearest": ResizeMethod.NEAREST, "lanczos3": ResizeMethod.LANCZOS3,
          "lanczos5": ResizeMethod.LANCZOS5, "area": ResizeMethod.AREA,
          "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
          "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH}
_NAMES.update(dict.fromkeys(("linear", "bilinear", "trilinear", "triangle"),
                            ResizeMethod.LINEAR))
_NAMES.update(dict.fromkeys(("cubic", "bicubic", "tricubic"), ResizeMethod.CUBIC))

# ------------------------------------------------------------------------ kernels
# Each takes |distance| >= 0 in input pixels (already divided by the stretch).


def _triangle(d):
    return jnp.maximum(0, 1 - jnp.abs(d))


def _cubic(a):
    """The cubic convolution kernel with parameter `a` (Keys: -0.5, PyTorch: -0.75)."""
    def kernel(d):
        near = ((a + 2) * d - (a + 3)) * d * d + 1
        far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
        return jnp.where(d >= 2, 0., jnp.where(d >= 1, far, near))
    return kernel


def _lanczos(radius):
    def kernel(d):
        num = radius * jnp.sin(np.pi * d) * jnp.sin(np.pi * d / radius)
        # sinc(d) sinc(d / radius), 1 at (and, for stability, very near) d = 0
        out = jnp.where(d > 1e-3, num / jnp.where(d != 0, np.pi ** 2 * d ** 2, 1), 1)
        return jnp.where(d > radius, 0., out)
    return kernel


_KERNELS = {ResizeMethod.LINEAR: (1, _triangle), ResizeMethod.LANCZOS3: (3, _lanczos(3.)),
            ResizeMethod.LANCZOS5: (5, _lanczos(5.)), ResizeMethod.CUBIC: (2, _cubic(-0.5)),
            ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)), ResizeMethod.AREA: (1, None)}
_TINY = 1000. * float(np.finfo(np.float32).eps)   # a column summing to less is dropped


def _normalise(w):
    total = jnp.sum(w, axis=0, keepdims=True)
    return jnp.where(jnp.abs(total) > _TINY, w / jnp.where(total != 0, total, 1), 0)


def _weights(n_in, n_out, scale, translation, method, antialias, edge_padding, radius):
    """W[input pixel, output pixel] of one spatial dimension."""
    dtype = jnp.result_type(scale, translation)
    inv = 1. / scale
    stretch = jnp.maximum(inv, 1.) if antialias else 1.
    out_pos = jnp.arange(n_out, dtype=dtype)
    sample = (out_pos + 0.5) * inv - translation * inv - 0.5
    pad = 0
    if edge_padding:   # (reached without antialias only: PyTorch's cubic)
        pad = math.ceil(radius * max(1. / float(scale), 1.)) if antialias else radius
    src = jnp.arange(-pad, n_in + pad, dtype=dtype)
    if method is ResizeMethod.AREA:
        left = out_pos * inv - translation * inv
        src = jnp.arange(n_in, dtype=dtype)
        w = jnp.maximum(0., jnp.minimum(left + inv, src[:, None] + 1)
                        - jnp.maximum(left, src[:, None]))
    else:
        w = _KERNELS[method][1](jnp.abs(sample[None, :] - src[:, None]) / stretch)
    if edge_padding:
        # the mass of taps beyond an edge moves onto the edge pixel
        owner = jnp.clip(src.astype(jnp.int32), 0, n_in - 1)
        onehot = (owner[None, :] == jnp.arange(n_in)[:, None]).astype(dtype)
        return _normalise(jnp.matmul(onehot, w, precision="highest"))
    inside = (sample >= -0.5) & (sample <= n_in - 0.5)
    return jnp.where(inside[None, :], _normalise(w), 0)


def _resample(x, shape, dims, scales, translations, method, antialias, precision):
    edge_padding = method is ResizeMethod.CUBIC_PYTORCH and not antialias
    radius = _KERNELS[method][0]
    for d, s, t in zip(dims, scales, translations):
        d = d % x.ndim
        w = _weights(x.shape[d], shape[d], s, t, method, antialias, edge_padding,
                     radius).astype(x.dtype)
        y = jnp.tensordot(x, w, axes=([d], [0]), precision=precision)
        x = jnp.moveaxis(y, -1, d)
    return x


def _method(method, antialias):
    if isinstance(method, str):
        method = ResizeMethod.from_string(method)
    if not isinstance(method, ResizeMethod):
        raise ArgumentValueError(f"method must be a ResizeMethod or its name, got {method!r}")
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        return ResizeMethod.CUBIC   # the two differ only without antialiasing
    return method


def _check_shape(image, shape):
    shape = tuple(int(n) for n in shape)
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {image.shape}")
    return shape


def scale_and_translate(image, shape: Sequence[int], spatial_dims: Sequence[int], scale,
                        translation, method, antialias: bool = True,
                        precision="highest"):
    """Resample `image` to `shape` under the warp `x -> x * scale + translation` of
    each of `spatial_dims` (pixel centres at `i + 0.5`); output pixels that map
    outside the input are zero. `method`: a `ResizeMethod` or its name, not
    NEAREST. `antialias` widens the kernel when downsampling. Differentiable in
    `image`, `scale` and `translation`."""
    image = jnp.asarray(image)
    shape = _check_shape(image, shape)
    method = _method(method, antialias)
    if method is ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for "
                         "scale_and_translate.")
    if not spatial_dims:
        return image
    image = _inexact(image)
    kind = jnp.result_type(scale, translation)
    kind = kind if jnp.issubdtype(kind, jnp.inexact) else jnp.result_type(float)
    scale, translation = jnp.asarray(scale, kind), jnp.asarray(translation, kind)
    if len(spatial_dims) != scale.shape[0] or len(spatial_dims) != translation.shape[0]:
        raise ValueError("scale and translation need one entry per spatial dimension")
    return _resample(image, shape, spatial_dims, [scale[i] for i in range(len(spatial_dims))],
                     [translation[i] for i in range(len(spatial_dims))], method, antialias,
                     precision)


def _inexact(x):
    """`x`, integers and booleans converted to the default float type (as JAX)."""
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.result_type(float))


def _nearest(x, shape):
    for d, (m, n) in enumerate(zip(x.shape, shape)):
        if m != n:
            # float32 arithmetic, as JAX (its float64 result differs at some sizes)
            at = (np.arange(n, dtype=np.float32) + np.float32(0.5)) * np.float32(m) \
                / np.float32(n)
            x = jnp.take(x, np.floor(at).astype(np.int32), axis=d)
    return x


def resize(image, shape: Sequence[int], method, antialias: bool = True,
           precision="highest"):
    """`image` resampled to `shape` (every dimension: batch and channel dimensions
    keep their size). `method`: a `ResizeMethod` or its name ('nearest',
    'linear'/'bilinear', 'cubic'/'bicubic', 'cubic-pytorch', 'lanczos3',
    'lanczos5', 'area'). Nearest keeps the dtype; the others return floats.
    `antialias` smooths when downsampling (no effect when upsampling)."""
    image = jnp.asarray(image)
    shape = _check_shape(image, shape)
    method = _method(method, antialias)
    if method is ResizeMethod.NEAREST:
        return _nearest(image, shape)
    image = _inexact(image)
    # dimensions of equal size are an identity warp for every interpolating kernel
    dims = [d for d in range(image.ndim) if image.shape[d] != shape[d]]
    scales = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    return _resample(image, shape, dims, scales, [0.] * len(dims), method, antialias,
                     precision)
