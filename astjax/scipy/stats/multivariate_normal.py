"""The multivariate normal distribution, as `scipy.stats.multivariate_normal`
(`logpdf`, `pdf`); the covariance is factored by Cholesky."""
from __future__ import annotations

import math

from ... import numpy as jnp
from ..linalg import cholesky, solve_triangular
from ._util import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, mean, cov, allow_singular=None):
    """log N(x; mean, cov); `x` (..., n) against `mean` (n,) and `cov` (n, n), or
    scalars when `mean` is 0-d. `allow_singular=True` is not supported (as in JAX)."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = (jnp.asarray(a) for a in (x, mean, cov))
    dt = jnp.result_type(x, mean, cov, float)
    x, mean, cov = (a.astype(dt) for a in (x, mean, cov))
    if mean.ndim == 0:
        d = x - mean
        return -0.5 * d * d / cov - 0.5 * (math.log(2 * math.pi) + jnp.log(cov))
    n = mean.shape[-1]
    if cov.ndim < 2:
        raise ValueError("multivariate_normal.logpdf got incompatible shapes: cov must be "
                         f"2-D for a {mean.ndim}-D mean, got cov of shape {cov.shape}")
    lower = cholesky(cov, lower=True)
    diff = jnp.broadcast_to(x - mean, jnp.broadcast_shapes(x.shape, mean.shape))
    batch = jnp.broadcast_shapes(diff.shape[:-1], lower.shape[:-2])
    lower_b = jnp.broadcast_to(lower, batch + lower.shape[-2:])
    y = solve_triangular(lower_b, jnp.broadcast_to(diff, batch + (n,)), lower=True)
    log_det = jnp.sum(jnp.log(jnp.diagonal(lower, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * jnp.sum(y * y, axis=-1) - log_det - 0.5 * n * math.log(2 * math.pi)


def pdf(x, mean, cov):
    """The density: exp(logpdf)."""
    return jnp.exp(logpdf(x, mean, cov))
