"""The Poisson distribution, as `scipy.stats.poisson` (`logpmf`, `pmf`, `cdf`,
`entropy`)."""
from __future__ import annotations

import math

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


def logpmf(k, mu, loc=0):
    """k log mu - log k! - mu at non-negative integers k (after `loc`), -inf elsewhere."""
    k, mu, loc = promote(k, mu, loc)
    x = k - loc
    value = special.xlogy(x, mu) - special.gammaln(x + 1.0) - mu
    return jnp.where((x < 0) | (x != jnp.floor(x)), -jnp.inf, value)


def pmf(k, mu, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(K <= k - loc): the regularized upper incomplete gamma Q(floor(k - loc) + 1, mu);
    0 below `loc`."""
    k, mu, loc = promote(k, mu, loc)
    x = k - loc
    return jnp.where(x < 0, 0.0, special.gammaincc(jnp.floor(x + 1.0), mu))


def _entropy_sum(mu, terms, upper):
    """-sum p log p over k < min(terms, ceil(upper)), for each of the flat `mu`."""
    k = jnp.arange(terms, dtype=mu.dtype)[:, None]
    p = jnp.where(k < jnp.ceil(upper), pmf(k, mu), 0.0)
    return jnp.sum(special.entr(p), axis=0)


def entropy(mu, loc=0):
    """The entropy -sum_k p(k) log p(k) (`loc` shifts the support only), as JAX
    computes it: 0 at mu = 0, the sum over k < mu + 20 (mu < 10) or
    k < mu + 10 sqrt(mu) + 20 (mu < 100), the asymptotic
    log(2 pi e mu) / 2 - 1 / (12 mu) above."""
    mu, loc = promote(mu, loc)
    flat = jnp.ravel(mu)
    small = _entropy_sum(flat, 35, flat + 20.0)
    medium = _entropy_sum(flat, 250, flat + 10.0 * jnp.sqrt(flat) + 20.0)
    large = 0.5 * jnp.log(2.0 * math.pi * math.e * flat) - 1.0 / (12.0 * flat)
    out = jnp.where(flat == 0, 0.0,
                    jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.reshape(out, jnp.shape(mu))
