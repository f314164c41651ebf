"""`random_gamma_p`: Gamma(a) samples (or their logs) for every element of `a`, as JAX's
`jax.random.random_gamma_p` -- the primitive `random.gamma`, `loggamma`, `beta`,
`dirichlet` and the samplers built on them bind.

    c:f32[3] = random_gamma[log_space=False] a b      # a: the key data, b: alpha

Operands: the key data, `uint32[*kb, 2]`, and `a`, floating of shape `(*kb, *rest)`: each
of the `kb` keys is split into `prod(rest)` keys, one per element, in JAX's layout (the
`jax_threefry_partitionable` flag), and each element drawn by Marsaglia and Tsang's
rejection method with the same draws, in the same order, as JAX's sampler, so the same
key gives the same bits. Its rules, in one block:

- abstract eval: `a`'s shape and dtype; the key's leading axes must be `a`'s;
- lowering: the sampler, staged (JAX's `mlir.lower_fun`); the NumPy `impl` is that same
  program run eagerly (a NumPy copy could not match XLA's `log`/`erf_inv` bits);
- JVP: JAX's implicit reparameterization, `dx/da = -(dP/da) / (dP/dx)` with P the gamma
  CDF, times `a`'s tangent (divided by the sample in log space); the key has none;
- batching: both batch axes to the front (an unbatched key is broadcast, so every
  example splits the same key), as JAX's rule.
"""
from __future__ import annotations

import math

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, ShapeError
from .base import bdim_at_front, is_zero, lax_ops, lowering_from, register
from .threefry_draws import keys_of, normal, split_keys, uniform

__all__ = ["random_gamma_p", "random_gamma"]

_U32 = np.dtype(np.uint32)

random_gamma_p = core.new_primitive("random_gamma")


def _c(v, dt):
    return np.asarray(v, dt)[()]

# ------------------------------------------------------------------ the sampler


def _gamma_one(key, alpha, log_space):
    """One Gamma(alpha) sample (or its log) by Marsaglia and Tsang's method; alpha < 1
    is boosted to alpha + 1 and scaled back by U ** (1 / alpha) (in log space: plus
    log(U) / alpha, so tiny alphas do not underflow)."""
    L = lax_ops()
    dt = core.get_aval(alpha).dtype
    one, zero = _c(1, dt), _c(0, dt)
    boost_mask = L.ge(alpha, one)
    alpha_b = L.select(boost_mask, alpha, L.add(alpha, one))
    d = L.sub(alpha_b, _c(1. / 3., dt))
    c = L.div(_c(1. / 3., dt), L.sqrt(d))

    def rejected(state):
        _, xx, v3, u = state
        squeeze = L.ge(u, L.sub(one, L.mul(_c(0.0331, dt), L.mul(xx, xx))))
        log_test = L.ge(L.log(u), L.add(L.mul(xx, _c(0.5, dt)),
                                        L.mul(d, L.add(L.sub(one, v3), L.log(v3)))))
        return L.bitwise_and(squeeze, log_test)

    def propose(state):
        k, x_key, u_key = keys_of(state[0], 3)

        def next_v(s):
            k2, sub = keys_of(s[0], 2)
            x = normal(sub, dt)
            return k2, x, L.add(one, L.mul(x, c))
        _, x, v = L.while_loop(core.raw(lambda s: L.le(s[2], zero)), core.raw(next_v),
                               (x_key, zero, _c(-1, dt)))
        return k, L.mul(x, x), L.mul(L.mul(v, v), v), uniform(u_key, dt)

    key, subkey = keys_of(key, 2)
    _, _, v3, _ = L.while_loop(core.raw(rejected), core.raw(propose),
                               (key, zero, one, _c(2, dt)))
    if log_space:  # log(U) as -Exponential(): -log1p(-U)
        log_u = L.log1p(L.neg(uniform(subkey, dt)))
        log_boost = L.select(L.bitwise_or(boost_mask, L.eq(log_u, zero)), zero,
                             L.mul(log_u, L.div(one, alpha)))
        return L.add(L.add(L.log(d), L.log(v3)), log_boost)
    u = L.sub(one, uniform(subkey, dt))
    boost = L.select(boost_mask, one, L.pow(u, L.div(one, alpha)))
    return L.mul(L.mul(d, v3), boost)


def _sample(key, a, *, log_space):
    """The lowering: split each key per element of `a`, then one sampler per element."""
    L = lax_ops()
    ka, aa = core.get_aval(key), core.get_aval(a)
    nk = math.prod(ka.shape[:-1])
    n = math.prod(aa.shape[ka.ndim - 1:])
    if nk * n == 0:
        return L.full(aa.shape, 0, aa.dtype)
    keys = L.reshape(split_keys(L.reshape(key, (nk, 2)), n), (nk * n, 2))
    alphas = L.reshape(a, (nk * n,))
    samples = L.scan(core.raw(lambda c, x: (c, _gamma_one(x[0], x[1], log_space))), None,
                     (keys, alphas))[1]
    return L.reshape(samples, aa.shape)

# ------------------------------------------------------------------- the block


def _random_gamma_ae(key, a, *, log_space):
    if key.dtype != _U32 or key.shape[-1:] != (2,):
        raise DTypeError(f"random_gamma needs threefry key data (uint32[..., 2]), got "
                         f"{key.str_short()}")
    if not dtypes.is_float(a.dtype):
        raise DTypeError(f"random_gamma needs a floating alpha, got {a.str_short()}")
    if tuple(a.shape[:key.ndim - 1]) != tuple(key.shape[:-1]):
        raise ShapeError(f"random_gamma: the keys' shape {key.shape[:-1]} must lead alpha's "
                         f"shape {a.shape}")
    return ShapedArray(a.shape, a.dtype)


def _random_gamma_impl(key, a, *, log_space):
    return np.asarray(core.eager_backend(random_gamma_p, [key, a], {"log_space": log_space}))


def _sample_grad(a, x):
    """d x / d a for a sample x ~ Gamma(a) held at its quantile: -(dP/da) / (dP/dx),
    dP/dx the density x^(a-1) e^(-x) / Gamma(a); a sample 0 does not move."""
    L = lax_ops()
    log_density = L.sub(L.sub(L.mul(L.sub(a, _c(1, x.dtype)), L.log(x)), x), L.lgamma(a))
    grad = L.neg(L.div(L.igamma_grad_a(a, x), L.exp(log_density)))
    return L.select(L.eq(x, _c(0, x.dtype)), L.full_like(x, 0), grad)


def _random_gamma_jvp(primals, tangents, *, log_space):
    key, a = primals
    out = core.bind(random_gamma_p, key, a, log_space=log_space)
    if is_zero(tangents[1]):
        return out, core.Zero(core.get_aval(out))
    L = lax_ops()
    if log_space:  # d log(x) = dx / x, a sample rounded to 0 taken as the tiniest
        x = L.exp(out)
        x = L.select(L.eq(x, _c(0, x.dtype)), L.full_like(x, dtypes.finfo(x.dtype).tiny), x)
        grad = L.div(_sample_grad(a, x), x)
    else:
        grad = _sample_grad(a, out)
    return out, L.mul(tangents[1], grad)


def _random_gamma_batch(args, dims, *, log_space):
    key, a = args
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    key, a = bdim_at_front(key, dims[0], size), bdim_at_front(a, dims[1], size)
    return core.bind(random_gamma_p, key, a, log_space=log_space), 0


register(random_gamma_p, impl=_random_gamma_impl, abstract_eval=_random_gamma_ae,
         lowering=lowering_from(_sample), jvp=_random_gamma_jvp, batch=_random_gamma_batch)


def random_gamma(key, a, *, log_space=False):
    """Bind `random_gamma_p`: Gamma(a) samples (their logs if `log_space`), one per
    element of `a`, from threefry key data whose leading axes are `a`'s."""
    return core.bind(random_gamma_p, key, a, log_space=bool(log_space))
