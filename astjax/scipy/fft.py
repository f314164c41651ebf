"""`astjax.scipy.fft` (JAX's `jax.scipy.fft`): the discrete cosine transform of type 2
and its inverse, one axis (`dct`, `idct`) or several (`dctn`, `idctn`), on
`astjax.numpy.fft`:

- `dct` by Makhoul's method: reorder x as [x0, x2, x4, ..., x5, x3, x1], take an
  N-point FFT, rotate bin k by exp(-i pi k / 2N) and keep twice the real part;
- `idct` undoes each step (scale, unrotate, inverse FFT, un-reorder);
- `norm` None / 'backward' (unnormalized forward) or 'ortho' (orthonormal; bin 0 by
  sqrt(1/4N), the others by sqrt(1/2N)); `n` / `s` pad with zeros or truncate;
- complex input is transformed as its real and imaginary parts; the n-d forms apply the
  1-d transform along each axis in turn.

Only type 2 exists, as in JAX (another type is a NotImplementedError)."""
from __future__ import annotations

import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..errors import ArgumentValueError, AstjaxError
from ..numpy.arraylike import check_arraylike
from ..numpy.operands import promote_dtypes_inexact
from ..numpy.util import canonicalize_axes, canonicalize_axis

__all__ = ["dct", "dctn", "idct", "idctn"]


class UnsupportedDctTypeError(AstjaxError, NotImplementedError):
    """A DCT type other than 2 (JAX raises NotImplementedError)."""


def _check(name, x, type, norm):  # noqa: A002
    check_arraylike(name, x)
    if type != 2:
        raise UnsupportedDctTypeError("Only DCT type 2 is implemented.", hint="type=2")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ArgumentValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented",
                                 hint="norm=None, 'backward' or 'ortho'")
    return jnp.asarray(x)


def _along(axis, ndim, v):
    """The 1-D array `v` shaped to broadcast along `axis` of an ndim-array."""
    return v.reshape([-1 if a == axis else 1 for a in range(ndim)])


def _resize(x, n, axis):
    """Zero-pad or truncate `x` to length n along `axis`."""
    if n is None:
        return x
    return lax.pad(x, jnp.array(0, x.dtype),
                   [(0, n - x.shape[a] if a == axis else 0, 0) for a in range(x.ndim)])


def _twiddle(n, k):
    """exp(-i pi k / 2n)."""
    return jnp.exp(-0.5j * np.pi * k / n)


def _ortho(x, axis):
    """Scale a DCT-II result to the orthonormal one along `axis` (or back, applied
    before the inverse)."""
    n = x.shape[axis]
    factor = jnp.concatenate([jnp.full((1,), 4, x.dtype), jnp.full((n - 1,), 2, x.dtype)])
    return x / jnp.sqrt(_along(axis, x.ndim, factor) * n)


def _split_parts(fn, x):
    """fn applied to the real and imaginary parts of x, recombined."""
    return lax.complex(fn(jnp.real(x)), fn(jnp.imag(x)))


def _one_axis(name, real_fn, x, type, n, axis, norm):  # noqa: A002
    """Check the arguments, split complex x into parts, resize to n along the axis and
    apply `real_fn(x, axis, norm)`."""
    x = _check(name, x, type, norm)
    if jnp.iscomplexobj(x):
        return _split_parts(lambda v: _one_axis(name, real_fn, v, type, n, axis, norm), x)
    axis = canonicalize_axis(axis, x.ndim)
    return real_fn(_resize(x, n, axis), axis, norm)


def dct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002
    """The type-2 DCT of `x` along `axis`, as JAX's `jax.scipy.fft.dct`: `n` pads or
    truncates first; `norm` None/'backward' or 'ortho'."""
    return _one_axis("dct", _dct_real, x, type, n, axis, norm)


def _dct_real(x, axis, norm):
    size = x.shape[axis]
    evens = lax.slice_in_dim(x, None, None, 2, axis)
    odds_reversed = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    spectrum = jnp.fft.fft(jnp.concatenate([evens, odds_reversed], axis), axis=axis)
    k = _along(axis, x.ndim, jnp.arange(size, dtype=jnp.real(spectrum).dtype))
    out = 2 * jnp.real(spectrum * _twiddle(size, k))
    return _ortho(out, axis) if norm == "ortho" else out


def idct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002
    """The inverse of the type-2 DCT (a scaled type-3 DCT) of `x` along `axis`, as JAX's
    `jax.scipy.fft.idct`; `n` and `norm` as in `dct`."""
    return _one_axis("idct", _idct_real, x, type, n, axis, norm)


def _idct_real(x, axis, norm):
    size = x.shape[axis]
    x, = promote_dtypes_inexact(x)
    x = jnp.asarray(x)
    if norm != "ortho":
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    k = _along(axis, x.ndim, jnp.arange(size, dtype=x.dtype))
    w = _twiddle(size, k)
    v = jnp.real(jnp.fft.ifft(x.astype(w.dtype) / w * (2 * size), axis=axis))
    # undo the reordering: the first ceil(N/2) entries are the even samples, the rest the
    # odd ones reversed
    half = -(-size // 2)
    evens = lax.slice_in_dim(v, 0, half, 1, axis)
    odds = lax.rev(lax.slice_in_dim(v, half, size, 1, axis), (axis,))
    out = jnp.zeros(v.shape, v.dtype)
    every = [slice(None)] * v.ndim
    out = out.at[tuple(every[:axis] + [slice(None, None, 2)] + every[axis + 1:])].set(evens)
    return out.at[tuple(every[:axis] + [slice(1, None, 2)] + every[axis + 1:])].set(odds)


def _axes_and_sizes(x, s, axes):
    """The axes an n-d transform runs over and their target sizes (None: unchanged)."""
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ArgumentValueError(f"s must have at most x.ndim ({x.ndim}) elements, got "
                                     f"{len(s)}", hint="give at most one size per axis")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = tuple(canonicalize_axes(axes, x.ndim))
    sizes = [None] * len(axes) if s is None else list(s)
    return axes, sizes


def _nd(name, one, x, type, s, axes, norm):  # noqa: A002
    x = _check(name, x, type, norm)
    if jnp.iscomplexobj(x):
        return _split_parts(lambda v: _nd(name, one, v, type, s, axes, norm), x)
    axes, sizes = _axes_and_sizes(x, s, axes)
    for axis, size in zip(axes, sizes):
        x = one(x, n=size, axis=axis, norm=norm)
    return x


def dctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """The type-2 DCT over several axes, as JAX's `jax.scipy.fft.dctn`: `axes` (default
    all, or the last len(s)), `s` the sizes to pad / truncate them to, `norm` as in
    `dct`."""
    return _nd("dctn", dct, x, type, s, axes, norm)


def idctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """The inverse type-2 DCT over several axes, as JAX's `jax.scipy.fft.idctn`;
    arguments as in `dctn`."""
    return _nd("idctn", idct, x, type, s, axes, norm)
