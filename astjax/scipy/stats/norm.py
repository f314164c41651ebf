"""The normal distribution `N(loc, scale**2)`: densities, distribution functions and
their inverses, as `scipy.stats.norm` (and `jax.scipy.stats.norm`)."""
from __future__ import annotations

import math

from ... import lax as _lax
from ... import numpy as jnp
from ...numpy.ufuncs import _lax_const, promote_args_inexact as _promote_args_inexact
from .. import special
from ._util import promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x, loc=0, scale=1):
    """log N(x; loc, scale**2) (a function of scale**2, so a negative scale acts as
    its absolute value, as in JAX)."""
    x, loc, scale = _promote_args_inexact("norm.logpdf", x, loc, scale)
    # JAX's expression, operation for operation (its derivative's rounding follows it):
    # (log(2 pi scale**2) + (x - loc)**2 / scale**2) / -2
    scale_sqrd = _lax.square(scale)
    log_normalizer = _lax.log(_lax.mul(_lax_const(x, 2 * math.pi), scale_sqrd))
    quadratic = _lax.div(_lax.square(_lax.sub(x, loc)), scale_sqrd)
    return _lax.div(_lax.add(log_normalizer, quadratic), _lax_const(x, -2))


def pdf(x, loc=0, scale=1):
    """The density of N(loc, scale**2) at `x`."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """P(X <= x)."""
    x, loc, scale = promote(x, loc, scale, consts=None)   # (strong, as JAX's)
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    """log P(X <= x), accurate far into the lower tail."""
    x, loc, scale = promote(x, loc, scale)
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """P(X > x)."""
    x, loc, scale = promote(x, loc, scale, consts=None)   # (strong, as JAX's)
    return special.ndtr((loc - x) / scale)


def logsf(x, loc=0, scale=1):
    """log P(X > x)."""
    x, loc, scale = promote(x, loc, scale)
    return special.log_ndtr((loc - x) / scale)


def ppf(q, loc=0, scale=1):
    """The quantile function: the x with cdf(x) = q, of the default float dtype (as
    JAX's: `q` itself must be float32 or float64, an integer `q` is a TypeError)."""
    return jnp.asarray(special.ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
    """The inverse survival function: the x with sf(x) = q (`ppf` of 1 - q)."""
    return ppf(_lax.sub(_lax_const(q, 1), q), loc, scale)
