"""The Bernoulli distribution, as `scipy.stats.bernoulli`."""
from __future__ import annotations

from ... import lax as _lax, numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k, p, loc=0):
    """k log p + (1 - k) log(1 - p) for k in [0, 1] (after `loc`), -inf outside."""
    k, p, loc = promote(k, p, loc)
    k = k - loc
    value = special.xlogy(k, p) + special.xlog1py(1.0 - k, -p)
    return jnp.where((k < 0) | (k > 1), -jnp.inf, value)


def pmf(k, p, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """P(X <= k): 0 below 0, 1 - p on [0, 1), 1 from 1; NaN for p outside [0, 1]."""
    k, p = promote(k, p)
    value = jnp.where(k < 0, 0.0, jnp.where(k < 1, 1.0 - p, 1.0))
    return jnp.where((p < 0) | (p > 1) | jnp.isnan(k), jnp.nan, value)


def ppf(q, p):
    """The smallest k in {0, 1} with cdf(k) >= q; NaN outside the domain or for a NaN
    argument. Of the arguments' promoted dtype and weak type (`promote`)."""
    q, p = promote(q, p)
    zero, one = _lax.full_like(q, 0), _lax.full_like(q, 1)   # (q's dtype and weak type)
    bad = (jnp.isnan(q) | jnp.isnan(p) | _lax.lt(p, zero) | _lax.gt(p, one)
           | _lax.lt(q, zero) | _lax.gt(q, one))
    return jnp.where(bad, jnp.nan, jnp.where(_lax.le(q, _lax.sub(one, p)), zero, one))
