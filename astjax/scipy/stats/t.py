"""Student's t distribution, as `scipy.stats.t` (`logpdf`, `pdf`)."""
from __future__ import annotations

import math

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """log Γ((ν+1)/2) - log Γ(ν/2) - log(ν π)/2 - log(scale) - (ν+1)/2 log(1 + z²/ν)."""
    x, df, loc, scale = promote(x, df, loc, scale)
    z = (x - loc) / scale
    half = 0.5 * (df + 1.0)
    return (special.gammaln(half) - special.gammaln(0.5 * df)
            - 0.5 * jnp.log(df * math.pi) - jnp.log(scale) - half * jnp.log1p(z * z / df))


def pdf(x, df, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, df, loc, scale))
