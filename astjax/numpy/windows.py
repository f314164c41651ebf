"""Window functions: `bartlett`, `blackman`, `hamming`, `hanning`, `kaiser` -- JAX's
formulas in the default float dtype, op by op (their roundings, not NumPy's float64
values rounded once); `kaiser`'s beta may be staged."""
from __future__ import annotations

import numpy as np

from .. import dtypes, lax
from ..core import Tracer
from . import ufuncs as uf
from .logic import i0
from .util import static_int

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _window_points(M, name):
    """`M` (static) and the sample positions 0..M-1 in the default float dtype, or the
    window of ones JAX gives for M <= 1. The windows are then JAX's float32 (float64 under
    x64) formulas, op by op (not NumPy's float64 values rounded once)."""
    M = static_int(M, f"M argument of jnp.{name}") if isinstance(M, Tracer) else int(M)
    dt = dtypes.canonicalize(dtypes.dtype(float))
    return M, lax.full((M,), 1, dt) if M <= 1 else lax.iota(dt, M)


def _cos_terms(n, M, *coeffs):
    """sum_k (-1)^k c_k cos(2 pi k n / (M - 1)), as JAX writes the cosine windows."""
    out = coeffs[0]
    for k, c in enumerate(coeffs[1:], 1):
        term = uf.multiply(c, uf.cos(uf.true_divide(uf.multiply(2 * k * np.pi, n), M - 1)))
        out = uf.subtract(out, term) if k % 2 else uf.add(out, term)
    return out


def bartlett(M):
    """Return the Bartlett (triangular) window.
    Args: M: number of points.
    Returns: 1-D float Array.
    Vs NumPy: `M` must be static; float32 unless x64."""
    M, n = _window_points(M, "bartlett")
    if M <= 1:
        return n
    return uf.subtract(1, uf.true_divide(uf.absolute(uf.subtract(uf.add(uf.multiply(2, n), 1),
                                                                 M)), M - 1))


def blackman(M):
    """Return the Blackman window.
    Args: M: number of points.
    Returns: 1-D float Array.
    Vs NumPy: `M` must be static; float32 unless x64."""
    M, n = _window_points(M, "blackman")
    return n if M <= 1 else _cos_terms(n, M, 0.42, 0.5, 0.08)


def hamming(M):
    """Return the Hamming window.
    Args: M: number of points.
    Returns: 1-D float Array.
    Vs NumPy: `M` must be static; float32 unless x64."""
    M, n = _window_points(M, "hamming")
    return n if M <= 1 else _cos_terms(n, M, 0.54, 0.46)


def hanning(M):
    """Return the Hann window.
    Args: M: number of points.
    Returns: 1-D float Array.
    Vs NumPy: `M` must be static; float32 unless x64."""
    M, n = _window_points(M, "hanning")
    return n if M <= 1 else uf.multiply(0.5, _cos_terms(n, M, 1, 1))


def kaiser(M, beta):
    """Return the Kaiser window with shape parameter `beta`.
    Args: M: number of points; beta: float (may be staged).
    Returns: 1-D float Array.
    Vs NumPy: `M` must be static; float32 unless x64."""
    M, n = _window_points(M, "kaiser")
    if M <= 1:
        return n
    alpha = 0.5 * (M - 1)
    r = uf.power(uf.true_divide(uf.subtract(n, alpha), alpha), 2)
    return uf.true_divide(i0(uf.multiply(beta, uf.sqrt(uf.subtract(1, r)))), i0(beta))
