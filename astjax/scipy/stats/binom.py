"""The binomial distribution, as `scipy.stats.binom` (`logpmf`, `pmf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """log C(n, y) + y log p + (n - y) log(1 - p) for 0 <= y <= n, y = k - loc."""
    k, n, p, loc = promote(k, n, p, loc, consts=())
    y = k - loc
    comb = special.gammaln(n + 1.0) - special.gammaln(y + 1.0) - special.gammaln(n - y + 1.0)
    value = comb + special.xlogy(y, p) + special.xlog1py(n - y, -p)
    return jnp.where((y < 0) | (y > n), -jnp.inf, value)


def pmf(k, n, p, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, n, p, loc))
