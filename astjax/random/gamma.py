"""The rejection samplers of `astjax.random`: gamma (Marsaglia-Tsang) and what is
built on it (loggamma, beta, dirichlet, chisquare, f, t, generalized_normal, ball),
poisson (Knuth below rate 10, Hormann's transformed rejection above), binomial
(inversion or BTRS) and multinomial (a scan of binomials).

Each follows JAX 0.10.2's algorithm with the same key splits and loop structure, so
the same key gives the same values; the samplers built on gamma run as JAX's jitted
bodies (`_beta`, `_f`, `_ball`, ...: one program taking the parameters as arguments),
so XLA rewrites their arithmetic (a chain of divisions, a power) as it does JAX's and
the samples round alike. Keys here are typed (`random.keys` wraps every
public function); binomial, multinomial and the gamma family draw through the key's
implementation, poisson from threefry2x32 keys only (JAX's own NotImplementedError for
the others). Gamma draws bind `random_gamma_p` (astjax/primitives/random_gamma.py: the
sampler -- for keys of another implementation, split and drawn by that
implementation's functions -- and JAX's implicit reparameterization derivative in the
shape parameter), so beta, dirichlet, chisquare, f, t and loggamma differentiate in
their parameters too.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import core, dtypes, lax
from ..codegen import runtime
from .. import numpy as jnp
from ..errors import ArgumentValueError, NotImplementedInAstjaxError
from ..extend.core import in_eager_transform
from ..numpy.operands import broadcast_shapes, promote_args_inexact
from ..numpy.util import library_jit
from ..primitives.random_gamma import random_gamma
from . import prng as _p
from . import key_array as _ka
from .impls import threefry_prng_impl
from ..typing import Array, ArrayLike, DTypeLike

__all__ = ["gamma", "loggamma", "beta", "dirichlet", "chisquare", "f", "t",
           "generalized_normal", "ball", "poisson", "binomial", "multinomial"]


def _keys(key, n):
    ks = _ka.split(key, (n,))
    return [ks[i] for i in range(n)]


def _c(v, dt):
    return np.asarray(v, dt)[()]


def _shape_of(x):
    return tuple(core.get_aval(x).shape) if hasattr(x, "aval") else np.shape(x)


def _as_arguments(*params):
    """The parameters as JAX's sampler sees them. `vmap(f)(x)` or `grad(f)(x)` outside
    `jit` runs each sampler of JAX as its own program, a constant parameter (`beta(k, a,
    2.0)`) one of its arguments; astjax compiles the whole function, where the constant
    would be a literal that XLA and LLVM fold into the sampler (its `log` rounded by the
    host's libm instead of XLA's CPU kernel: an ulp from JAX's sample). There each
    constant parameter is put on the device, so it reaches the program as an argument;
    under `jit` JAX's sampler sees the literal too, and it stays one."""
    if not in_eager_transform() or core.current_builder() is None:
        return params
    return tuple(_as_argument(p) for p in params)


def _as_argument(p):
    if isinstance(p, core.Tracer):
        if not isinstance(p._var, core.Literal):
            return p   # a value computed in the program
        return runtime.device_put(np.asarray(p._var.val, p.aval.dtype),
                                  weak_type=p.aval.weak_type)
    if isinstance(p, (bool, int, float, np.generic, np.ndarray)) and np.ndim(p) == 0:
        return runtime.device_put(p)
    return p

# ------------------------------------------------------------------------- gamma


@library_jit(static_argnums=(2, 3, 4))
def _gamma(key, a, shape, dtype, log_space):
    a = jnp.broadcast_to(lax.convert_element_type(a, dtype), shape)
    impl = None if key._impl is threefry_prng_impl else key._impl
    return random_gamma(_ka.data_of(key), a, log_space=log_space, impl=impl)


def _gamma_shape(name, shape, *params):
    ps = [_shape_of(p) for p in params]
    if shape is None:
        return tuple(broadcast_shapes(*ps)) if ps else ()
    shape = _p.shape_arg(shape)
    _p._check_shape(name, shape, *ps)
    return shape


def gamma(key: ArrayLike, a: ArrayLike, shape: Sequence[int] | None = None,
          dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Gamma(a) samples (unit scale)."""
    key = _ka.check_key(key, "gamma")
    dt = _p._float_dtype(dtype, "gamma")
    return _gamma(key, *_as_arguments(a), _gamma_shape("gamma", shape, a), dt, False)


def loggamma(key: ArrayLike, a: ArrayLike, shape: Sequence[int] | None = None,
             dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """The logs of Gamma(a) samples, accurate for small `a`."""
    key = _ka.check_key(key, "loggamma")
    dt = _p._float_dtype(dtype, "loggamma")
    return _gamma(key, *_as_arguments(a), _gamma_shape("loggamma", shape, a), dt, True)


def beta(key: ArrayLike, a: ArrayLike, b: ArrayLike, shape: Sequence[int] | None = None,
         dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Beta(a, b) samples."""
    key = _ka.check_key(key, "beta")
    dt = _p._float_dtype(dtype, "beta")
    return _beta(key, *_as_arguments(a, b), _gamma_shape("beta", shape, a, b), dt)


@library_jit(static_argnums=(3, 4))
def _beta(key, a, b, shape, dt):
    key_a, key_b = _p._split_pair(key)
    log_a = _gamma(key_a, a, shape, dt, True)
    log_b = _gamma(key_b, b, shape, dt, True)
    log_max = lax.max(log_a, log_b)
    ga, gb = jnp.exp(jnp.subtract(log_a, log_max)), jnp.exp(jnp.subtract(log_b, log_max))
    return jnp.true_divide(ga, jnp.add(ga, gb))


def dirichlet(key: ArrayLike, alpha: ArrayLike, shape: Sequence[int] | None = None,
              dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Dirichlet(alpha) samples over alpha's last axis."""
    key = _ka.check_key(key, "dirichlet")
    dt = _p._float_dtype(dtype, "dirichlet")
    ashape = _shape_of(alpha)
    if len(ashape) < 1:
        raise ArgumentValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                                 f"{len(ashape)}")
    if shape is None:
        shape = tuple(ashape[:-1])
    else:
        shape = _p.shape_arg(shape)
        _p._check_shape("dirichlet", shape, tuple(ashape[:-1]))
    return _dirichlet(key, *_as_arguments(alpha), shape + tuple(ashape[-1:]), dt)


@library_jit(static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dt):
    logs = _gamma(key, alpha, shape, dt, True)
    e = jnp.exp(jnp.subtract(logs, lax.stop_gradient(jnp.max(logs, axis=-1, keepdims=True))))
    return jnp.true_divide(e, jnp.sum(e, axis=-1, keepdims=True))


def chisquare(key: ArrayLike, df: ArrayLike, shape: Sequence[int] | None = None,
              dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Chi-square samples with `df` degrees of freedom."""
    key = _ka.check_key(key, "chisquare")
    dt = _p._float_dtype(dtype, "chisquare")
    return _chisquare(key, *_as_arguments(df), _gamma_shape("chisquare", shape, df), dt)


@library_jit(static_argnums=(2, 3))
def _chisquare(key, df, shape, dt):
    half = jnp.true_divide(lax.convert_element_type(df, dt), _c(2, dt))
    return jnp.multiply(jnp.exp(_gamma(key, half, shape, dt, True)), _c(2, dt))


def f(key: ArrayLike, dfnum: ArrayLike, dfden: ArrayLike, shape: Sequence[int] | None = None,
      dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """F-distribution samples with (dfnum, dfden) degrees of freedom."""
    key = _ka.check_key(key, "f")
    dt = _p._float_dtype(dtype, "f")
    return _f(key, *_as_arguments(dfnum, dfden), _gamma_shape("f", shape, dfnum, dfden), dt)


@library_jit(static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dt):
    dfnum, dfden = lax.convert_element_type(dfnum, dt), lax.convert_element_type(dfden, dt)
    key_dfd, key_dfn = _p._split_pair(key)
    num = jnp.true_divide(_chisquare(key_dfn, dfnum, shape, dt), dfnum)
    den = jnp.true_divide(_chisquare(key_dfd, dfden, shape, dt), dfden)
    return jnp.true_divide(num, den)


def t(key: ArrayLike, df: ArrayLike, shape: Sequence[int] | None = None,
      dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Student's t samples with `df` degrees of freedom."""
    key = _ka.check_key(key, "t")
    dt = _p._float_dtype(dtype, "t")
    return _t(key, *_as_arguments(df), _gamma_shape("t", shape, df), dt)


@library_jit(static_argnums=(2, 3))
def _t(key, df, shape, dt):
    df = lax.convert_element_type(df, dt)
    key_n, key_g = _p._split_pair(key)
    n = _p.normal(key_n, shape, dt)
    half = jnp.true_divide(df, _c(2, dt))
    g = _gamma(key_g, half, shape, dt, False)
    return jnp.multiply(n, jnp.sqrt(jnp.true_divide(half, g)))


def generalized_normal(key: ArrayLike, p: ArrayLike, shape: Sequence[int] = (),
                       dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Samples with density proportional to exp(-|x|^p)."""
    key = _ka.check_key(key, "generalized_normal")
    dt = _p._float_dtype(dtype, "generalized_normal")
    return _generalized_normal(key, *_as_arguments(p), _p.shape_arg(shape), dt)


@library_jit(static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dt):
    k_g, k_r = _p._split_pair(key)
    g = _gamma(k_g, jnp.true_divide(1, p), shape, dt, False)
    r = _p.rademacher(k_r, shape, dt)
    return jnp.multiply(r, jnp.power(g, jnp.true_divide(1, p)))


def ball(key: ArrayLike, d: int, p: float = 2, shape: Sequence[int] = (),
         dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Uniform samples from the unit Lp ball in `d` dimensions."""
    key = _ka.check_key(key, "ball")
    dt = _p._float_dtype(dtype, "ball")
    return _ball(key, *_as_arguments(p), int(d), _p.shape_arg(shape), dt)


@library_jit(static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dt):
    k1, k2 = _p._split_pair(key)
    g = _generalized_normal(k1, p, (*shape, d), dt)
    e = _p.exponential(k2, shape, dt)
    norm = jnp.power(jnp.add(jnp.sum(jnp.power(jnp.abs(g), p), axis=-1), e),
                     jnp.true_divide(1, p))
    return jnp.true_divide(g, norm[..., None])

# ----------------------------------------------------------------------- poisson


def _poisson_knuth(key, lam, shape, dtype, max_iters):
    def body(carry):
        i, k, rng, log_prod = carry
        rng, sub = _keys(rng, 2)
        k = lax.select(jnp.greater(log_prod, jnp.negative(lam)), jnp.add(k, _c(1, dtype)), k)
        u = _p._uniform_impl(sub, 0.0, 1.0, shape, np.dtype(np.float32))
        return i + 1, k, rng, jnp.add(log_prod, jnp.log(u))

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return jnp.logical_and(jnp.any(jnp.greater(log_prod, jnp.negative(lam))),
                               jnp.less(i, max_iters))
    init = (jnp.int32(0), jnp.zeros(shape, dtype), key, jnp.zeros(shape, np.float32))
    k = lax.while_loop(cond, body, init)[1]
    return jnp.subtract(k, _c(1, dtype)).astype(dtype)


def _poisson_rejection(key, lam, shape, dtype, max_iters):
    log_lam = lax.log(lam)
    b = jnp.add(0.931, jnp.multiply(2.53, lax.sqrt(lam)))
    a = jnp.add(-0.059, jnp.multiply(0.02483, b))
    inv_alpha = jnp.add(1.1239, jnp.true_divide(1.1328, jnp.subtract(b, 3.4)))
    v_r = jnp.subtract(0.9277, jnp.true_divide(3.6224, jnp.subtract(b, 2)))

    def body(carry):
        i, k_out, accepted, key = carry
        key, k0, k1 = _keys(key, 3)
        u = jnp.subtract(_p._uniform_impl(k0, 0.0, 1.0, shape, lam.dtype), 0.5)
        v = _p._uniform_impl(k1, 0.0, 1.0, shape, lam.dtype)
        us = jnp.subtract(0.5, jnp.abs(u))
        k = lax.floor(jnp.add(jnp.add(jnp.multiply(jnp.add(jnp.true_divide(
            jnp.multiply(2, a), us), b), u), lam), 0.43))
        s = lax.log(jnp.true_divide(jnp.multiply(v, inv_alpha),
                                    jnp.add(jnp.true_divide(a, jnp.multiply(us, us)), b)))
        tt = jnp.subtract(jnp.add(jnp.negative(lam), jnp.multiply(k, log_lam)),
                          lax.lgamma(jnp.add(k, 1)))
        accept1 = jnp.logical_and(jnp.greater_equal(us, 0.07), jnp.less_equal(v, v_r))
        reject = jnp.logical_or(jnp.less(k, 0), jnp.logical_and(jnp.less(us, 0.013),
                                                               jnp.greater(v, us)))
        accept = jnp.logical_or(accept1, jnp.logical_and(jnp.logical_not(reject),
                                                         jnp.less_equal(s, tt)))
        return i + 1, lax.select(accept, k, k_out), jnp.logical_or(accepted, accept), key

    def cond(carry):
        i, _, accepted, _ = carry
        return jnp.logical_and(jnp.any(jnp.logical_not(accepted)), jnp.less(i, max_iters))
    init = (jnp.int32(0), jnp.full(shape, -1, lam.dtype), jnp.zeros(shape, bool), key)
    return lax.while_loop(cond, body, init)[1].astype(dtype)


@library_jit(static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    use_knuth = jnp.logical_or(jnp.isnan(lam), jnp.less(lam, 10))
    lam_knuth = lax.select(use_knuth, lam, jnp.zeros_like(lam))
    lam_rej = lax.select(use_knuth, jnp.full_like(lam, 1e5), lam)
    max_iters = _c(dtypes.iinfo(dtype).max, dtype)
    out = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                     _poisson_rejection(key, lam_rej, shape, dtype, max_iters))
    return lax.select(jnp.equal(lam, 0), jnp.zeros_like(out), out)


def poisson(key: ArrayLike, lam: ArrayLike, shape: Sequence[int] | None = None,
            dtype: DTypeLike | None = None, *, out_sharding: Any = None) -> Array:
    """Poisson(lam) counts (integer dtype, default int)."""
    key = _ka.check_key(key, "poisson")
    if key._impl is not threefry_prng_impl:
        # JAX 0.10.2's own refusal, in its words (the key's tag)
        raise NotImplementedInAstjaxError(f"`poisson` is only implemented for the threefry2x32 "
                                          f"RNG, not {key._impl}",
                                          hint="draw it from a threefry2x32 key, as in JAX")
    dt = dtypes.canonicalize(dtypes.dtype(int) if dtype is None else dtypes.dtype(dtype))
    if not dtypes.is_int(dt):
        raise ArgumentValueError(   # (JAX's ValueError)
            f"dtype argument to `poisson` must be an int dtype, got {dt}",
            hint="pass an integer dtype such as jnp.int32")
    shape = _shape_of(lam) if shape is None else _p.shape_arg(shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    return _poisson(key, *_as_arguments(lam), tuple(shape), dt)

# ---------------------------------------------------------------------- binomial

_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
    dt = k.dtype
    table = jnp.asarray(np.asarray(_STIRLING_TAIL, dt))
    small = jnp.less_equal(k, 9)
    k = lax.clamp(_c(0, dt), k, _c(9, dt))
    kp1sq = jnp.multiply(jnp.add(k, 1), jnp.add(k, 1))
    approx = jnp.true_divide(jnp.subtract(1.0 / 12, jnp.true_divide(
        jnp.subtract(1.0 / 360, jnp.true_divide(1.0 / 1260, kp1sq)), kp1sq)), jnp.add(k, 1))
    return lax.select(small, table[jnp.floor(k).astype(np.int32)], approx)


def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    log1m = jnp.log1p(jnp.negative(prob))

    def body(carry):
        i, num_geom, geom_sum, key = carry
        sub, key = _keys(key, 2)
        num_geom = lax.select(jnp.less_equal(geom_sum, count), jnp.add(num_geom, 1), num_geom)
        u = _p._uniform_impl(sub, 0.0, 1.0, shape, prob.dtype)
        geom = jnp.ceil(jnp.true_divide(jnp.log(u), log1m))
        return i + 1, num_geom, jnp.add(geom_sum, geom), key

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return jnp.logical_and(jnp.any(jnp.less_equal(geom_sum, count)),
                               jnp.less(i, max_iters))
    init = (jnp.int32(0), jnp.zeros(shape, prob.dtype), jnp.zeros(shape, prob.dtype), key)
    k = lax.while_loop(cond, body, init)[1]
    return jnp.subtract(k, 1).astype(dtype)


def _btrs(key, count, prob, shape, dtype, max_iters):
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body(carry):
        i, k_out, accepted, key = carry
        key, k0, k1 = _keys(key, 3)
        u = _p._uniform_impl(k0, 0.0, 1.0, shape, prob.dtype) - 0.5
        v = _p._uniform_impl(k1, 0.0, 1.0, shape, prob.dtype)
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_tail(m) + _stirling_tail(count - m)
              - _stirling_tail(k) - _stirling_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        return jnp.logical_and(jnp.any(jnp.logical_not(carry[2])), jnp.less(carry[0], max_iters))
    init = (jnp.int32(0), jnp.full(shape, -1, prob.dtype), jnp.zeros(shape, bool), key)
    return lax.while_loop(cond, body, init)[1].astype(dtype)


@library_jit(static_argnums=(3, 4))
def _binomial(key, count, prob, shape, dtype):
    count = jnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = jnp.less(prob, 0.5)
    q = lax.select(p_lt_half, prob, jnp.subtract(1.0, prob))
    count_bad = jnp.logical_or(jnp.isnan(count), jnp.less(count, 0.0))
    count_inf = jnp.isinf(count)
    q_nan, q_neg = jnp.isnan(q), jnp.less(q, 0.0)
    q = lax.select(jnp.logical_or(q_nan, q_neg), jnp.full_like(q, 0.01), q)
    use_inv = jnp.logical_or(count_bad, jnp.less_equal(jnp.multiply(count, q), 10.0))
    count = jnp.floor(count)
    count_inv = lax.select(use_inv, count, jnp.zeros_like(count))
    count_btrs = lax.select(use_inv, jnp.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inv, jnp.full_like(q, 0.5), q)
    max_iters = _c(dtypes.finfo(dtype).max, dtype)
    out = lax.select(use_inv, _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                     _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = jnp.logical_or(jnp.logical_or(q_neg, q_nan), count_bad)
    out = lax.select(invalid, jnp.full_like(out, np.nan), out)
    out = lax.select(jnp.logical_and(count_inf, jnp.logical_not(invalid)),
                     jnp.full_like(out, np.inf), out)
    keep = jnp.logical_or(jnp.logical_or(p_lt_half, count_bad), jnp.logical_or(q_nan, count_inf))
    return lax.select(keep, out, jnp.subtract(count.astype(dtype), out))


def binomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, shape: Sequence[int] | None = None,
             dtype: DTypeLike | None = None) -> Array:
    """Binomial(n, p) counts (as floats, default float dtype)."""
    key = _ka.check_key(key, "binomial")
    dt = _p._float_dtype(dtype, "binomial")
    shape = _gamma_shape("binomial", shape, n, p)
    [p] = promote_args_inexact("binomial", p)
    return _binomial(key, *_as_arguments(n, p), tuple(shape), dt)


def multinomial(key: ArrayLike, n: ArrayLike, p: ArrayLike, *, shape: Sequence[int] | None = None,
                dtype: DTypeLike | None = None, unroll: int = 1) -> Array:
    """Counts of each outcome in `n` trials with probabilities `p` (last axis)."""
    key = _ka.check_key(key, "multinomial")
    dt = _p._float_dtype(dtype, "multinomial")
    n, p = promote_args_inexact("multinomial", n, p)
    shape = _shape_of(p) if shape is None else _p.shape_arg(shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)
    remaining = jnp.flip(jnp.cumsum(jnp.flip(p, 0), axis=0), 0)
    ratios = jnp.true_divide(p, jnp.where(jnp.equal(remaining, 0), 1, remaining))
    keys = _ka.split(key, (core.get_aval(ratios).shape[0],))

    def step(rem, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, rem, jnp.clip(ratio, 0, 1), dtype=core.get_aval(rem).dtype)
        return jnp.subtract(rem, count), count
    _, counts = lax.scan(step, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dt)
