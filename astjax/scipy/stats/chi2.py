"""The chi-squared distribution, as `scipy.stats.chi2` (`logpdf`, `pdf`)."""
from __future__ import annotations

import math

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """(k/2 - 1) log y - y/2 - (k/2) log 2 - log Γ(k/2) - log(scale), y >= 0."""
    x, df, loc, scale = promote(x, df, loc, scale)
    y = (x - loc) / scale
    k2 = 0.5 * df
    value = (special.xlogy(k2 - 1.0, y) - 0.5 * y - k2 * math.log(2.0)
             - special.gammaln(k2) - jnp.log(scale))
    return jnp.where(y < 0, -jnp.inf, value)


def pdf(x, df, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, df, loc, scale))
