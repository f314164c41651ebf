"""The exponential distribution, as `scipy.stats.expon`."""
from __future__ import annotations

from ... import numpy as jnp
from ._util import promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """-z - log(scale) for x >= loc, -inf below `loc`."""
    x, loc, scale = promote(x, loc, scale, consts=())
    return jnp.where(x < loc, -jnp.inf, -(x - loc) / scale - jnp.log(scale))


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """1 - e^-z for z >= 0, else 0."""
    z, _ = standardize(x, loc, scale, consts=())
    return jnp.where(z < 0, 0.0, -jnp.expm1(-z))


def logcdf(x, loc=0, scale=1):
    """log P(X <= x)."""
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """e^-z for z >= 0, else 1."""
    z, _ = standardize(x, loc, scale, consts=())
    return jnp.where(z < 0, 1.0, jnp.exp(-z))


def logsf(x, loc=0, scale=1):
    """-z for z >= 0, else 0."""
    z, _ = standardize(x, loc, scale, consts=())
    return jnp.where(z < 0, 0.0, -z)


def ppf(q, loc=0, scale=1):
    """loc - scale log(1 - q) for q in [0, 1]; NaN outside."""
    q, loc, scale = promote(q, loc, scale, consts=())
    return jnp.where((q >= 0) & (q <= 1), loc - scale * jnp.log1p(-q), jnp.nan)
