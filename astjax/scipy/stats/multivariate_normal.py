"""The multivariate normal distribution, as `scipy.stats.multivariate_normal`
(`logpdf`, `pdf`); the covariance is factored by Cholesky."""
from __future__ import annotations

import math

from ... import numpy as jnp
from ..linalg import cholesky, solve_triangular
from ...numpy.operands import promote_dtypes_inexact as _promote_dtypes_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, mean, cov, allow_singular=None):
    """log N(x; mean, cov); `x` (..., n) against `mean` (n,) and `cov` (n, n), or
    scalars when `mean` is 0-d. `allow_singular=True` is not supported (as in JAX)."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    # (JAX's promotion: one inexact dtype, weak where every argument is, no broadcast)
    x, mean, cov = _promote_dtypes_inexact(x, mean, cov)
    if mean.ndim == 0:
        return -0.5 * jnp.square(x - mean) / cov - 0.5 * (jnp.log(2 * math.pi) + jnp.log(cov))
    n = mean.shape[-1]
    if cov.ndim == 0:   # a scalar covariance: cov times the identity
        d = x - mean
        return (-0.5 * jnp.einsum("...i,...i->...", d, d) / cov
                - n / 2 * (jnp.log(2 * math.pi) + jnp.log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes: cov must be "
                         f"(..., {n}, {n}) for a mean of shape {mean.shape}, got cov of shape "
                         f"{cov.shape}")
    lower = cholesky(cov, lower=True)
    diff = jnp.broadcast_to(x - mean, jnp.broadcast_shapes(x.shape, mean.shape))
    batch = jnp.broadcast_shapes(diff.shape[:-1], lower.shape[:-2])
    lower_b = jnp.broadcast_to(lower, batch + lower.shape[-2:])
    y = solve_triangular(lower_b, jnp.broadcast_to(diff, batch + (n,)), lower=True)
    log_det = jnp.sum(jnp.log(jnp.diagonal(lower, axis1=-2, axis2=-1)), axis=-1)
    # (JAX's order of the terms, its log(2 pi) in the working dtype)
    return (-0.5 * jnp.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * math.pi)
            - log_det)


def pdf(x, mean, cov):
    """The density: exp(logpdf)."""
    return jnp.exp(logpdf(x, mean, cov))
