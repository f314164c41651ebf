"""The discrete Fourier transform primitive, `fft` (XLA's `stablehlo.fft`).

One primitive, four kinds (`FftType`), each over the trailing `len(fft_lengths)`
(1 to 3) dimensions of its operand; leading dimensions are batch:

- FFT / IFFT: complex -> complex of the same shape (IFFT divides by prod(lengths));
- RFFT: real -> complex, the last transformed dimension shrinks to n // 2 + 1;
- IRFFT: complex -> real, the last dimension grows back to `fft_lengths[-1]`.

Every kind is linear. FFT and IFFT are symmetric matrices, so each is its own
transpose; the transposes of RFFT and IRFFT go through the other one with a
weight for the Hermitian-redundant frequencies (those counted twice in the full
spectrum: all but the DC and, for even n, the Nyquist term), under JAX's convention
for cotangents of complex values. Lowered for a GPU, a multi-dimensional IRFFT is
split as JAX splits it (`_fft_lowering`). `jnp.fft` is built on `lax.fft`
(astjax/numpy/fft.py).
"""
from __future__ import annotations

import enum

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError
from .base import GPU_PLATFORMS, deffront, is_zero, register
from .base import tangent_aval as _aval
from .elementwise import conj
from .arithmetic import div, mul
from .structural import broadcast_in_dim, convert_element_type

__all__ = ["fft_p", "fft", "FftType"]


class FftType(enum.IntEnum):
    """Which transform `lax.fft` computes (JAX's enum and values)."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _complex_of(dt):
    return np.dtype(np.complex128) if np.dtype(dt) in (np.float64, np.complex128) \
        else np.dtype(np.complex64)


def _real_of(dt):
    return np.dtype(np.float64) if np.dtype(dt) in (np.float64, np.complex128) \
        else np.dtype(np.float32)


# ---- fft -----------------------------------------------------------------------------
fft_p = core.new_primitive("fft")


def _fft_ae(x, *, fft_type, fft_lengths):
    k = len(fft_lengths)
    if not 1 <= k <= 3:
        raise ShapeError(f"fft transforms 1 to 3 dimensions, got fft_lengths={fft_lengths}")
    if k > x.ndim:
        raise ShapeError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")
    lead, minor = x.shape[:-k], x.shape[-k:]
    if fft_type == FftType.RFFT:
        if x.dtype not in (dtypes.float32, dtypes.float64):
            raise DTypeError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if minor != fft_lengths:
            raise ShapeError(f"RFFT input shape {x.shape} minor dimensions must be equal "
                             f"to fft_lengths {fft_lengths}")
        return ShapedArray(lead + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,),
                           _complex_of(x.dtype))
    if not dtypes.issubdtype(x.dtype, np.complexfloating):
        raise DTypeError(f"{fft_type.name} input must be complex64 or complex128, got "
                         f"{x.dtype}")
    if fft_type == FftType.IRFFT:
        if minor[:-1] != fft_lengths[:-1]:
            raise ShapeError(f"IRFFT input shape {x.shape} minor dimensions must be equal "
                             f"to all except the last fft_length, got {fft_lengths}")
        return ShapedArray(lead + fft_lengths, _real_of(x.dtype))
    if minor != fft_lengths:
        raise ShapeError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                         f"fft_lengths {fft_lengths}")
    return ShapedArray(x.shape, x.dtype)


def _fft_impl(x, *, fft_type, fft_lengths):
    x = np.asarray(x)
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if fft_type == FftType.FFT:
        out, dt = np.fft.fftn(x, axes=axes), x.dtype
    elif fft_type == FftType.IFFT:
        out, dt = np.fft.ifftn(x, axes=axes), x.dtype
    elif fft_type == FftType.RFFT:
        out, dt = np.fft.rfftn(x, axes=axes), _complex_of(x.dtype)
    else:
        out, dt = np.fft.irfftn(x, s=fft_lengths, axes=axes), _real_of(x.dtype)
    return out.astype(dt)


def _stablehlo_fft(ctx, x, fft_type, fft_lengths, out_aval=None):
    return ctx.op1("stablehlo.fft", [x], out_aval, attrs={
        "fft_type": f"#stablehlo<fft_type {fft_type.name}>",
        "fft_length": ctx.i64(fft_lengths)})


def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
    if fft_type == FftType.IRFFT and len(fft_lengths) > 1 and ctx.platform in GPU_PLATFORMS:
        # cuFFT's (and hipFFT's) multi-dimensional complex-to-real transform assumes
        # Hermitian symmetry along every axis, where NumPy's irfftn needs it along the
        # last only: as JAX on GPUs, a complex IFFT over the outer axes (moved behind
        # the last one), then a one-dimensional IRFFT of the last axis.
        aval = ctx.avals_in[0]
        start = aval.ndim - len(fft_lengths)
        to_front = list(range(aval.ndim))
        to_front.insert(start, to_front.pop())
        back = list(range(aval.ndim))
        back.append(back.pop(start))
        moved = aval.update(shape=tuple(aval.shape[i] for i in to_front))
        y = ctx.op1("stablehlo.transpose", [x], moved, {"permutation": ctx.i64(to_front)})
        y = _stablehlo_fft(ctx, y, FftType.IFFT, fft_lengths[:-1], moved)
        y = ctx.op1("stablehlo.transpose", [y], aval, {"permutation": ctx.i64(back)})
        return _stablehlo_fft(ctx, y, FftType.IRFFT, fft_lengths[-1:])
    return _stablehlo_fft(ctx, x, fft_type, fft_lengths)


def _fft_jvp(primals, tangents, **params):
    out = bind(fft_p, primals[0], **params)
    t = tangents[0]
    return out, (core.Zero(_aval(out)) if is_zero(t) else bind(fft_p, t, **params))


def _hermitian_weight(m, n, dtype, shape):
    """Per-frequency weight of a half spectrum of length m (of a length-n signal)
    broadcast to `shape`: 2 for the frequencies standing for a conjugate pair, 1 for
    DC and (n even) Nyquist."""
    w = np.full((m,), 2.0, dtype)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return broadcast_in_dim(w, shape, (len(shape) - 1,))


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    if is_zero(ct):
        return [core.Zero(x.aval)]
    size = int(np.prod(fft_lengths))
    ca = _aval(ct)
    if fft_type == FftType.RFFT:
        # ct_x = Re(A^T ct) for the rfft matrix A, = size * irfft(conj(ct) / w)
        w = _hermitian_weight(ca.shape[-1], fft_lengths[-1], ca.dtype, ca.shape)
        half = bind(fft_p, div(conj(ct), w), fft_type=FftType.IRFFT,
                    fft_lengths=fft_lengths)
        return [mul(half, np.asarray(size, _real_of(ca.dtype)))]
    if fft_type == FftType.IRFFT:
        spec = bind(fft_p, ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
        sa = _aval(spec)
        w = _hermitian_weight(sa.shape[-1], fft_lengths[-1], sa.dtype, sa.shape)
        scaled = mul(mul(spec, w), np.asarray(1.0 / size, sa.dtype))
        return [conj(scaled)]
    return [bind(fft_p, ct, fft_type=fft_type, fft_lengths=fft_lengths)]


register(fft_p, impl=_fft_impl, abstract_eval=_fft_ae, lowering=_fft_lowering,
         jvp=_fft_jvp, transpose=_fft_transpose)
deffront(fft_p)


def _fft_type(fft_type):
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        try:
            return FftType[fft_type.upper()]
        except KeyError:
            raise ArgumentValueError(f"Unknown FFT type '{fft_type}'") from None
    if isinstance(fft_type, (int, np.integer)) and 0 <= int(fft_type) <= 3:
        return FftType(int(fft_type))
    raise ArgumentTypeError(f"Unknown FFT type value '{fft_type}'")


def fft(x, fft_type, fft_lengths):
    """`lax.fft`: the `fft_type` transform of `x` over its trailing
    `len(fft_lengths)` dimensions (RFFT casts to a real, the others to a complex
    dtype first; empty `fft_lengths` returns `x`)."""
    typ = _fft_type(fft_type)
    fft_lengths = tuple(int(n) for n in fft_lengths)
    if isinstance(x, (list, tuple, int, float, complex)):
        x = np.asarray(x)
    dt = _aval(x).dtype
    default = dtypes.canonicalize(np.dtype(np.float64))
    if typ == FftType.RFFT:
        if dtypes.issubdtype(dt, np.complexfloating):
            raise ArgumentValueError("only real valued inputs supported for rfft")
        want = dt if dtypes.is_float(dt) else default
    elif dtypes.issubdtype(dt, np.complexfloating):
        want = dt
    else:
        want = _complex_of(dt if dtypes.is_float(dt) else default)
    if dt != want:
        x = convert_element_type(x, want)
    if not fft_lengths:
        return x
    return bind(fft_p, x, fft_type=typ, fft_lengths=fft_lengths)
