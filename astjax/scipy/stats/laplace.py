"""The Laplace (double exponential) distribution, as `scipy.stats.laplace`."""
from __future__ import annotations

import math

from ... import numpy as jnp
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, loc=0, scale=1):
    """log density: -|x - loc| / scale - log(2 scale)."""
    x, loc, scale = promote(x, loc, scale)
    return -jnp.abs((x - loc) / scale) - jnp.log(scale) - math.log(2.0)


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x): e^z / 2 below `loc`, 1 - e^-z / 2 above."""
    x, loc, scale = promote(x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(z < 0, 0.5 * jnp.exp(z), 1.0 - 0.5 * jnp.exp(-z))
