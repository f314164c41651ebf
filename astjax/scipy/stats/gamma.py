"""The gamma distribution, as `scipy.stats.gamma` (`logpdf`, `pdf`, `cdf`, `logcdf`,
`sf`, `logsf`)."""
from __future__ import annotations

import numpy as np

from ... import lax as _lax
from ... import numpy as jnp
from ...numpy.ufuncs import _lax_const
from .. import special
from ._util import clamp as _clamp, promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, loc=0, scale=1):
    """(a - 1) log y - y - log Γ(a) - log(scale), y = (x - loc) / scale, for x >= loc;
    -inf elsewhere and for a NaN x (JAX's test is x >= loc)."""
    x, a, loc, scale = promote(x, a, loc, scale)
    ok = x >= loc
    one = _lax_const(x, 1)
    # JAX's expression, operation for operation (y = 1 off the support: finite gradients)
    y = jnp.where(ok, _lax.div(_lax.sub(x, loc), scale), one)
    log_linear = _lax.sub(special.xlogy(_lax.sub(a, one), y), y)
    return jnp.where(ok, _lax.sub(log_linear, _lax.add(special.gammaln(a), _lax.log(scale))),
                     -np.inf)


def pdf(x, a, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """The regularized lower incomplete gamma function P(a, y), y = (x - loc) / scale
    clamped at 0."""
    x, a, loc, scale = promote(x, a, loc, scale)
    return special.gammainc(a, _clamp(0.0, (x - loc) / scale, jnp.inf))


def logcdf(x, a, loc=0, scale=1):
    """log of `cdf`."""
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """The regularized upper incomplete gamma function Q(a, y); 1 below `loc`."""
    x, a, loc, scale = promote(x, a, loc, scale, consts=())
    y = (x - loc) / scale
    return jnp.where(y < 0, 1.0, special.gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    """log of `sf`."""
    return jnp.log(sf(x, a, loc, scale))
