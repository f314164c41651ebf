"""The Cauchy distribution, as `scipy.stats.cauchy`."""
from __future__ import annotations

import math

from ... import numpy as jnp
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x, loc=0, scale=1):
    """log density: -log(pi scale (1 + z^2))."""
    x, loc, scale = promote(x, loc, scale)
    z = (x - loc) / scale
    return -jnp.log1p(z * z) - jnp.log(scale) - math.log(math.pi)


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x) = 1/2 + arctan(z) / pi."""
    x, loc, scale = promote(x, loc, scale)
    return 0.5 + jnp.arctan((x - loc) / scale) / math.pi


def logcdf(x, loc=0, scale=1):
    """log P(X <= x)."""
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """P(X > x) = cdf of the mirrored variable."""
    x, loc, scale = promote(x, loc, scale)
    return 0.5 - jnp.arctan((x - loc) / scale) / math.pi


def logsf(x, loc=0, scale=1):
    """log P(X > x)."""
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """The quantile: loc + scale tan(pi (q - 1/2))."""
    q, loc, scale = promote(q, loc, scale)
    return loc + scale * jnp.tan(math.pi * (q - 0.5))


def isf(q, loc=0, scale=1):
    """The inverse survival function: loc + scale tan(pi (1/2 - q))."""
    q, loc, scale = promote(q, loc, scale)
    return loc + scale * jnp.tan(math.pi * (0.5 - q))
