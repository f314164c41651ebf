"""The scaled complementary error function `erfcx(x) = exp(x**2) erfc(x)`.

Below x = 2.5 the product itself is accurate (erfc is computed to full relative
precision and exp(x**2) loses only about x**2 ulps); above, where erfc underflows, the
continued fraction erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / ...))))
evaluated backwards from a fixed depth (`lax.fori_loop`). The derivative is the
closed form 2 x erfcx(x) - 2 / sqrt(pi), as JAX's `custom_jvp`.
"""
from __future__ import annotations

import math

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from ...custom_api import custom_jvp
from ...errors import ArgumentValueError
from .gamma_zeta import _inexact, _is_complex

__all__ = ["erfcx"]

_SPLIT = 2.5
_DEPTH = 80


def _erfcx_fraction(x):
    """The continued fraction for x >= _SPLIT, from depth _DEPTH down to 1."""
    dt = core.get_aval(x).dtype

    def level(i, t):
        k = lax.convert_element_type(_DEPTH - i, dt)
        return x + 0.5 * k / t
    t = lax.fori_loop(0, _DEPTH, level, x)
    return 1 / (math.sqrt(math.pi) * t)


@custom_jvp
def _erfcx(x):
    big = x >= _SPLIT
    frac = _erfcx_fraction(jnp.where(big, x, np.asarray(_SPLIT, core.get_aval(x).dtype)))
    xs = jnp.where(big, jnp.zeros_like(x), x)
    small = jnp.exp(xs * xs) * lax.erfc(xs)
    return jnp.where(big, frac, small)


def _erfcx_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _erfcx(x)
    return y, t * (2 * x * y - 2 / math.sqrt(math.pi))


_erfcx.defjvp(_erfcx_jvp)


def erfcx(x):
    """The scaled complementary error function `exp(x**2) * erfc(x)`, elementwise.

    Args:
        x: real array or scalar.

    Returns:
        An array of `x`'s shape, of a floating dtype (inf where exp(x**2) overflows for
        negative x, 0 at +inf).
    """
    [x] = _inexact("erfcx", x)
    if _is_complex(x):
        raise ArgumentValueError("erfcx does not support complex-valued inputs.")
    return _erfcx(x)
