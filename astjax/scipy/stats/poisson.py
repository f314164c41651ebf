"""The Poisson distribution, as `scipy.stats.poisson` (`logpmf`, `pmf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    """k log mu - log k! - mu at non-negative integers k (after `loc`), -inf elsewhere."""
    k, mu, loc = promote(k, mu, loc)
    x = k - loc
    value = special.xlogy(x, mu) - special.gammaln(x + 1.0) - mu
    return jnp.where((x < 0) | (x != jnp.floor(x)), -jnp.inf, value)


def pmf(k, mu, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, mu, loc))
