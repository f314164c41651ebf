"""The Dirichlet distribution, as `scipy.stats.dirichlet` (`logpdf`, `pdf`).
Points run along axis 0 of `x`, which may omit the last coordinate."""
from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ...errors import JAXIndexError as _JAXIndexError
from ...numpy.operands import promote_dtypes_inexact as _promote_dtypes_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, alpha):
    """sum((alpha - 1) log x) - log B(alpha) on the simplex, -inf off it."""
    x, alpha = _promote_dtypes_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.ndim == 0:
        raise _JAXIndexError("dirichlet.logpdf: `x` must have at least one dimension (its "
                             "entries run along axis 0); got a 0-d x")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, 1.0 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
    log_beta = jnp.sum(special.gammaln(alpha)) - special.gammaln(jnp.sum(alpha))
    a = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))
    value = jnp.sum(special.xlogy(a - 1.0, x), axis=0) - log_beta
    # (JAX's test: every coordinate > 0, so a point on the simplex's boundary is -inf)
    on_simplex = jnp.all(x > 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1.0) < 1e-6)
    return jnp.where(on_simplex, value, -jnp.inf)


def pdf(x, alpha):
    """The density."""
    return jnp.exp(logpdf(x, alpha))

