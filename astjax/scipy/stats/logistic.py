"""The logistic distribution, as `scipy.stats.logistic`."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def logpdf(x, loc=0, scale=1):
    """log density: -z - 2 log(1 + e^-z) - log(scale), z = (x - loc) / scale."""
    x, loc, scale = promote(x, loc, scale, consts=(0, 1, 2))   # (JAX's: weak if all 0-d)
    z = (x - loc) / scale
    return -z - 2.0 * jnp.logaddexp(0.0, -z) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x) = expit(z)."""
    x, loc, scale = promote(x, loc, scale, consts=())
    return special.expit((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """P(X > x) = expit(-z)."""
    x, loc, scale = promote(x, loc, scale, consts=())
    return special.expit((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    """The quantile: loc + scale * logit(q)."""
    q, loc, scale = promote(q, loc, scale)
    return loc + scale * special.logit(q)


def isf(q, loc=0, scale=1):
    """The inverse survival function: loc - scale * logit(q)."""
    q, loc, scale = promote(q, loc, scale)
    return loc - scale * special.logit(q)
