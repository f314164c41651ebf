"""The Poisson distribution, as `scipy.stats.poisson` (`logpmf`, `pmf`, `cdf`,
`entropy`)."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...numpy.arraylike import check_arraylike as _check_arraylike
from ...numpy.operands import promote_args_inexact as _promote_args_inexact
from ...numpy.operands import promote_dtypes_inexact as _promote_dtypes_inexact
from ...numpy.ufuncs import _lax_const
from ...numpy.util import library_jit as _library_jit
from .. import special
from ._util import promote

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


def logpmf(k, mu, loc=0):
    """x log mu - log x! - mu for x = k - loc; -inf where x < 0 or k itself (as JAX's,
    not x) is not an integer."""
    k, mu, loc = promote(k, mu, loc, consts=())
    x = k - loc
    value = special.xlogy(x, mu) - special.gammaln(x + 1.0) - mu
    return jnp.where((x < 0) | (jnp.round(k) != k), -jnp.inf, value)


def pmf(k, mu, loc=0):
    """The probability mass."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """P(X <= k): the regularized upper incomplete gamma function Q(floor(k - loc) + 1,
    mu); 0 below `loc`."""
    k, mu, loc = _promote_args_inexact("poisson.cdf", k, mu, loc)
    x = jnp.subtract(k, loc)
    zero = _lax_const(k, 0)   # (of k, as JAX's: weak for a 0-d weak k)
    return jnp.where(x < zero, zero, special.gammaincc(jnp.floor(x + 1), mu))


def _summed_entropy(mu, terms, bound):
    """-sum p log p over k = 0 .. terms-1, each mean's terms cut at k < bound (a
    column per mean)."""
    k = jnp.arange(terms, dtype=mu.dtype)[:, None]
    p = jnp.where(k < jnp.ceil(bound).astype(mu.dtype)[None, :], pmf(k, mu, 0), 0.0)
    return jnp.sum(special.entr(p), axis=0)


@_library_jit   # compiled, as JAX's (its digits are those of the fused program)
def entropy(mu, loc=0):
    """The Shannon entropy -sum_k p(k) log p(k) (`loc` shifts the distribution, which
    leaves the entropy unchanged): summed over k < mu + 20 for mu < 10, over
    k < mu + 10 sqrt(mu) + 20 for mu < 100, and Stirling's expansion
    log(2 pi e mu) / 2 - 1 / (12 mu) from 100 on; 0 at mu = 0, NaN below."""
    _check_arraylike("poisson.entropy", mu, loc)
    mu, loc = _promote_dtypes_inexact(mu, loc)
    shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    m = jnp.ravel(mu)
    small = _summed_entropy(m, 35, m + 20)
    medium = _summed_entropy(m, 250, m + 10 * jnp.sqrt(m) + 20)
    large = 0.5 * jnp.log(2 * np.pi * np.e * m) - 1.0 / (12 * m)
    h = jnp.where(m == 0, jnp.zeros_like(m),
                  jnp.where(m < 10, small, jnp.where(m < 100, medium, large)))
    return jnp.broadcast_to(jnp.reshape(h, mu.shape), shape)
