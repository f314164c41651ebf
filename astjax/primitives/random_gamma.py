"""`random_gamma_p`: Gamma(a) samples (or their logs) for every element of `a`, as JAX's
`jax.random.random_gamma_p` -- the primitive `random.gamma`, `loggamma`, `beta`,
`dirichlet` and the samplers built on them bind.

    c:f32[3] = random_gamma[log_space=False] a b      # a: the key data, b: alpha

Operands: the key data, `uint32[*kb, 2]` (threefry2x32's), and `a`, floating of shape
`(*kb, *rest)`: each of the `kb` keys is split into `prod(rest)` keys, one per element,
in JAX's layout (the `jax_threefry_partitionable` flag), and each element drawn by
Marsaglia and Tsang's rejection method with the same draws, in the same order, as JAX's
sampler, so the same key gives the same bits; all elements run in one vectorized loop,
as JAX's lowering (its sampler under `vmap`) runs them. Keys of another PRNG
implementation (`uint32[*kb, *impl.key_shape]`) name it in the param `impl` (JAX reads
it from the key's dtype; threefry2x32 keys carry none, so their equation prints as
JAX's): their keys are split and drawn through the implementation's own functions, one
element after another (a `scan`), as JAX's lowering runs them (`lax.map`). Its rules,
in one block:

- abstract eval: `a`'s shape and dtype; the key's leading axes must be `a`'s;
- lowering: the sampler, staged (JAX's `mlir.lower_fun`); the NumPy `impl` is that same
  program run eagerly (a NumPy copy could not match XLA's `log`/`erf_inv` bits);
- JVP: JAX's implicit reparameterization, `dx/da = -(dP/da) / (dP/dx)` with P the gamma
  CDF (`random_gamma_grad`, also `lax.random_gamma_grad`), times `a`'s tangent (divided
  by the sample in log space); the key has none;
- batching: both batch axes to the front (an unbatched key is broadcast, so every
  example splits the same key), as JAX's rule.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import ArityError, DTypeError, ShapeError, caller_location
from .base import bdim_at_front, is_zero, lax_ops, lowering_from, register
from .special import sample_grad
from .threefry_draws import keys_of, normal, split_keys, uniform

__all__ = ["random_gamma_p", "random_gamma", "random_gamma_grad"]

_U32 = np.dtype(np.uint32)

random_gamma_p = core.new_primitive("random_gamma")


def _c(v, dt):
    return np.asarray(v, dt)[()]

# ------------------------------------------------------------------ the sampler


def _masked_while(pred, body, state):
    """A while loop over vectors of independent states (what JAX's `vmap` makes of a
    per-element loop): it runs while any element's `pred` holds, and an element whose
    `pred` is false keeps its state, so each element sees exactly its own loop."""
    L = lax_ops()

    def step(s):
        p = pred(s)
        new = body(s)
        return tuple(L.select(L.broadcast_in_dim(p, core.get_aval(x).shape, (0,))
                              if core.get_aval(x).ndim > 1 else p, y, x)
                     for y, x in zip(new, s))
    return L.while_loop(core.raw(lambda s: L.reduce_or(pred(s), (0,))), core.raw(step),
                        tuple(state))


class _Draws(NamedTuple):
    """What the sampler draws from keys k[n, *key_shape]: `keys_of(k, m)` (each key split
    into m: a list of m key arrays like k), `uniform(k, dt)` and `normal(k, dt)` (one
    scalar per key: [n])."""
    keys_of: Callable
    uniform: Callable
    normal: Callable


_THREEFRY = _Draws(keys_of, uniform, normal)


def _impl_draws(impl):
    """The draws from one key of `impl` (k[1, *impl.key_shape]) by its own functions, as
    JAX's `split`, `uniform` and `normal` of one key draw them."""
    L = lax_ops()
    ks = tuple(impl.key_shape)

    def split(k, m):
        sub = impl.split(L.reshape(k, ks), (m,))
        return [L.reshape(L.index_in_dim(sub, i, 0, False), (1,) + ks) for i in range(m)]

    def bits(k, width):
        return L.reshape(impl.random_bits(L.reshape(k, ks), width, ()), (1,))
    return _Draws(split, lambda k, dt: uniform(k, dt, bits=bits),
                  lambda k, dt: normal(k, dt, bits=bits))


def _gamma_many(key, alpha, log_space, draws=_THREEFRY):
    """Gamma(alpha) samples (or their logs) for keys u32[n, 2] and alphas [n], by
    Marsaglia and Tsang's method, all elements in one vectorized loop (JAX's CPU and
    GPU lowering: the per-element sampler under `vmap`); alpha < 1 is boosted to
    alpha + 1 and scaled back by U ** (1 / alpha) (in log space: plus log(U) / alpha,
    so tiny alphas do not underflow). `draws`: how keys are split and drawn from."""
    L = lax_ops()
    dt = core.get_aval(alpha).dtype
    one, zero = _c(1, dt), _c(0, dt)
    full = lambda v: L.full_like(alpha, v)  # noqa: E731
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
        k, x_key, u_key = draws.keys_of(state[0], 3)

        def next_v(s):
            k2, sub = draws.keys_of(s[0], 2)
            x = draws.normal(sub, dt)
            return k2, x, L.add(one, L.mul(x, c))
        _, x, v = _masked_while(lambda s: L.le(s[2], zero), next_v,
                                (x_key, full(0), full(-1)))
        return k, L.mul(x, x), L.mul(L.mul(v, v), v), draws.uniform(u_key, dt)

    key, subkey = draws.keys_of(key, 2)
    _, _, v3, _ = _masked_while(rejected, propose, (key, full(0), full(1), full(2)))
    if log_space:  # log(U) as -Exponential(): -log1p(-U)
        log_u = L.log1p(L.neg(draws.uniform(subkey, dt)))
        log_boost = L.select(L.bitwise_or(boost_mask, L.eq(log_u, zero)), full(0),
                             L.mul(log_u, L.div(one, alpha)))
        return L.add(L.add(L.log(d), L.log(v3)), log_boost)
    u = L.sub(one, draws.uniform(subkey, dt))
    boost = L.select(boost_mask, full(1), L.pow(u, L.div(one, alpha)))
    return L.mul(L.mul(d, v3), boost)


def _sample(key, a, *, log_space, impl=None):
    """The lowering: split each key per element of `a`, then sample every element."""
    if impl is not None:
        return _sample_by_impl(key, a, log_space, impl)
    L = lax_ops()
    ka, aa = core.get_aval(key), core.get_aval(a)
    nk = math.prod(ka.shape[:-1])
    n = math.prod(aa.shape[ka.ndim - 1:])
    if nk * n == 0:
        return L.full(aa.shape, 0, aa.dtype)
    keys = L.reshape(split_keys(L.reshape(key, (nk, 2)), n), (nk * n, 2))
    samples = _gamma_many(keys, L.reshape(a, (nk * n,)), log_space)
    return L.reshape(samples, aa.shape)

def _sample_by_impl(key, a, log_space, impl):
    """The lowering for keys of `impl`: each key split by `impl.split` into one key per
    element of `a` (vmapped over the keys, as JAX's `vmap(split)`: `PRNGImpl.split_each`),
    then every element sampled on its own key (a scan over the elements: JAX's `lax.map`)."""
    L = lax_ops()
    ks = tuple(impl.key_shape)
    ka, aa = core.get_aval(key), core.get_aval(a)
    nb = ka.ndim - len(ks)
    nk, n = math.prod(ka.shape[:nb]), math.prod(aa.shape[nb:])
    if nk * n == 0:
        return L.full(aa.shape, 0, aa.dtype)
    per = impl.split_each(L.reshape(key, (nk,) + ks), (n,))
    draws = _impl_draws(impl)

    def one(c, kx):
        k, x = kx
        y = _gamma_many(L.reshape(k, (1,) + ks), L.reshape(x, (1,)), log_space, draws)
        return c, L.reshape(y, ())
    samples = L.scan(core.raw(one), (), (L.reshape(per, (nk * n,) + ks),
                                         L.reshape(a, (nk * n,))))[1]
    return L.reshape(samples, aa.shape)

# ------------------------------------------------------------------- the block


def _random_gamma_ae(key, a, *, log_space, impl=None):
    ks = (2,) if impl is None else tuple(impl.key_shape)
    nb = key.ndim - len(ks)
    if key.dtype != _U32 or nb < 0 or tuple(key.shape[nb:]) != ks:
        raise DTypeError(f"random_gamma needs key data of "
                         f"{'threefry2x32' if impl is None else impl.name} "
                         f"(uint32[..., {', '.join(map(str, ks))}]), got {key.str_short(True)}")
    if not dtypes.is_float(a.dtype):
        raise DTypeError(f"random_gamma needs a floating alpha, got {a.str_short(True)}")
    if tuple(a.shape[:nb]) != tuple(key.shape[:nb]):
        raise ShapeError(f"random_gamma: the keys' shape {key.shape[:nb]} must lead alpha's "
                         f"shape {a.shape}")
    return ShapedArray(a.shape, a.dtype)


def _random_gamma_impl(key, a, **params):
    return np.asarray(core.eager_backend(random_gamma_p, [key, a], params))


def _sample_grad(a, x):
    """d x / d a for a sample x ~ Gamma(a) held at its quantile, -(dP/da) / (dP/dx), by
    JAX's algorithm (`special.sample_grad`): 0 at x = 0; NaN for a <= 0, x < 0 or a NaN
    operand."""
    return sample_grad(a, x)


def random_gamma_grad(*args):
    """`lax.random_gamma_grad(a, x)`: d x / d a of samples `x` ~ Gamma(`a`, 1),
    elementwise -- the implicit reparameterization `random.gamma`'s gradient uses.
    Operands are floating arrays, broadcast as JAX does (a scalar against any shape,
    else equal ranks); float16/bfloat16 are computed in float32 and rounded back. JAX
    declares it `(*args)`: other than two operands is its TypeError."""
    if len(args) != 2:   # (Python's messages for JAX's inner `(a, x, *, dtype)`)
        missing = ["'a'", "'x'"][len(args):]
        raise ArityError(
            f"random_gamma_grad() missing {len(missing)} required positional argument"
            f"{'s' if len(missing) > 1 else ''}: {' and '.join(missing)}" if missing else
            f"random_gamma_grad() takes 2 positional arguments but {len(args)} positional "
            "arguments (and 1 keyword-only argument) were given",
            hint="pass the shape parameters a and the samples x", loc=caller_location())
    a, x = args
    L = lax_ops()
    ops = [x if isinstance(x, core.Tracer) or hasattr(x, "aval") else np.asarray(x)
           for x in (a, x)]
    avals = [core.get_aval(o) for o in ops]
    for v in avals:
        if not dtypes.is_float(v.dtype):
            raise DTypeError(f"random_gamma_grad needs floating operands, got {v.str_short(True)}")
    if avals[0].dtype != avals[1].dtype:
        raise DTypeError(f"random_gamma_grad needs operands of one dtype, got "
                         f"{avals[0].str_short(True)} and {avals[1].str_short(True)}",
                         hint="convert one with x.astype(dtype)")
    ndim = max(v.ndim for v in avals)
    for v in avals:
        if 0 < v.ndim < ndim:
            raise ShapeError(f"random_gamma_grad: operand of shape {v.shape} does not "
                             f"broadcast to rank {ndim} (JAX broadcasts a scalar or an "
                             "operand of the same rank)", hint="reshape it to the same rank")
    shape = tuple(max((v.shape[i] for v in avals if v.ndim), default=1) for i in range(ndim))
    for v in avals:
        if v.ndim and any(d not in (1, n) for d, n in zip(v.shape, shape)):
            raise ShapeError(f"random_gamma_grad: shapes {avals[0].shape} and "
                             f"{avals[1].shape} do not broadcast")
    ops = [L.broadcast_in_dim(o, shape, tuple(range(v.ndim)) if v.ndim else ())
           if v.shape != shape else o for o, v in zip(ops, avals)]
    return _sample_grad(*ops)


def _random_gamma_jvp(primals, tangents, *, log_space, **params):
    key, a = primals
    out = core.bind(random_gamma_p, key, a, log_space=log_space, **params)
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


def _random_gamma_batch(args, dims, **params):
    key, a = args
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    key, a = bdim_at_front(key, dims[0], size), bdim_at_front(a, dims[1], size)
    return core.bind(random_gamma_p, key, a, **params), 0


register(random_gamma_p, impl=_random_gamma_impl, abstract_eval=_random_gamma_ae,
         lowering=lowering_from(_sample), jvp=_random_gamma_jvp, batch=_random_gamma_batch)


def random_gamma(key, a, *, log_space=False, impl=None):
    """Bind `random_gamma_p`: Gamma(a) samples (their logs if `log_space`), one per
    element of `a`, from key data whose leading axes are `a`'s: threefry2x32's, or
    that of the PRNG implementation `impl`."""
    if impl is None:
        return core.bind(random_gamma_p, key, a, log_space=bool(log_space))
    return core.bind(random_gamma_p, key, a, log_space=bool(log_space), impl=impl)
