"""`astjax.scipy.signal` (JAX's `jax.scipy.signal`), the convolution part:

- `convolve` / `correlate` (n-d; method 'auto' / 'direct' by `lax.conv_general_dilated`,
  'fft' by `fftconvolve`), `convolve2d` / `correlate2d` (boundary 'fill' with 0 only,
  as JAX), `fftconvolve` (products of FFTs, `axes` to convolve over while the others
  are mapped);
- modes 'full', 'same' (centered on in1) and 'valid'; the direct forms swap the inputs
  when in1 is the smaller, as SciPy does;
- `detrend` and the spectral estimators (`stft`, `istft`, `welch`, `csd`) live in
  `signal_spectral` and are served from here."""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..batching_api import vmap
from ..errors import ArgumentValueError
from ..numpy.arraylike import check_arraylike
from ..numpy.operands import promote_dtypes_inexact
from ..numpy.util import canonicalize_axis
from .signal_spectral import (UnsupportedSignalOptionError, csd, detrend, istft,  # noqa: F401
                              stft, welch)

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve", "detrend",
           "stft", "istft", "welch", "csd"]

_MODES = ("full", "same", "valid")


def _crop_center(full, shape):
    """The centered `shape` block of `full`."""
    starts = tuple((f - s) // 2 for f, s in zip(full.shape, shape))
    return lax.dynamic_slice(full, starts, shape)


def _fft_full(in1, in2, mode):
    """Convolution of two equal-rank arrays through FFTs, cropped for `mode`."""
    full_shape = tuple(a + b - 1 for a, b in zip(in1.shape, in2.shape))
    if mode == "valid":
        small1 = all(a <= b for a, b in zip(in1.shape, in2.shape))
        if not (all(a >= b for a, b in zip(in1.shape, in2.shape)) or small1):
            raise ArgumentValueError("For 'valid' mode, One input must be at least as large "
                                     "as the other in every dimension.",
                                     hint="give one input the larger size on every axis")
        if small1:
            in1, in2 = in2, in1
    if all(a == 1 or b == 1 for a, b in zip(in1.shape, in2.shape)):
        conv = in1 * in2
    elif jnp.iscomplexobj(in1):
        conv = jnp.fft.ifftn(jnp.fft.fftn(in1, full_shape) * jnp.fft.fftn(in2, full_shape),
                             full_shape)
    else:
        conv = jnp.fft.irfftn(jnp.fft.rfftn(in1, full_shape) * jnp.fft.rfftn(in2, full_shape),
                              full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(a - b + 1 for a, b in zip(in1.shape, in2.shape))
    return _crop_center(conv, out_shape)


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolve `in1` with `in2` (same rank) through FFTs, as JAX's
    `jax.scipy.signal.fftconvolve`: `mode` 'full', 'same' or 'valid'; with `axes`, only
    those axes are convolved and the others (equal in both) are mapped."""
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ArgumentValueError("in1 and in2 should have the same dimensionality",
                                 hint="give both inputs the same number of axes")
    if mode not in _MODES:
        raise ArgumentValueError("mode must be one of ['same', 'full', 'valid']",
                                 hint="mode='full', 'same' or 'valid'")

    def conv(a, b):
        return _fft_full(a, b, mode)
    if axes is None:
        return conv(in1, in2)
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    axes = tuple(canonicalize_axis(a, in1.ndim) for a in axes)
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ArgumentValueError(f"mapped axes must have same shape; got in1.shape="
                                 f"{in1.shape} in2.shape={in2.shape} axes={axes}",
                                 hint="the axes not convolved must have equal sizes")
    for ax in mapped:
        conv = vmap(conv, in_axes=ax, out_axes=ax)
    return conv(in1, in2)


def _direct(in1, in2, mode, precision):
    """n-d convolution by `lax.conv_general_dilated` (the kernel flipped)."""
    if mode not in _MODES:
        raise ArgumentValueError("mode must be one of ['full', 'same', 'valid']",
                                 hint="mode='full', 'same' or 'valid'")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    if in1.ndim != in2.ndim:
        raise ArgumentValueError("in1 and in2 must have the same number of dimensions",
                                 hint="give both inputs the same number of axes")
    if in1.size == 0 or in2.size == 0:
        raise ArgumentValueError("zero-size arrays not supported in convolutions, got shapes "
                                 f"{in1.shape} and {in2.shape}.", hint="pass non-empty arrays")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    big1 = all(a >= b for a, b in zip(in1.shape, in2.shape))
    small1 = all(a <= b for a, b in zip(in1.shape, in2.shape))
    if not (big1 or small1):
        raise ArgumentValueError("One input must be smaller than the other in every "
                                 "dimension.", hint="give one input the larger size on every "
                                                    "axis")
    kernel_shape = in2.shape            # 'same' centres on the original in1's size
    if small1:
        in1, in2 = in2, in1
    shape = in2.shape
    if mode == "valid":
        pads = [(0, 0)] * len(shape)
    elif mode == "same":
        pads = [(s - 1 - (k - 1) // 2, s - k + (k - 1) // 2) for s, k in zip(shape, kernel_shape)]
    else:
        pads = [(s - 1, s - 1) for s in shape]
    out = lax.conv_general_dilated(in1[None, None], jnp.flip(in2)[None, None],
                                   (1,) * len(shape), pads, precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """n-d convolution of `in1` and `in2`, as JAX's `jax.scipy.signal.convolve`: `mode`
    'full', 'same' or 'valid'; `method` 'auto' / 'direct' (a convolution primitive) or
    'fft' (`fftconvolve`); `precision` for the direct form."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _direct(in1, in2, mode, precision)
    raise ArgumentValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.",
                             hint="method='auto', 'fft' or 'direct'")


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """n-d cross-correlation (in2 flipped and conjugated, then convolved), as JAX's
    `jax.scipy.signal.correlate`; arguments as in `convolve`."""
    return convolve(in1, jnp.flip(jnp.conj(jnp.asarray(in2))), mode, precision=precision,
                    method=method)


def _check_2d(name, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise UnsupportedSignalOptionError(f"{name}() only supports boundary='fill', "
                                           "fillvalue=0", hint="boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ArgumentValueError(f"{name}() only supports 2-dimensional inputs.",
                                 hint="pass 2-D arrays")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D convolution, as JAX's `jax.scipy.signal.convolve2d` (zero fill only)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _direct(in1, in2, mode, precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-D cross-correlation, as JAX's `jax.scipy.signal.correlate2d` (zero fill only):
    the convolution of the flipped in1 with the conjugated in2, flipped back -- or, when
    in2 is the larger (not for 'same'), of the flipped in2 with the conjugated in1."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(a <= b for a, b in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape
    if mode == "same" or not swap or (mode == "valid" and same_shape):
        return jnp.flip(_direct(jnp.flip(in1), jnp.conj(in2), mode, precision))
    out = _direct(jnp.flip(in2), jnp.conj(in1), mode, precision)
    return out if mode == "valid" else jnp.conj(out)
