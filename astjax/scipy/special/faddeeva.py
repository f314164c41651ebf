"""The Faddeeva function `wofz(z) = exp(-z**2) erfc(-i z)` (`erfcx` of complex input
is `wofz(i z)`, through `_wofz`).

In the upper half-plane, Weideman's rational expansion (SIAM J. Numer. Anal. 31, 1994):
with L = sqrt(N / sqrt(2)) and Z = (L + i z) / (L - i z),
    w(z) = 2 p(Z) / (L - i z)^2 + 1 / (sqrt(pi) (L - i z)),
where p is the degree-(N - 1) polynomial whose coefficients are Fourier coefficients of
exp(-t^2) (L^2 + t^2) on t = L tan(theta / 2) -- computed here once, with NumPy's FFT,
for N = 40 (about 2e-14 relative error against SciPy, where N = 32 gives 3e-13). The
lower half-plane follows from w(z) = 2 exp(-z^2) - w(-z). The derivative is the closed
form -2 z w(z) + 2 i / sqrt(pi), as JAX's `custom_jvp`.
"""
from __future__ import annotations

import math

import numpy as np

from ... import core, dtypes, lax
from ... import numpy as jnp
from ...custom_api import custom_jvp
from ...numpy.util import library_jit
from .gamma_zeta import _inexact

__all__ = ["wofz"]

_N = 40
_L = math.sqrt(_N / math.sqrt(2))


def _weideman_coefficients(n, ell):
    """The n coefficients of p, highest degree first (for Horner's rule)."""
    m = 2 * n
    theta = np.arange(-m + 1, m) * np.pi / m
    t = ell * np.tan(theta / 2)
    samples = np.concatenate([[0.0], np.exp(-t * t) * (ell * ell + t * t)])
    a = np.real(np.fft.fft(np.fft.fftshift(samples))) / (2 * m)
    return a[1:n + 1][::-1]


_COEFFS = _weideman_coefficients(_N, _L)


def _to_complex(z):
    """`z` as a complex array: complex64 for float32 and narrower, complex128 for
    float64 (the weak type kept)."""
    dt = core.get_aval(z).dtype
    if dtypes.issubdtype(dt, np.complexfloating):
        return z
    cdt = np.complex128 if dt == np.float64 else np.complex64
    return lax.convert_element_type(z, cdt)


def _w_upper(z):
    """w(z) for Im z >= 0."""
    cdt = core.get_aval(z).dtype
    iz = 1j * z
    denom = _L - iz
    big_z = (_L + iz) / denom
    p = jnp.zeros_like(z)
    for c in _COEFFS:
        p = p * big_z + np.asarray(c, cdt)
    return 2 * p / (denom * denom) + np.asarray(1 / math.sqrt(math.pi), cdt) / denom


@custom_jvp
def _wofz(z):
    upper = jnp.imag(z) >= 0
    w = _w_upper(jnp.where(upper, z, -z))
    return jnp.where(upper, w, 2 * jnp.exp(-z * z) - w)


def _wofz_jvp(primals, tangents):
    (z,), (t,) = primals, tangents
    w = _wofz(z)
    cdt = core.get_aval(z).dtype
    return w, t * (-2 * z * w + np.asarray(2j / math.sqrt(math.pi), cdt))


_wofz.defjvp(_wofz_jvp)


@library_jit
def wofz(z):
    """The Faddeeva function `exp(-z**2) * erfc(-1j * z)`, elementwise.

    Args:
        z: real or complex array or scalar (real input is promoted to complex).

    Returns:
        A complex array of `z`'s shape (complex64, or complex128 for 64-bit input).

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.wofz(1.0)
        Array(0.36787945+0.60715765j, dtype=complex64)
    """
    [z] = _inexact("wofz", z)
    return _wofz(_to_complex(z))

