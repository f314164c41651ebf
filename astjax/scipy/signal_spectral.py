"""`astjax.scipy.signal`'s trend removal and spectral estimators (JAX's
`jax.scipy.signal.detrend`, `stft`, `istft`, `welch`, `csd`), on `astjax.numpy.fft`:

- `detrend`: subtract the mean ('constant') or a least-squares line per segment
  between breakpoints `bp` ('linear');
- the signal is cut into segments of `nperseg` samples, `nperseg - noverlap` apart (a
  gather with static indices, so `grad` and `vmap` go through it), each segment is
  detrended, multiplied by the window and Fourier-transformed (`rfft` one-sided,
  `fft` two-sided, `nfft` points);
- `stft` extends the ends first (`boundary` 'zeros' / 'even' / 'odd' / 'constant') and
  zero-pads to whole segments (`padded`); `csd` multiplies the conjugated transform of
  x by that of y, scales to a density or a spectrum and averages the segments (mean or
  bias-corrected median); `welch` is `csd` of x with itself, real;
- `istft` inverts `stft` by overlap-add of the windowed inverse transforms, divided by
  the overlapped squared window.

Windows: 'hann' is built here; other names or tuples go to SciPy's `get_window`, as
JAX does (ImportError without SciPy); an array is used as given."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax, user_warnings
from .. import numpy as jnp
from ..errors import ArgumentValueError, AstjaxError
from ..numpy.arraylike import check_arraylike
from ..numpy.operands import promote_dtypes_inexact
from ..numpy.util import canonicalize_axis

__all__ = ["detrend", "stft", "istft", "csd", "welch"]


class UnsupportedSignalOptionError(AstjaxError, NotImplementedError):
    """An option JAX's signal functions refuse with NotImplementedError."""


class WindowImportError(AstjaxError, ImportError):
    """A window other than 'hann' was named and SciPy (which builds it) is missing."""


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):  # noqa: A002
    """Remove the trend of `data` along `axis`, as JAX's `jax.scipy.signal.detrend`:
    `type` 'constant' (the mean) or 'linear' (a least-squares line on each segment
    between the breakpoints `bp`, static indices)."""
    if overwrite_data is not None:
        raise UnsupportedSignalOptionError("overwrite_data argument not implemented.",
                                           hint="leave overwrite_data=None")
    if type not in ("constant", "linear"):
        raise ArgumentValueError("Trend type must be 'linear' or 'constant'.",
                                 hint="type='linear' or type='constant'")
    x, = promote_dtypes_inexact(jnp.asarray(data))
    if type == "constant":
        return x - x.mean(axis, keepdims=True)
    n = x.shape[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if breaks[0] < 0 or breaks[-1] > n:
        raise ArgumentValueError("Breakpoints must be non-negative and less than length of "
                                 "data along given axis.", hint="give bp in [0, n]")
    x = jnp.moveaxis(x, axis, 0)
    shape = x.shape
    x = x.reshape(n, -1)
    for lo, hi in zip(breaks[:-1], breaks[1:]):
        count = hi - lo
        design = jnp.vstack([jnp.ones(count, dtype=x.dtype),
                             jnp.arange(1, count + 1, dtype=x.dtype) / count.astype(x.dtype)]).T
        coef = jnp.linalg.lstsq(design, x[lo:hi])[0]
        x = x.at[lo:hi].add(-jnp.matmul(design, coef, precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(x.reshape(shape), 0, axis)


def _complex_dtype(dtype):
    return np.result_type(np.dtype(dtype), np.complex64)


def _named_window(window, n, dtype):
    """The periodic window `window` (a name or a (name, parameter...) tuple) of `n`."""
    if window == "hann":
        # computed in the default float dtype by the device, as JAX's (so its rounding:
        # sin(pi / 2)**2 is not exactly 1 in float32)
        win = jnp.array([1.0]) if n == 1 else \
            jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2
        return jnp.asarray(win, dtype=dtype)
    else:
        try:
            from scipy.signal import get_window
        except ImportError as err:
            raise WindowImportError(f"scipy must be available to use window={window!r}",
                                    hint="install scipy, or pass window='hann' or an "
                                         "array") from err
        win = get_window(window, n)
    return jnp.asarray(np.asarray(win), dtype=dtype)


def _window_and_length(window, nperseg, input_length, dtype):
    """The window array and the segment length, from `window` and `nperseg`."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            user_warnings.warn(f"nperseg={n} is greater than input_length={input_length}, "
                               f"using nperseg={input_length}")
            n = input_length
        return _named_window(window, n, dtype), n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ArgumentValueError("window must be 1-D", hint="pass a 1-D window array")
    if input_length < win.size:
        raise ArgumentValueError("window is longer than input signal",
                                 hint="use a window no longer than the signal")
    if n != win.size:
        raise ArgumentValueError("value specified for nperseg is different from length of "
                                 "window", hint="leave nperseg=None with an array window")
    return win, n


def _static_int(value, what):
    try:
        return operator.index(value) if not isinstance(value, (float, np.floating)) \
            else int(value)
    except TypeError as err:
        raise ArgumentValueError(f"{what} must be a static integer, got {value!r}",
                                 hint="pass a Python int") from err


def _odd_extension(x, n):
    """`x` extended by `n` points at both ends of its last axis, odd about the ends."""
    # (n is nperseg // 2 and nperseg is capped at the signal length, so n never exceeds
    # x.shape[-1] - 1: JAX's "extension length too big" error cannot arise here)
    if n < 1:
        return x
    left = 2 * x[..., :1] - jnp.flip(x[..., 1:n + 1], -1)
    right = 2 * x[..., -1:] - jnp.flip(x[..., -(n + 1):-1], -1)
    return jnp.concatenate([left, x, right], axis=-1)


def _pad_last(mode, **kw):
    def pad(x, n):
        return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)], mode, **kw)
    return pad


_BOUNDARIES = {"even": _pad_last("reflect"), "odd": _odd_extension,
               "constant": _pad_last("edge"),
               "zeros": _pad_last("constant", constant_values=0.0), None: None}


def _segments_transform(x, win, detrend_func, nperseg, noverlap, nfft, twosided):
    """Windowed FFTs of the segments of `x`'s last axis: (..., segments, frequencies)."""
    if x.dtype.kind == "i":
        x = x.astype(win.dtype)
    if nperseg == 1 and noverlap == 0:
        frames = x[..., None]
    else:
        starts = np.arange(0, x.shape[-1] - nperseg + 1, nperseg - noverlap)
        frames = x[..., starts[:, None] + np.arange(nperseg)[None, :]]
    frames = detrend_func(frames)
    if jnp.iscomplexobj(win):
        frames = frames.astype(_complex_dtype(frames.dtype))
    frames = win * frames
    return jnp.fft.fft(frames, n=nfft) if twosided else jnp.fft.rfft(frames.real, n=nfft)


def _detrend_function(detrend_type, axis):
    if isinstance(detrend_type, str):
        return lambda d: detrend(d, type=detrend_type, axis=-1)
    if callable(detrend_type):
        # as JAX: the user's function sees the segments with `axis` moved last
        return lambda d: jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
    if not detrend_type:
        return lambda d: d
    raise ArgumentValueError(f"Unsupported detrend type: {detrend_type}",
                             hint="detrend='constant', 'linear', False or a function")


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):
    """(frequencies, segment times, per-segment spectra) -- the STFT (`mode` 'stft') or
    the cross/power spectral density per segment (`mode` 'psd') along `axis`."""
    if boundary not in _BOUNDARIES:
        raise ArgumentValueError(f"Unknown boundary option '{boundary}', must be one of: "
                                 f"{list(_BOUNDARIES)}",
                                 hint="boundary='zeros', 'even', 'odd', 'constant' or None")
    if y is None:
        check_arraylike("spectral_helper", x)
        x, = promote_dtypes_inexact(x)
        axis = canonicalize_axis(_static_int(axis, "axis"), x.ndim)
        outer = x.shape[:axis] + x.shape[axis + 1:]
    else:
        check_arraylike("spectral_helper", x, y)
        x, y = promote_dtypes_inexact(x, y)
        axis = canonicalize_axis(_static_int(axis, "axis"), x.ndim)
        if x.ndim != y.ndim:
            raise ArgumentValueError("two-arguments must have the same rank ({x.ndim} vs "
                                     "{y.ndim}).", hint="give x and y the same rank")
        try:
            outer = np.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:],
                                        y.shape[:axis] + y.shape[axis + 1:])
        except ValueError as err:
            raise ArgumentValueError("x and y cannot be broadcast together.",
                                     hint="x and y must broadcast off `axis`") from err
    result_dtype = _complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype
    if nperseg is not None:
        nperseg = _static_int(nperseg, "nperseg")
        if nperseg < 1:
            raise ArgumentValueError("nperseg must be a positive integer",
                                     hint="nperseg >= 1")
    win, nperseg = _window_and_length(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else _static_int(noverlap, "noverlap")
    nfft = nperseg if nfft is None else _static_int(nfft, "nfft")
    if x.size == 0 or (y is not None and y.size == 0):
        shape = x.shape if y is None else (
            outer[:axis] + (min(x.shape[axis], y.shape[axis]),) + outer[axis:])
        return (jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype),
                jnp.zeros(shape, result_dtype))
    x = jnp.moveaxis(x, axis, -1)
    if y is not None:
        y = jnp.moveaxis(y, axis, -1)
        longest = max(x.shape[-1], y.shape[-1])
        x, y = (jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, longest - v.shape[-1])])
                for v in (x, y))
    if nfft < nperseg:
        raise ArgumentValueError("nfft must be greater than or equal to nperseg.",
                                 hint="nfft >= nperseg")
    if noverlap >= nperseg:
        raise ArgumentValueError("noverlap must be less than nperseg.",
                                 hint="noverlap < nperseg")
    step = nperseg - noverlap
    signals = [x] if y is None else [x, y]
    if boundary is not None:
        signals = [_BOUNDARIES[boundary](v, nperseg // 2) for v in signals]
    if padded:
        extra = (-(signals[0].shape[-1] - nperseg) % step) % nperseg
        signals = [jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, extra)]) for v in signals]
    detrend_func = _detrend_function(detrend_type, axis)
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ArgumentValueError(f"Unknown scaling: {scaling}",
                                 hint="scaling='density' or 'spectrum'")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    twosided = not return_onesided
    if return_onesided and any(jnp.iscomplexobj(v) for v in signals):
        twosided = True
        user_warnings.warn("Input data is complex, switching to return_onesided=False")
    freqs = (jnp.fft.fftfreq if twosided else jnp.fft.rfftfreq)(nfft, 1 / fs,
                                                                dtype=freq_dtype)
    spectra = [_segments_transform(v, win, detrend_func, nperseg, noverlap, nfft, twosided)
               for v in signals]
    if y is not None:
        result = jnp.conj(spectra[0]) * spectra[1]
    elif mode == "psd":
        result = jnp.conj(spectra[0]) * spectra[0]
    else:
        result = spectra[0]
    result = result * jnp.asarray(scale).astype(_complex_dtype(jnp.asarray(scale).dtype))
    if not twosided and mode == "psd":
        # one-sided densities fold the negative frequencies in: double all but DC
        # (and Nyquist when nfft is even)
        end = None if nfft % 2 else -1
        result = result.at[..., 1:end].mul(2)
    length = signals[0].shape[-1]
    time = jnp.arange(nperseg / 2, length - nperseg / 2 + 1, step, dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    return freqs, time, jnp.moveaxis(result, -1, axis)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """Short-time Fourier transform of `x` along `axis`, as JAX's
    `jax.scipy.signal.stft`: returns (frequencies, segment times, Zxx) with Zxx's
    frequency axis at `axis` and the segments last, scaled as a spectrum."""
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, "spectrum", axis, "stft", boundary, padded)


def _median_bias(n):
    """The ratio of the median of `n` periodograms to their mean (Allen et al. 2012)."""
    even = np.arange(2.0, n, 2)
    return 1 + np.sum(1.0 / (even + 1) - 1.0 / even)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1,
        average="mean"):
    """Cross power spectral density of `x` and `y` by Welch's method, as JAX's
    `jax.scipy.signal.csd`: returns (frequencies, Pxy), complex (real when `y` is None,
    the power spectral density of `x`); `average` 'mean' or 'median' over segments."""
    freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd")
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] == 1:
            return freqs, pxy.reshape(pxy.shape[:-1])
        if average == "median":
            bias = jnp.asarray(_median_bias(pxy.shape[-1])).astype(pxy.dtype)
            if jnp.iscomplexobj(pxy):
                pxy = (jnp.median(pxy.real, axis=-1)
                       + 1j * jnp.median(pxy.imag, axis=-1))
            else:
                pxy = jnp.median(pxy, axis=-1)
            pxy = pxy / bias
        elif average == "mean":
            pxy = pxy.mean(axis=-1)
        else:
            raise ArgumentValueError(f'average must be "median" or "mean", got {average}',
                                     hint="average='mean' or 'median'")
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
    """Power spectral density of `x` by Welch's method (averaged windowed
    periodograms), as JAX's `jax.scipy.signal.welch`: returns (frequencies, Pxx)."""
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, pxx.real


def _overlap_add(frames, step):
    """Sum of the frames (..., n, length) placed `step` apart: (..., step*(n-1)+length)."""
    *batch, n, length = frames.shape
    out = jnp.zeros((*batch, step * (n - 1) + length), frames.dtype)
    where = np.arange(n)[:, None] * step + np.arange(length)[None, :]
    return out.at[..., where].add(frames)


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """Inverse short-time Fourier transform, as JAX's `jax.scipy.signal.istft`:
    returns (times, x) from the STFT `Zxx` (frequencies on `freq_axis`, segments on
    `time_axis`) by windowed overlap-add."""
    check_arraylike("istft", Zxx)
    Zxx = jnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ArgumentValueError("Input stft must be at least 2d!",
                                 hint="pass (..., frequencies, segments)")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ArgumentValueError("Must specify differing time and frequency axes!",
                                 hint="time_axis != freq_axis")
    Zxx = Zxx.astype(_complex_dtype(Zxx.dtype))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nseg = _static_int(nperseg or n_default, "nperseg")
    if nseg < 1:
        raise ArgumentValueError("nperseg must be a positive integer", hint="nperseg >= 1")
    if nfft is None:
        nfft_int = n_default + (1 if input_onesided and nseg == n_default + 1 else 0)
    else:
        nfft_int = _static_int(nfft, "nfft")
    if nfft_int < nseg:
        raise ArgumentValueError(f"FFT length ({nfft_int}) must be longer than nperseg "
                                 f"({nseg}).", hint="nfft >= nperseg")
    overlap = _static_int(noverlap or nseg // 2, "noverlap")
    if overlap >= nseg:
        raise ArgumentValueError("noverlap must be less than nperseg.",
                                 hint="noverlap < nperseg")
    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer = tuple(i for i in range(Zxx.ndim) if i not in (time_axis, freq_axis))
        Zxx = jnp.transpose(Zxx, outer + (freq_axis, time_axis))
    # as JAX, the inverse transform takes the caller's `nfft` (None: the default length)
    inverse = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    segs = inverse(Zxx, axis=-2, n=nfft)[..., :nseg, :]
    if isinstance(window, (str, tuple)):
        win = _named_window(window, nseg, segs.dtype)
    else:
        win = jnp.asarray(window)
        if win.ndim != 1:
            raise ArgumentValueError("window must be 1-D", hint="pass a 1-D window array")
        if win.shape[0] != nseg:
            raise ArgumentValueError(f"window must have length of {nseg}",
                                     hint="match the window to nperseg")
    segs = segs * win.sum()             # undoes stft's 'spectrum' scaling
    win = win.reshape((1,) * (segs.ndim - 2) + (nseg, 1))
    x = _overlap_add(jnp.swapaxes(segs * win, -2, -1), nseg - overlap)
    norm = _overlap_add(jnp.swapaxes(jnp.repeat(win * win, segs.shape[-1], axis=-1), -2, -1),
                        nseg - overlap)
    if boundary:
        x = x[..., nseg // 2:-(nseg // 2)]
        norm = norm[..., nseg // 2:-(nseg // 2)]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    time = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return time, x
