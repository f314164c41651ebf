"""The von Mises distribution on the circle, as `scipy.stats.vonmises`."""
from __future__ import annotations

import math

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    """kappa (cos x - 1) - log(2 pi i0e(kappa)) for kappa > 0, NaN otherwise."""
    x, kappa = promote(x, kappa, consts=())   # (JAX's one constant is compared only)
    value = kappa * (jnp.cos(x) - 1.0) - jnp.log(2 * math.pi * special.i0e(kappa))
    return jnp.where(kappa > 0, value, jnp.nan)


def pdf(x, kappa):
    """The density."""
    return jnp.exp(logpdf(x, kappa))
