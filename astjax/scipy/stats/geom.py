"""The geometric distribution on {1, 2, ...}, as `scipy.stats.geom`."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    """(k - 1) log(1 - p) + log p for k >= 1 (after `loc`), -inf otherwise."""
    k, p, loc = promote(k, p, loc)
    x = k - loc
    return jnp.where(x <= 0, -jnp.inf, special.xlog1py(x - 1.0, -p) + jnp.log(p))


def pmf(k, p, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, p, loc))
