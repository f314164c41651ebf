"""The generalized normal distribution, as `scipy.stats.gennorm` (`logpdf`, `pdf`,
`cdf`)."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, beta):
    """log(beta / 2) - log Γ(1/beta) - |x|^beta."""
    x, beta = promote(x, beta, consts=())
    return jnp.log(0.5 * beta) - special.gammaln(1.0 / beta) - jnp.abs(x) ** beta


def pdf(x, beta):
    """The density."""
    return jnp.exp(logpdf(x, beta))


def cdf(x, beta):
    """(1 + sign(x) P(1/beta, |x|^beta)) / 2."""
    x, beta = promote(x, beta, consts=())
    return 0.5 * (1.0 + jnp.sign(x) * special.gammainc(1.0 / beta, jnp.abs(x) ** beta))
