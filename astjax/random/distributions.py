"""More `astjax.random` samplers, each JAX's algorithm step for step (same bits for
the same key): cauchy, lognormal, pareto, rayleigh, wald, weibull_min, maxwell,
double_sided_maxwell, triangular, geometric, orthogonal, multivariate_normal."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentError, ArgumentValueError
from .. import numpy as jnp
from ..numpy import linalg
from ..numpy.operands import broadcast_shapes, promote_dtypes_inexact
from ..numpy.util import static_int
from . import prng as _r
from ..typing import Array, ArrayLike, DTypeLike

__all__ = ["cauchy", "lognormal", "pareto", "rayleigh", "wald", "weibull_min", "maxwell",
           "double_sided_maxwell", "triangular", "geometric", "orthogonal",
           "multivariate_normal"]


def _fdt(dtype, name):
    return _r._float_dtype(dtype, name)


def _pshape(*params):
    return broadcast_shapes(*[core.get_aval(p).shape if hasattr(p, "aval") else np.shape(p)
                              for p in params])


def _shape_or(shape, *params):
    return _pshape(*params) if shape is None else _r.shape_arg(shape)


def cauchy(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Samples from the standard Cauchy distribution.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        shape: output shape.
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "cauchy")
    u = _r.uniform(key, shape, dt, minval=float(dtypes.finfo(dt).eps), maxval=1.0)
    return lax.tan(lax.mul(np.asarray(np.pi, dt)[()], lax.sub(u, np.asarray(0.5, dt)[()])))


def lognormal(key: ArrayLike, sigma: ArrayLike = np.float32(1), shape: Sequence[int] | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Samples of `exp(sigma * N(0, 1))` (log-normal distribution).

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        sigma: scale of the underlying normal.
        shape: output shape (default: the broadcast shape of the parameters).
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "lognormal")
    shape = _shape_or(shape, sigma)
    sigma = lax.convert_element_type(sigma, dt)
    return lax.exp(jnp.multiply(_r.normal(key, shape, dt), sigma))


def pareto(key: ArrayLike, b: ArrayLike, shape: Sequence[int] | None = None,
           dtype: DTypeLike | None = None) -> Array:
    """Samples from the Pareto distribution with shape parameter `b` (minimum 1).

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        b: shape parameter.
        shape: output shape (default: the broadcast shape of the parameters).
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "pareto")
    shape = _shape_or(shape, b)
    b = lax.convert_element_type(b, dt)
    return lax.exp(jnp.true_divide(_r.exponential(key, shape, dt), b))


def rayleigh(key: ArrayLike, scale: ArrayLike, shape: Sequence[int] | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """Samples from the Rayleigh distribution with the given `scale`.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        scale: scale parameter.
        shape: output shape (default: the broadcast shape of the parameters).
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "rayleigh")
    shape = _shape_or(shape, scale)
    u = _r.uniform(key, shape, dt)
    scale = jnp.broadcast_to(jnp.asarray(scale).astype(dt), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), np.asarray(-2, dt)[()])))


def wald(key: ArrayLike, mean: ArrayLike, shape: Sequence[int] | None = None,
         dtype: DTypeLike | None = None) -> Array:
    """Samples from the Wald (inverse Gaussian) distribution with the given `mean`.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        mean: mean parameter.
        shape: output shape (default: the broadcast shape of the parameters).
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "wald")
    shape = _shape_or(shape, mean)
    k1, k2 = _r._split_pair(key)
    mean = jnp.broadcast_to(jnp.asarray(mean).astype(dt), shape)
    v = _r.normal(k1, shape, dt)
    z = _r.uniform(k2, shape, dt)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(jnp.add(jnp.multiply(jnp.multiply(4, mean), y), jnp.multiply(mean_sq, y_sq)))
    x = jnp.subtract(jnp.add(mean, jnp.true_divide(jnp.multiply(mean_sq, y), 2)),
                     jnp.multiply(jnp.true_divide(mean, 2), sqrt_term))
    return lax.select(lax.le(z, jnp.true_divide(mean, jnp.add(mean, x))), x,
                      jnp.true_divide(mean_sq, x))


def weibull_min(key: ArrayLike, scale: ArrayLike, concentration: ArrayLike,
                shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Samples from the Weibull distribution.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        scale: scale parameter.
        concentration: shape parameter.
        shape: output shape.
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "weibull_min")
    u = _r.uniform(key, _r.shape_arg(shape), dt, minval=0, maxval=1)
    return jnp.multiply(jnp.power(jnp.negative(jnp.log1p(jnp.negative(u))),
                                  jnp.true_divide(1.0, concentration)), scale)


def maxwell(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Samples from the Maxwell distribution (norm of a 3-d standard normal).

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        shape: output shape.
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "maxwell")
    return linalg.norm(_r.normal(key, _r.shape_arg(shape) + (3,), dt), axis=-1)


def double_sided_maxwell(key: ArrayLike, loc: ArrayLike, scale: ArrayLike,
                         shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> Array:
    """Samples of `loc + scale * s * m`, `m` Maxwell and `s` a random sign.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        loc, scale: location and scale.
        shape: batch shape, followed by the broadcast shape of `loc`, `scale`.
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of floating `dtype`.
    """
    dt = _fdt(dtype, "double_sided_maxwell")
    shape = _r.shape_arg(shape) + _pshape(loc, scale)
    mk, rk = _r._split_pair(key)
    m = maxwell(mk, shape, dt)
    sign = _r.rademacher(rk, shape, dt)
    return jnp.add(jnp.multiply(jnp.multiply(sign, m), scale), loc)


def triangular(key: ArrayLike, left: ArrayLike, mode: ArrayLike, right: ArrayLike,
               shape: Sequence[int] | None = None, dtype: DTypeLike | None = None) -> Array:
    """Samples from the triangular distribution on [left, right] peaking at `mode`.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        left, mode, right: the distribution's corners.
        shape: output shape (default: the broadcast shape of the parameters).
        dtype: a floating dtype (default float32, float64 under x64).

    Returns:
        An array of `shape` and `dtype`.
    """
    dt = _fdt(dtype, "triangular")
    shape = _shape_or(shape, left, mode, right)
    left, right, mode = (jnp.broadcast_to(lax.convert_element_type(v, dt), shape)
                         for v in (left, right, mode))
    fc = jnp.true_divide(jnp.subtract(mode, left), jnp.subtract(right, left))
    u = _r.uniform(key, shape, dt)
    out1 = jnp.add(left, lax.sqrt(jnp.multiply(jnp.multiply(u, jnp.subtract(right, left)),
                                               jnp.subtract(mode, left))))
    out2 = jnp.subtract(right, lax.sqrt(jnp.multiply(jnp.multiply(
        jnp.subtract(1, u), jnp.subtract(right, left)), jnp.subtract(right, mode))))
    return lax.select(jnp.less(u, fc), out1, out2)


def geometric(key: ArrayLike, p: ArrayLike, shape: Sequence[int] | None = None,
              dtype: DTypeLike | None = None) -> Array:
    """Samples from the geometric distribution: trials up to the first success.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        p: success probability of each trial.
        shape: output shape (default: the broadcast shape of the parameters).
        dtype: an integer dtype (default int32).

    Returns:
        An integer array of `shape` (values >= 1).
    """
    dt = dtypes.canonicalize(dtypes.dtype(int) if dtype is None else dtypes.dtype(dtype))
    if not dtypes.is_int(dt):
        raise ArgumentValueError(f"dtype argument to `geometric` must be an int dtype, got {dt}",
                                 hint="pass an integer dtype such as jnp.int32")
    shape = _shape_or(shape, p)
    [p] = promote_dtypes_inexact(p)
    u = _r.uniform(key, shape, core.get_aval(p).dtype)
    u = jnp.where(jnp.equal(u, 0), 1, u)
    log_omp = jnp.broadcast_to(lax.log1p(lax.neg(p)), shape)
    g = jnp.add(lax.floor(lax.div(lax.log(u), log_omp)), 1)
    return g.astype(dt)


def orthogonal(key: ArrayLike, n: int, shape: Sequence[int] = (), dtype: DTypeLike | None = None,
               m: int | None = None) -> Array:
    """Random orthogonal (or unitary) matrices, Haar distributed.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        n: the matrix size (rows).
        shape: batch shape.
        dtype: a floating or complex dtype.
        m: number of columns (default `n`).

    Returns:
        An array of shape `shape + (n, m)`.
    """
    dt = _fdt(dtype, "orthogonal", ) if dtype is None or not dtypes.issubdtype(
        dtypes.dtype(dtype), np.complexfloating) else dtypes.canonicalize(dtypes.dtype(dtype))
    n = static_int(n, "random.orthogonal's n")   # (JAX: TypeError for 2.5, not 2)
    m = n if m is None else static_int(m, "random.orthogonal's m")
    shape = _r.shape_arg(shape)
    z = _r.normal(key, (*shape, max(n, m), min(n, m)), dt)
    q, r = linalg.qr(z)
    d = linalg.diagonal(r)
    x = jnp.multiply(q, jnp.expand_dims(jnp.sign(d), -2))
    return jnp.swapaxes(x, -1, -2) if n < m else x


_MVN_HINT = "mean is (..., n) and cov (..., n, n): one n x n covariance per mean vector"


def multivariate_normal(key: ArrayLike, mean: ArrayLike, cov: ArrayLike,
                        shape: Sequence[int] | None = None, dtype: DTypeLike | None = None,
                        method: str = 'cholesky') -> Array:
    """Samples from a multivariate normal with `mean` and covariance `cov`.

    Args:
        key: a PRNG key (typed, from `random.key`, or raw uint32, from `random.PRNGKey`).
        mean: array of shape `(..., n)`.
        cov: array of shape `(..., n, n)`.
        shape: batch shape (default: the broadcast batch shape of `mean` and `cov`).
        dtype: a floating dtype (default float32, float64 under x64).
        method: factorization of `cov`: 'cholesky', 'eigh' or 'svd'.

    Returns:
        An array of shape `shape + (n,)`.
    """
    if method not in ("svd", "eigh", "cholesky"):
        raise ArgumentValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dt = _fdt(dtype, "multivariate_normal")
    mean = lax.convert_element_type(jnp.asarray(mean), dt)
    cov = lax.convert_element_type(jnp.asarray(cov), dt)
    ms, cs = core.get_aval(mean).shape, core.get_aval(cov).shape
    for name, sh, rank in (("mean", ms, 1), ("cov", cs, 2)):   # (JAX's ValueErrors)
        if len(sh) < rank:
            raise ArgumentValueError(f"multivariate_normal requires {name}.ndim >= {rank}, "
                                     f"got {name}.ndim == {len(sh)}", hint=_MVN_HINT)
    if cs[-2:] != (ms[-1], ms[-1]):
        raise ArgumentValueError(f"multivariate_normal requires cov.shape == (..., n, n) for "
                                 f"n={ms[-1]}, but got cov.shape == {cs}.", hint=_MVN_HINT)
    shape = broadcast_shapes(ms[:-1], cs[:-2]) if shape is None else _r.shape_arg(shape)
    if method == "svd":
        u, s, _ = linalg.svd(cov)
        factor = jnp.multiply(u, jnp.sqrt(s[..., None, :]))
    elif method == "eigh":
        w, v = linalg.eigh(cov)
        factor = jnp.multiply(v, jnp.sqrt(w[..., None, :]))
    else:
        factor = linalg.cholesky(cov)
    z = _r.normal(key, shape + ms[-1:], dt)
    return jnp.add(mean, jnp.einsum("...ij,...j->...i", factor, z))
