"""The normal distribution truncated to `[a, b]` (in standard deviations from `loc`),
as `scipy.stats.truncnorm` (and `jax.scipy.stats.truncnorm`): densities and
distribution functions, computed in log space from the Gaussian mass of the interval
so that intervals far in a tail keep their precision."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from .. import special
from . import norm
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _log_sub(x, y):
    """log(exp(x) - exp(y)) for x >= y (-inf when both are -inf)."""
    return special.logsumexp(jnp.stack([x, y]), axis=0,
                             b=jnp.stack([jnp.ones_like(x), -jnp.ones_like(y)]))


def _log_mass(a, b):
    """log P(a <= Z <= b) for a standard normal Z: a tail interval is measured on the
    side where its probabilities are small (mirrored when it lies right of zero), an
    interval around zero through its two tails."""
    a, b = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(b))
    right = a > 0
    lo, hi = jnp.where(right, -b, a), jnp.where(right, -a, b)
    tail = _log_sub(special.log_ndtr(hi), special.log_ndtr(lo))
    central = jnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return jnp.where((b <= 0) | right, tail, central)


def logpdf(x, a, b, loc=0, scale=1):
    """log density: the normal's, renormalised by the mass of `[a, b]`; -inf outside
    the interval, NaN when `a >= b`."""
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    z = (x - loc) / scale
    out = jnp.where((z < a) | (z > b), -np.inf, norm.logpdf(x, loc, scale) - _log_mass(a, b))
    return jnp.where(a >= b, np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
    """The density at `x`."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """log P(X <= x): 0 above `b`, -inf below `a`; near 1 it is computed from the
    survival function (no cancellation)."""
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    z = (x - loc) / scale
    total = _log_mass(a, b)
    below, above = _log_mass(a, z) - total, _log_mass(z, b) - total
    out = jnp.select([z >= b, z <= a, below > -0.1, z > a],
                     [0., -np.inf, jnp.log1p(-jnp.exp(above)), below])
    return jnp.where(a >= b, np.nan, out)


def cdf(x, a, b, loc=0, scale=1):
    """P(X <= x)."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """log P(X > x): the log cdf of the mirrored distribution at `-x`."""
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


def sf(x, a, b, loc=0, scale=1):
    """P(X > x)."""
    return jnp.exp(logsf(x, a, b, loc, scale))
