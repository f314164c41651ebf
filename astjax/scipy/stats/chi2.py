"""The chi-squared distribution, as `scipy.stats.chi2` (`logpdf`, `pdf`, `cdf`,
`logcdf`, `sf`, `logsf`)."""
from __future__ import annotations

import numpy as np

from ... import lax as _lax
from ... import numpy as jnp
from ...numpy.ufuncs import _lax_const
from .. import special
from ._util import clamp as _clamp, promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, df, loc=0, scale=1):
    """(k/2 - 1) log y - y/2 - (k/2) log 2 - log Γ(k/2) - log(scale), y = (x - loc) /
    scale, for x >= loc (JAX's expression: NaN where y or scale is negative)."""
    x, df, loc, scale = promote(x, df, loc, scale)
    one, two = _lax_const(x, 1), _lax_const(x, 2)
    y = _lax.div(_lax.sub(x, loc), scale)
    k2 = _lax.div(df, two)
    kernel = _lax.sub(_lax.mul(_lax.sub(k2, one), _lax.log(y)), _lax.div(y, two))
    norm = _lax.neg(_lax.add(_lax.lgamma(k2), _lax.div(_lax.mul(_lax.log(two), df), two)))
    return jnp.where(_lax.lt(x, loc), -np.inf, _lax.add(_lax.sub(norm, _lax.log(scale)), kernel))


def pdf(x, df, loc=0, scale=1):
    """The density."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _half(x, df, loc, scale):
    """(df / 2, (x - loc) / (2 scale) clamped at 0), after promotion: the chi-squared
    distribution is gamma(df / 2, scale 2)."""
    x, df, loc, scale = promote(x, df, loc, scale, consts=(0, 3))   # (2 of scale, as JAX's)
    return 0.5 * df, _clamp(0.0, (x - loc) / (2.0 * scale), jnp.inf)


def cdf(x, df, loc=0, scale=1):
    """P(df / 2, (x - loc) / (2 scale))."""
    return special.gammainc(*_half(x, df, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    """log of `cdf`."""
    return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """Q(df / 2, (x - loc) / (2 scale))."""
    return special.gammaincc(*_half(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """log of `sf`."""
    return jnp.log(sf(x, df, loc, scale))
