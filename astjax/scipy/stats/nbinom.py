"""The negative binomial distribution, as `scipy.stats.nbinom` (`logpmf`, `pmf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """log C(y + n - 1, y) + n log p + y log(1 - p) for y = k - loc >= 0."""
    k, n, p, loc = promote(k, n, p, loc)
    y = k - loc
    comb = special.gammaln(n + y) - special.gammaln(y + 1.0) - special.gammaln(n)
    value = comb + special.xlogy(n, p) + special.xlog1py(y, -p)
    return jnp.where(y < 0, -jnp.inf, value)


def pmf(k, n, p, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, n, p, loc))
