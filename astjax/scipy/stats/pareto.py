"""The Pareto distribution, as `scipy.stats.pareto`."""
from __future__ import annotations

from ... import numpy as jnp
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _y(x, b, loc, scale):
    x, b, loc, scale = promote(x, b, loc, scale)
    return (x - loc) / scale, b, scale


def logpdf(x, b, loc=0, scale=1):
    """log b - log(scale) - (b + 1) log y for y = (x - loc) / scale >= 1."""
    y, b, scale = _y(x, b, loc, scale)
    return jnp.where(y < 1, -jnp.inf, jnp.log(b) - jnp.log(scale) - (b + 1.0) * jnp.log(y))


def pdf(x, b, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, b, loc, scale))


def logsf(x, b, loc=0, scale=1):
    """log P(X > x) = -b log y for y >= 1, else 0."""
    y, b, _ = _y(x, b, loc, scale)
    return jnp.where(y < 1, 0.0, -b * jnp.log(y))


def sf(x, b, loc=0, scale=1):
    """P(X > x)."""
    return jnp.exp(logsf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """P(X <= x) = 1 - y^-b for y >= 1, else 0."""
    return -jnp.expm1(logsf(x, b, loc, scale))


def logcdf(x, b, loc=0, scale=1):
    """log P(X <= x) = log1p(-y^-b) for y >= 1, else -inf (no constant of an argument:
    weak whenever the promoted arguments are, as JAX's)."""
    x, b, loc, scale = promote(x, b, loc, scale, consts=())
    y = (x - loc) / scale
    return jnp.where(x < loc + scale, -jnp.inf, jnp.log1p(-jnp.power(y, -b)))


def ppf(q, b, loc=0, scale=1):
    """loc + scale (1 - q)^(-1/b) for q in [0, 1]; NaN outside."""
    q, b, loc, scale = promote(q, b, loc, scale)
    value = loc + scale * jnp.power(1.0 - q, -1.0 / b)
    return jnp.where((q >= 0) & (q <= 1), value, jnp.nan)
