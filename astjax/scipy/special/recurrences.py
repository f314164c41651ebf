"""Functions of integer order computed by three-term recurrences, as JAX 0.10.2 computes
them: `bessel_jn` (Bessel functions of the first kind J_0 .. J_v) and `sph_harm_y`
(spherical harmonics through the normalized associated Legendre functions).

`bessel_jn` is Miller's backward recurrence (Zhang & Jin, *Computation of Special
Functions*, BJNDD): from f_(n+1) = 0, f_n = 1e-16 at n = `n_iter` down to f_0 by
f_(k-1) = 2k f_k / z - f_(k+1), then normalized by J_0 + 2 J_2 + 2 J_4 + ... = 1. The
start 1e-16 overflows float32 for small |z| (below about 9 with the default 50 steps),
where the result is NaN, as JAX's: use float64 or fewer steps there; z = 0 is NaN too.

`sph_harm_y` evaluates P_n^|m|(cos theta), normalized so that the harmonics are
orthonormal on the sphere (with the Condon-Shortley phase): the diagonal
P_m^m = (-1)^m sqrt((2m + 1)!! / (4 pi (2m)!!)) sin^m(theta) as a running product, then
upward in the degree, P_(l)^m = d0 x P_(l-1)^m - d1 P_(l-2)^m. JAX tabulates every
(order, degree) up to `n_max` and indexes the table with `mode="clip"`; here each element
runs its own recurrence to its clipped degree, the same numbers without the table.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from ...errors import ArgumentValueError, ConcretizationError, TracerArrayConversionError
from ...numpy.ufuncs import promote_args_inexact
from ...numpy.util import library_jit

__all__ = ["bessel_jn", "sph_harm_y"]


def _static_int(value, convert, what):
    if isinstance(value, core.Tracer):
        if value.known is not None:  # a constant staged under jit: its value is known
            return convert(np.asarray(value.known).item())
        raise ConcretizationError(
            f"{what} must be a concrete (static) integer, got a staged value",
            hint="pass a Python int (mark it static under jit)")
    return convert(value)


@library_jit(static_argnames=("v", "n_iter"))
def bessel_jn(z, *, v, n_iter=50):
    """Bessel functions of the first kind J_0(z), ..., J_v(z) of integer order and real
    argument, by Miller's backward recurrence from order `n_iter`.

    As JAX 0.10.2's: NaN at z = 0, and NaN in float32 for small |z| (the recurrence
    overflows before it is normalized); `n_iter` must exceed v and grow with |z|.

    Args:
        z: real array or scalar.
        v: the highest order, a static integer.
        n_iter: the starting order of the recurrence, a static integer.

    Returns:
        An array of shape `(v + 1, *z.shape)` (orders along the first axis), of `z`'s
        floating dtype.

    Example:
        >>> import astjax.scipy.special as sp
        >>> sp.bessel_jn(10.0, v=1)
        Array([-0.24593572,  0.04347268], dtype=float32)
    """
    [z] = promote_args_inexact("bessel_jn", jnp.asarray(z))
    if jnp.iscomplexobj(z):
        raise ArgumentValueError("complex input not supported.")
    v = _static_int(v, operator.index, "Argument v of bessel_jn")
    n_iter = _static_int(n_iter, int, "Argument n_iter of bessel_jn")
    dt = core.get_aval(z).dtype

    def step(carry, k):
        f0, f1, norm = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        norm = jnp.where(jnp.fmod(k, 2.0) == 0, norm + 2.0 * f, norm)
        return (f1, f, norm), f
    init = (jnp.zeros_like(z), jnp.full_like(z, 1e-16), jnp.zeros_like(z))
    (_, _, norm), fs = lax.scan(step, init, jnp.arange(n_iter + 1, dtype=dt), reverse=True)
    return fs[:v + 1] / (norm - fs[0])

# ------------------------------------------------------------------ spherical harmonics


def _legendre_normalized(deg, order, x, n_max):
    """P_deg^order(x) normalized (orthonormal harmonics, Condon-Shortley phase), for
    0 <= deg, order <= n_max elementwise; 0 where order > deg."""
    dt = core.get_aval(x).dtype
    deg_f, m = deg.astype(dt), order.astype(dt)
    sin_t = jnp.sqrt(1.0 - x * x)

    def diagonal(i, carry):
        coef, power = carry
        a = lax.convert_element_type(i, dt)
        on = a <= m
        return (jnp.where(on, coef * -jnp.sqrt(1.0 + 0.5 / a), coef),
                jnp.where(on, power * sin_t, power))
    one = jnp.ones_like(x)
    coef, power = lax.fori_loop(1, n_max + 1, diagonal, (one, one))
    p_mm = (0.5 / math.sqrt(math.pi)) * (coef * power)

    def upward(i, carry):
        p2, p1 = carry  # P_(l-2)^m, P_(l-1)^m
        l = lax.convert_element_type(i, dt)
        on = (l > m) & (l <= deg_f)
        # the order where this step is skipped is 0, so that its coefficients stay
        # finite (0 * inf in the cotangent of the step not taken would be NaN)
        m_on = jnp.where(on, m, jnp.zeros_like(m))
        c0, c1, c3 = l * l, m_on * m_on, (l - 1.0) * (l - 1.0)
        d0 = jnp.sqrt((4.0 * c0 - 1.0) / (c0 - c1))
        d1 = jnp.sqrt(((2.0 * l + 1.0) * (c3 - c1)) / ((2.0 * l - 3.0) * (c0 - c1)))
        first = l == m + 1.0  # P_(m+1)^m = sqrt(2m + 3) x P_m^m
        new = jnp.where(first, jnp.sqrt(2.0 * m + 3.0) * x * p1, d0 * (p1 * x) - d1 * p2)
        return jnp.where(on, p1, p2), jnp.where(on, new, p1)
    _, p = lax.fori_loop(1, n_max + 1, upward, (jnp.zeros_like(x), p_mm))
    return jnp.where(deg_f < m, jnp.zeros_like(x), p)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """Spherical harmonics Y_n^m(theta, phi) = N P_n^|m|(cos theta) e^(i m phi),
    orthonormal on the sphere (theta the colatitude, phi the longitude), as
    `scipy.special.sph_harm_y`; JAX's extra `n_max` bounds the degree.

    As JAX 0.10.2: `n` and `m` index a table of degrees and orders 0 .. n_max with
    clipping (a degree above `n_max` is computed as `n_max`; |m| > n gives 0); element
    i of the result uses theta[i] (the last theta when there are fewer); values for
    n < 0 or |m| > n are not meaningful. Negative orders are (-1)^m conj(Y_n^|m|).

    Args:
        n: integer array of degrees (at least 1-D).
        m: integer array of orders, broadcast with `n`.
        theta: the colatitudes in [0, pi] (a scalar is a 1-element array).
        phi: the longitudes in [0, 2 pi].
        diff_n: not supported (a NotImplementedError, as in JAX).
        n_max: the largest degree, a static integer (default `max(n)`, which needs a
            concrete `n`).

    Returns:
        A complex array, one harmonic per element of `n`.

    Example:
        >>> import astjax.numpy as jnp, astjax.scipy.special as sp
        >>> sp.sph_harm_y(jnp.array([1]), jnp.array([1]), 0.3, 0.2)
        Array([-0.10006527-0.02028423j], dtype=complex64)
    """
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported "
            "(nor by JAX)")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        if isinstance(n, core.Tracer) and n.known is None:
            raise TracerArrayConversionError(
                "sph_harm_y needs n_max when n is a staged value (max(n) is not static)",
                hint="pass n_max=<the largest degree> as a Python int")
        n_max = np.max(np.asarray(n.known if isinstance(n, core.Tracer) else n))
    n_max = _static_int(
        n_max, int, "The `n_max` argument of `jnp.scipy.special.sph_harm` (to use it "
        "within transformations)")
    n, m, theta, phi = jnp.asarray(n), jnp.asarray(m), jnp.asarray(theta), jnp.asarray(phi)
    x = jnp.cos(theta)
    [x] = promote_args_inexact("sph_harm_y", x)
    order, deg, pos = jnp.broadcast_arrays(jnp.clip(jnp.abs(m), 0, n_max),
                                           jnp.clip(n, 0, n_max),
                                           jnp.minimum(jnp.arange(len(n)), len(x) - 1))
    p = _legendre_normalized(deg, order, x[pos], n_max)
    angle = jnp.abs(m) * phi
    y = lax.complex(p * jnp.cos(angle), p * jnp.sin(angle))
    return jnp.where(m < 0, (-1.0) ** jnp.abs(m) * jnp.conjugate(y), y)
