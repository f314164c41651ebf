"""The multinomial distribution, as `scipy.stats.multinomial` (`logpmf`, `pmf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """log n! + sum(x log p - log x!) over the last axis; -inf unless sum(x) == n.
    `x` and `n` must be integers (as in JAX)."""
    x, n, p = jnp.asarray(x), jnp.asarray(n), jnp.asarray(p)
    if not (jnp.issubdtype(x.dtype, jnp.integer) and jnp.issubdtype(n.dtype, jnp.integer)):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    dt = p.dtype if jnp.issubdtype(p.dtype, jnp.inexact) else jnp.result_type(float)
    p, x, n = p.astype(dt), x.astype(dt), n.astype(dt)
    value = special.gammaln(n + 1.0) + jnp.sum(special.xlogy(x, p) - special.gammaln(x + 1.0),
                                              axis=-1)
    return jnp.where(jnp.sum(x) == n, value, -jnp.inf)


def pmf(x, n, p):
    """The probability mass."""
    return jnp.exp(logpmf(x, n, p))
