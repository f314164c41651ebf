"""The beta-binomial distribution, as `scipy.stats.betabinom` (`logpmf`, `pmf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, a, b, loc=0):
    """log C(n, y) + log B(y + a, n - y + b) - log B(a, b) for y = floor(k) - loc in
    [0, n]; -inf outside; NaN for n < 0 or a, b <= 0."""
    # (JAX's constants are of y = floor(k) - loc: strong when k or loc is an array)
    k, n, a, b, loc = promote(k, n, a, b, loc, consts=(0, 4))
    y = jnp.floor(k) - loc
    comb = -jnp.log1p(n) - special.betaln(n - y + 1.0, y + 1.0)
    value = comb + (special.betaln(y + a, n - y + b) - special.betaln(a, b))  # (JAX's order)
    value = jnp.where((y == 0) & (n == 0), 0.0, value)
    value = jnp.where((y < -loc) | (y > n) | (y + a <= 0), -jnp.inf, value)
    return jnp.where((n < 0) | (a <= 0) | (b <= 0), jnp.nan, value)


def pmf(k, n, a, b, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, n, a, b, loc))
