"""The beta distribution, as `scipy.stats.beta` (`logpdf`, `pdf`, `cdf`, `logcdf`,
`sf`, `logsf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import clamp as _clamp, promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, b, loc=0, scale=1):
    """(a-1) log y + (b-1) log(1-y) - log B(a, b) - log(scale) for x in
    [loc, loc + scale], -inf outside; NaN unless a, b and scale are positive."""
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    y = (x - loc) / scale
    value = (special.xlogy(a - 1.0, y) + special.xlog1py(b - 1.0, -y)
             - special.betaln(a, b) - jnp.log(scale))
    value = jnp.where((x < loc) | (x > loc + scale), -jnp.inf, value)
    return jnp.where((a <= 0) | (b <= 0) | (scale <= 0), jnp.nan, value)


def pdf(x, a, b, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
    """(x - loc) / scale clamped into [0, 1], after promotion."""
    return _clamp(0.0, (x - loc) / scale, 1.0)


def cdf(x, a, b, loc=0, scale=1):
    """The regularized incomplete beta function I_y(a, b) of y = (x - loc) / scale
    clamped into [0, 1]."""
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    return special.betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """log of `cdf`."""
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """1 - cdf, as I_{1-y}(b, a) (no cancellation near the upper end)."""
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    return special.betainc(b, a, 1.0 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """log of `sf`."""
    return jnp.log(sf(x, a, b, loc, scale))
