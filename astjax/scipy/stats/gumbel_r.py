"""The right-skewed Gumbel distribution, as `scipy.stats.gumbel_r`."""
from __future__ import annotations

from ... import numpy as jnp
from ..special import _log1mexp_rule as _log1mexp
from ._util import promote, standardize

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "ppf", "sf", "logsf"]


def logpdf(x, loc=0, scale=1):
    """-z - e^-z - log(scale)."""
    z, scale = standardize(x, loc, scale, consts=())
    return -z - jnp.exp(-z) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """log P(X <= x) = -e^-z."""
    z, _ = standardize(x, loc, scale, consts=())
    return -jnp.exp(-z)


def cdf(x, loc=0, scale=1):
    """P(X <= x) = exp(-e^-z)."""
    return jnp.exp(logcdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """P(X > x) = 1 - exp(-e^-z)."""
    z, _ = standardize(x, loc, scale)
    return -jnp.expm1(-jnp.exp(-z))


def logsf(x, loc=0, scale=1):
    """log P(X > x) = log1mexp(e^-z) (accurate where P is tiny, as JAX's); NaN for
    scale <= 0."""
    x, loc, scale = promote(x, loc, scale, consts=())
    log_sf = _log1mexp(jnp.exp((loc - x) / scale))
    return jnp.where(scale > 0, log_sf, jnp.nan)


def ppf(q, loc=0, scale=1):
    """loc - scale log(-log q) for q in (0, 1); NaN outside (at 0 and 1 too, as in JAX)."""
    q, loc, scale = promote(q, loc, scale, consts=())
    return jnp.where((q > 0) & (q < 1), loc - scale * jnp.log(-jnp.log(q)), jnp.nan)
