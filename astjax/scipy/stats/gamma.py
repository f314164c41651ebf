"""The gamma distribution, as `scipy.stats.gamma` (`logpdf`, `pdf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, a, loc=0, scale=1):
    """(a - 1) log y - y - log Γ(a) - log(scale), y = (x - loc) / scale >= 0."""
    x, a, loc, scale = promote(x, a, loc, scale)
    y = (x - loc) / scale
    value = special.xlogy(a - 1.0, y) - y - special.gammaln(a) - jnp.log(scale)
    return jnp.where(y < 0, -jnp.inf, value)


def pdf(x, a, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, a, loc, scale))
