"""The uniform distribution on [loc, loc + scale], as `scipy.stats.uniform`."""
from __future__ import annotations

from ... import numpy as jnp
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """-log(scale) inside [loc, loc + scale], -inf outside."""
    x, loc, scale = promote(x, loc, scale, consts=())   # (no constant of x, as JAX's)
    inside = (x >= loc) & (x <= loc + scale)
    return jnp.where(inside, -jnp.log(scale), -jnp.inf)


def pdf(x, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x), clipped to [0, 1]."""
    x, loc, scale = promote(x, loc, scale, consts=None)   # (strong, as JAX's)
    return jnp.clip((x - loc) / scale, 0.0, 1.0)


def ppf(q, loc=0, scale=1):
    """loc + q scale for q in [0, 1]; NaN outside."""
    q, loc, scale = promote(q, loc, scale, consts=())
    return jnp.where((q >= 0) & (q <= 1), loc + q * scale, jnp.nan)
