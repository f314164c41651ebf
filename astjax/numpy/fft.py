"""`astjax.numpy.fft`: NumPy's discrete Fourier transforms on `lax.fft`.

Every transform reads its arguments as `jax.numpy.fft` does:

- `n` / `s` crop or zero-pad the input along the transformed axes (for the inverse
  real transforms, the half spectrum to `s[-1] // 2 + 1`); without them the sizes
  are the input's (the inverse real transforms: `2 * (m - 1)` on the last axis);
- `axes` are moved to the end (XLA transforms trailing dimensions only) and back;
  repeated axes are an error; more than three axes are done in rounds of <= 3;
- `norm` is None / "backward" (no scaling forward, 1/n inverse), "ortho"
  (1/sqrt(n) both ways) or "forward" (1/n forward); `hfft`/`ihfft` scale as
  JAX does (the inverse real transform of the conjugate times n, and the
  conjugate of the real transform over n).

`fftfreq`, `rfftfreq`, `fftshift` and `ifftshift` are the usual helpers.
Derivatives, `vmap` and `jit` come from the `fft` primitive's rules.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentValueError
from ..primitives.fft import FftType
from .creation import arange
from .operands import asarray, asarray_operand
from .repeats import roll
from .shapes import moveaxis
from .ufuncs import conjugate

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn",
           "ifftn", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]


def _norm_factor(name, norm, sizes, dtype):
    """The scale of a transform of `sizes` under `norm` (None: no scaling)."""
    if norm is None or norm == "backward":
        return None
    total = float(np.prod(sizes)) if sizes else 1.0
    inverse = name.startswith("i")
    if norm == "ortho":
        f = np.sqrt(total) if inverse else 1.0 / np.sqrt(total)
    elif norm == "forward":
        f = total if inverse else 1.0 / total
    else:
        raise ArgumentValueError(f'Invalid norm value {norm}; should be "backward", '
                                 '"ortho" or "forward".')
    return np.asarray(f, dtype)


def _transform_nd(x, kind, sizes):
    """`lax.fft` of kind over the trailing len(sizes) axes, in rounds of <= 3."""
    k = len(sizes)
    if k <= 3:
        return lax.fft(x, kind, tuple(sizes))
    inner = 2 if k == 4 else 3
    nd = core.get_aval(x).ndim
    outer = tuple(range(nd - k, nd - inner))
    back = tuple(range(nd - k + inner, nd))
    if kind in (FftType.FFT, FftType.RFFT):
        x = lax.fft(x, kind, tuple(sizes[-inner:]))
        x = moveaxis(x, outer, back)
        x = _transform_nd(x, FftType.FFT, sizes[:-inner])
        return moveaxis(x, back, outer)
    x = moveaxis(x, outer, back)
    x = _transform_nd(x, FftType.IFFT, sizes[:-inner])
    x = moveaxis(x, back, outer)
    return lax.fft(x, kind, tuple(sizes[-inner:]))


def _crop_pad(x, shape):
    """x cropped, then zero-padded at the end, to `shape`."""
    a = core.get_aval(x)
    if a.shape == tuple(shape):
        return x
    keep = tuple(min(m, n) for m, n in zip(a.shape, shape))
    if keep != a.shape:
        x = lax.slice(x, (0,) * a.ndim, keep)
    if keep != tuple(shape):
        zero = np.zeros((), core.get_aval(x).dtype)
        x = lax.pad(x, zero, [(0, n - m, 0) for m, n in zip(keep, shape)])
    return x


def _core(name, kind, a, s, axes, norm):
    x = asarray_operand(a)
    x = asarray(x)
    nd = core.get_aval(x).ndim
    if s is not None:
        s = tuple(operator.index(v) for v in s)
        if any(v <= 0 for v in s):
            raise ArgumentValueError("Shape should be positive.")
        if axes is not None and len(s) != len(axes):
            raise ArgumentValueError("Shape and axes have different lengths.")
    given_axes = axes
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    axes = tuple(operator.index(v) for v in axes)
    if len(set(axes)) != len(axes):
        raise ArgumentValueError(f"jax.numpy.fft.{name} does not support repeated axes. "
                                 f"Got axes {axes}.")
    trailing = tuple(range(nd - len(axes), nd))
    if given_axes is not None:
        for ax in axes:
            if not -nd <= ax < nd:
                raise ArgumentValueError(f"axis {ax} is out of bounds for array of dimension "
                                         f"{nd}")
        x = moveaxis(x, axes, trailing)
    shape = core.get_aval(x).shape
    if s is not None:
        target = list(shape)
        for ax, v in zip(trailing, s):
            target[ax] = v
        if kind == FftType.IRFFT and target:
            target[-1] = target[-1] // 2 + 1
        x = _crop_pad(x, target)
        sizes = list(s)
    elif kind == FftType.IRFFT:
        sizes = [shape[ax] for ax in trailing[:-1]]
        if trailing:
            sizes.append(max(0, 2 * (shape[trailing[-1]] - 1)))
    else:
        sizes = [shape[ax] for ax in trailing]
    out = _transform_nd(x, kind, sizes) if sizes else lax.fft(x, kind, ())
    factor = _norm_factor(name, norm, sizes, core.get_aval(out).dtype)
    if factor is not None:
        out = lax.mul(out, factor)
    if given_axes is not None:
        out = moveaxis(out, trailing, axes)
    return out


def _one_axis(name, axis):
    if isinstance(axis, (list, tuple)):
        raise ArgumentValueError(f"jax.numpy.fft.{name} does not support multiple axes. "
                                 f"Please use jax.numpy.fft.{name}n. Got axis = {axis!r}.")
    return None if axis is None else [axis]


def _two_axes(name, axes):
    if len(axes) != 2:
        raise ArgumentValueError(f"jax.numpy.fft.{name} only supports 2 axes. "
                                 f"Got axes = {axes!r}.")
    return axes


def fft(a, n=None, axis=-1, norm=None):
    """The one-dimensional discrete Fourier transform along `axis`."""
    return _core("fft", FftType.FFT, a, None if n is None else [n], _one_axis("fft", axis),
                 norm)


def ifft(a, n=None, axis=-1, norm=None):
    """The inverse of `fft`."""
    return _core("ifft", FftType.IFFT, a, None if n is None else [n],
                 _one_axis("ifft", axis), norm)


def rfft(a, n=None, axis=-1, norm=None):
    """The transform of a real signal: the n // 2 + 1 non-negative frequencies."""
    return _core("rfft", FftType.RFFT, a, None if n is None else [n],
                 _one_axis("rfft", axis), norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The inverse of `rfft`: a real signal of length n (default 2 * (m - 1))."""
    return _core("irfft", FftType.IRFFT, a, None if n is None else [n],
                 _one_axis("irfft", axis), norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The transform of a signal with Hermitian symmetry (given as its half
    spectrum): a real spectrum of length n (default 2 * (m - 1))."""
    axes = _one_axis("hfft", axis)
    x = conjugate(asarray(asarray_operand(a)))
    length = (core.get_aval(x).shape[axis] - 1) * 2 if n is None else n
    out = _core("hfft", FftType.IRFFT, x, None if n is None else [n], axes, norm)
    return lax.mul(out, np.asarray(length, core.get_aval(out).dtype))


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of `hfft`: the half spectrum of a real signal's Hermitian transform."""
    axes = _one_axis("ihfft", axis)
    x = asarray(asarray_operand(a))
    length = core.get_aval(x).shape[axis] if n is None else n
    out = conjugate(_core("ihfft", FftType.RFFT, x, None if n is None else [n], axes, norm))
    return lax.mul(out, np.asarray(1.0 / length, core.get_aval(out).dtype))


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """The two-dimensional transform over `axes`."""
    return _core("fft2", FftType.FFT, a, s, _two_axes("fft2", axes), norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of `fft2`."""
    return _core("ifft2", FftType.IFFT, a, s, _two_axes("ifft2", axes), norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """The two-dimensional transform of a real signal (half spectrum on the last axis)."""
    return _core("rfft2", FftType.RFFT, a, s, _two_axes("rfft2", axes), norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of `rfft2`."""
    return _core("irfft2", FftType.IRFFT, a, s, _two_axes("irfft2", axes), norm)


def fftn(a, s=None, axes=None, norm=None):
    """The n-dimensional transform over `axes` (default: all, or the last len(s))."""
    return _core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """The inverse of `fftn`."""
    return _core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """The n-dimensional transform of a real signal (half spectrum on the last axis)."""
    return _core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of `rfftn`."""
    return _core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _freq_args(name, n, d):
    if isinstance(n, (list, tuple)):
        raise ArgumentValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                                 f"Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ArgumentValueError(f"The d argument of jax.numpy.fft.{name} only takes a single "
                                 f"value. Got d = {list(d)}.")
    return operator.index(n)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point `fft` with sample spacing d:
    [0, 1, ..., n//2 - 1 (or (n-1)//2), -n//2, ..., -1] / (d * n)."""
    n = _freq_args("fftfreq", n, d)
    out_dt = dtypes.canonicalize(np.dtype(dtype if dtype is not None else np.float64))
    dt = out_dt if dtypes.is_inexact(out_dt) else dtypes.canonicalize(np.dtype(np.float64))
    dt = np.dtype(np.finfo(dt).dtype)
    i = arange(n, dtype=dt)
    k = lax.sub(lax.rem(lax.add(i, np.asarray(n // 2, dt)), np.asarray(n, dt)),
                np.asarray(n // 2, dt)) if n else i
    out = lax.div(k, lax.convert_element_type(asarray(d * n), dt))
    return lax.convert_element_type(out, out_dt)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point `rfft`: [0, ..., n//2] / (d * n)."""
    n = _freq_args("rfftfreq", n, d)
    dt = dtypes.canonicalize(np.dtype(dtype if dtype is not None else np.float64))
    k = arange(0, n // 2 + 1, dtype=dt)
    return lax.div(k, lax.convert_element_type(asarray(d * n), dt))


def _shifts(x, axes, sign):
    shape = core.get_aval(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
    if isinstance(axes, int):
        return sign * (shape[axes] // 2), axes
    axes = tuple(axes)
    return [sign * (shape[ax] // 2) for ax in axes], axes


def fftshift(x, axes=None):
    """Move the zero frequency to the centre of the spectrum (along `axes`)."""
    x = asarray(asarray_operand(x))
    shift, axes = _shifts(x, axes, 1)
    return roll(x, shift, axes) if axes != () else x


def ifftshift(x, axes=None):
    """The inverse of `fftshift`."""
    x = asarray(asarray_operand(x))
    shift, axes = _shifts(x, axes, -1)
    return roll(x, shift, axes) if axes != () else x

