"""The wrapped Cauchy distribution on [0, 2 pi], as `scipy.stats.wrapcauchy`."""
from __future__ import annotations

import math

from ... import numpy as jnp
from ._util import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
    """log((1 - c²) / (2 pi (1 + c² - 2 c cos x))) for 0 < c < 1 and x in [0, 2 pi]:
    -inf for x outside, NaN for c outside."""
    x, c = promote(x, c, consts=())   # (JAX's constants are compared only)
    value = jnp.log(1.0 - c * c) - math.log(2 * math.pi) - jnp.log(1.0 + c * c - 2.0 * c * jnp.cos(x))
    inside = jnp.where((x >= 0) & (x <= 2 * math.pi), value, -jnp.inf)
    return jnp.where((c > 0) & (c < 1), inside, jnp.nan)


def pdf(x, c):
    """The density."""
    return jnp.exp(logpdf(x, c))
