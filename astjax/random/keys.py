"""The public face of `astjax.random`'s keys: `key` / `PRNGKey` (seeding with an
implementation: `impl=` or the `jax_default_prng_impl` flag), `key_data`,
`wrap_key_data`, `key_impl`, `key_dtype`, `split`, `fold_in`, `clone`, and every sampler
accepting typed or raw keys.

Typed key arrays themselves (`PRNGKeyArray`, dtype `key<fry>` / `key<rbg>` /
`key<urbg>`), how they flow through the transformations and how their operations
dispatch to the key's implementation are in `astjax/random/key_array.py`; the
implementations in `astjax/random/impls.py`. A raw key (uint32 data) is read as the
default implementation's, as JAX reads it; `split`, `fold_in` and `clone` return keys
of the kind they were given. The samplers (`prng`, `distributions`, `gamma`) only ever
see typed keys.
"""
from __future__ import annotations

import functools
from typing import Any
import inspect
import warnings

import numpy as np

from .. import core
from ..config import config
from .. import numpy as jnp
from ..primitives.prng_keys import random_unwrap, random_wrap
from ..typing import Array, ArrayLike, DTypeLike
from ..errors import ArgumentTypeError, ArgumentValueError, ArityError, DTypeError
from . import key_array as _ka
from ..numpy.util import out_sharding_arg
from ..sharding import AxisType, NamedSharding, auto_axes, reshard
from .key_array import KeyTy, PRNGKeyArray
from .impls import impl_spec, resolve_impl
from . import distributions as _d
from . import gamma as _g
from . import prng as _p
from . import key_reuse as _kr

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "key_impl", "key_dtype",
           "split", "fold_in", "clone", "bits", "uniform", "normal", "bernoulli", "randint",
           "choice", "permutation", "truncated_normal", "categorical", "gumbel",
           "exponential", "laplace", "logistic", "rademacher", "cauchy", "lognormal",
           "pareto", "rayleigh", "wald", "weibull_min", "maxwell", "double_sided_maxwell",
           "triangular", "geometric", "orthogonal", "multivariate_normal", "gamma",
           "loggamma", "beta", "dirichlet", "chisquare", "f", "t", "generalized_normal",
           "ball", "poisson", "binomial", "multinomial"]


def is_typed_key(x) -> bool:
    """Whether `x` is a typed key array (not raw uint32 key data)."""
    return isinstance(x, PRNGKeyArray)


def _raw(k):
    return random_unwrap(k._base) if isinstance(k, PRNGKeyArray) else k


def _same_kind(k, keys):
    """Typed keys `keys` returned as the kind `k` was: typed, or raw data for raw `k`
    (with `jax_enable_custom_prng`, typed keys for raw ones too, as JAX)."""
    if isinstance(k, PRNGKeyArray) or config.read("jax_enable_custom_prng"):
        return keys
    return _ka.data_of(keys)


_LEGACY = ("Legacy uint32 key array passed as key to jax.random function. Please create "
           "keys using jax.random.key(). If use of a raw key array was intended, set "
           "jax_legacy_prng_key=\"allow\".")


def _key_in(k):
    """A key given to a sampler, `split` or `fold_in` as a typed key array; a raw key
    (read as the default implementation's data) is refused or warned about as
    `jax_legacy_prng_key` (and `jax_enable_custom_prng`) say."""
    if isinstance(k, PRNGKeyArray):
        return k
    typed = _ka.as_typed_key(k)
    policy = config.read("jax_legacy_prng_key")
    if policy == "error":
        raise ValueError(_LEGACY)
    if policy == "warn":
        warnings.warn(_LEGACY, stacklevel=3)
    elif config.read("jax_enable_custom_prng"):
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                      "Assuming valid threefry2x32 key for now.", FutureWarning, stacklevel=3)
    return typed


# ------------------------------------------------------------------ constructors


def _both(fn, impl, dtype):
    if dtype is not None:
        if impl is not None:
            raise ArgumentValueError(f"Cannot specify both `impl` and `dtype` arguments to "
                                     f"jax.random.{fn}")
        return dtype
    return impl


def _seed_keys(ctor, seed, impl):
    """Typed keys of `impl` from one integer seed (JAX's `random_seed`)."""
    if isinstance(seed, PRNGKeyArray):
        raise ArgumentTypeError(f"{ctor} accepts a scalar seed, but was given a PRNG key.")
    nd = core.get_aval(seed).ndim if hasattr(seed, "aval") else np.ndim(seed)
    if nd:
        raise ArgumentTypeError(f"{ctor} accepts a scalar seed, but was given an array of "
                                f"shape {_shape(seed)} != (). Use jax.vmap for batching",
                                hint="use astjax.vmap to make several keys")
    return _p.seed_keys(seed, impl)


def _shape(x):
    return tuple(core.get_aval(x).shape) if hasattr(x, "aval") else np.shape(x)


def key(seed: ArrayLike, *, impl: Any = None, dtype: DTypeLike | None = None) -> Array:
    """A typed key (shape `()`, dtype `key<fry>` -- `key<rbg>`, `key<urbg>` for those
    implementations) from an integer seed: the key data of `PRNGKey(seed, impl=impl)`.
    `impl` (or `dtype`) names the implementation; None: `jax_default_prng_impl`."""
    return _seed_keys("key", seed, resolve_impl(_both("key", impl, dtype)))


def PRNGKey(seed: ArrayLike, *, impl: Any = None) -> Array:  # noqa: N802  (JAX's name)
    """A raw key from an integer seed: the uint32 data of `key(seed, impl=impl)`
    (`uint32[2]` for threefry2x32, `uint32[4]` for rbg and unsafe_rbg)."""
    return _same_kind(seed, _seed_keys("PRNGKey", seed, resolve_impl(impl)))


def key_dtype(impl_spec=None):
    """The dtype of typed keys of PRNG implementation `impl_spec` (None: the default):
    `random.key(0).dtype == random.key_dtype()`."""
    return KeyTy(resolve_impl(impl_spec))


def key_data(keys: ArrayLike) -> Array:
    """The raw uint32 data under a typed key array (raw keys, checked against the
    default implementation, as they are)."""
    if isinstance(keys, PRNGKeyArray):
        return _raw(keys)
    _ka.as_typed_key(keys)
    return keys


def wrap_key_data(key_bits_array: ArrayLike, *, impl: Any = None,
                  dtype: DTypeLike | None = None) -> Array:
    """A typed key array over raw key data of shape `(*shape, *impl.key_shape)` (shape
    `shape`); `impl` (or `dtype`) as in `key`."""
    impl = resolve_impl(_both("wrap_key_data", impl, dtype))
    if isinstance(key_bits_array, PRNGKeyArray):
        raise DTypeError("wrap_key_data takes raw uint32 key data, got a typed key array",
                         hint="random.key_data(keys) gives the data")
    data = key_bits_array if hasattr(key_bits_array, "aval") else jnp.asarray(key_bits_array)
    _ka.check_key_data(data, impl)
    return PRNGKeyArray(random_wrap(data, impl), impl)


def key_impl(keys):
    """The PRNG implementation of `keys`: its name ('threefry2x32', 'rbg', ...), or a
    `PRNGSpec` for one `define_prng_impl` made."""
    return impl_spec(_ka.as_typed_key(keys)._impl)


# ------------------------------------------------------- key-returning functions


def split(key, num=2):
    """`num` (an int or a shape) new keys, of the kind (typed or raw) of `key`.

    Split a key instead of reusing it: each result is independent of `key`.

    Example:
        >>> import astjax
        >>> astjax.random.split(astjax.random.PRNGKey(0))
        Array([[1797259609, 2579123966],
               [ 928981903, 3453687069]], dtype=uint32)
    """
    drawn = _kr.consume(key, "random_split") if isinstance(key, PRNGKeyArray) else key
    return _same_kind(key, _p.split(_key_in(drawn), num))


def fold_in(key, data):
    """A new key from `key` and the integer `data`, of the kind of `key`."""
    return _same_kind(key, _p.fold_in(_key_in(key), data))


def clone(key):
    """A new key with the same data, not yet consumed (for the key-reuse checker: the
    clone may be used where `key` is used too)."""
    if not isinstance(key, PRNGKeyArray):
        return key
    base = key._base
    if isinstance(base, core.Tracer):    # a new variable, so its uses are its own
        base = random_wrap(random_unwrap(base), key._impl)
    elif config.read("jax_debug_key_reuse"):   # its own data, which the checker tells
        base = base.copy()                     # from the key's (`key_reuse._owner`)
        if isinstance(base, core.Tracer):      # (copied inside staging)
            base = random_wrap(base, key._impl)
    return PRNGKeyArray(base, key._impl)


# ------------------------------------------------------------ samplers, any key


def _accepting_typed_keys(fn, sharded=False):
    """`fn` (a sampler taking a raw key first) accepting typed keys as well; a call
    that does not fit `fn`'s signature is reported at the user's line. With `sharded`
    (or an `out_sharding` parameter of `fn`'s own), the keyword-only `out_sharding=` of
    JAX's samplers: the draw runs with the mesh's Explicit axes made Auto and its result
    is laid out as `out_sharding` says (the values do not change)."""
    sig = inspect.signature(fn)
    sharded = sharded or "out_sharding" in sig.parameters
    public = sig
    if sharded and "out_sharding" not in sig.parameters:
        public = sig.replace(parameters=[*sig.parameters.values(), inspect.Parameter(
            "out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None)])

    @functools.wraps(fn)
    def sampler(key, *args, out_sharding=None, **kwargs):
        try:
            sig.bind(key, *args, **kwargs)
            if out_sharding is not None and not sharded:
                raise TypeError(f"{fn.__name__}() got an unexpected keyword argument "
                                "'out_sharding'")
        except TypeError as e:
            raise ArityError(f"random.{fn.__name__}(): {e}",
                             hint=f"its signature is random.{fn.__name__}{public}") from None
        layout = out_sharding_arg(out_sharding, fn.__name__)
        drawn = _kr.consume(key, fn.__name__) if isinstance(key, PRNGKeyArray) else key
        if layout is None:
            return fn(_key_in(drawn), *args, **kwargs)
        axes = tuple(n for n, t in zip(layout.mesh.axis_names, layout.mesh.axis_types)
                     if t == AxisType.Explicit)
        raw = _key_in(drawn)
        out = auto_axes(lambda: fn(raw, *args, **kwargs), axes=axes, out_sharding=layout)()
        ndim = core.get_aval(out).ndim
        if len(layout.spec) < ndim:   # the spec padded to the result's rank, as JAX's
            out = reshard(out, NamedSharding(layout.mesh, layout.spec.update(
                partitions=layout.spec._normalized(ndim))))
        return out
    sampler.__signature__ = public
    return sampler


bits = _accepting_typed_keys(_p.bits, sharded=True)
uniform = _accepting_typed_keys(_p.uniform, sharded=True)
normal = _accepting_typed_keys(_p.normal, sharded=True)
bernoulli = _accepting_typed_keys(_p.bernoulli, sharded=True)
randint = _accepting_typed_keys(_p.randint, sharded=True)
choice = _accepting_typed_keys(_p.choice)
permutation = _accepting_typed_keys(_p.permutation, sharded=True)
truncated_normal = _accepting_typed_keys(_p.truncated_normal, sharded=True)
categorical = _accepting_typed_keys(_p.categorical, sharded=True)
gumbel = _accepting_typed_keys(_p.gumbel, sharded=True)
exponential = _accepting_typed_keys(_p.exponential, sharded=True)
laplace = _accepting_typed_keys(_p.laplace, sharded=True)
logistic = _accepting_typed_keys(_p.logistic, sharded=True)
rademacher = _accepting_typed_keys(_p.rademacher, sharded=True)
cauchy = _accepting_typed_keys(_d.cauchy, sharded=True)
lognormal = _accepting_typed_keys(_d.lognormal, sharded=True)
pareto = _accepting_typed_keys(_d.pareto, sharded=True)
rayleigh = _accepting_typed_keys(_d.rayleigh, sharded=True)
wald = _accepting_typed_keys(_d.wald, sharded=True)
weibull_min = _accepting_typed_keys(_d.weibull_min)
maxwell = _accepting_typed_keys(_d.maxwell, sharded=True)
double_sided_maxwell = _accepting_typed_keys(_d.double_sided_maxwell)
triangular = _accepting_typed_keys(_d.triangular, sharded=True)
geometric = _accepting_typed_keys(_d.geometric, sharded=True)
orthogonal = _accepting_typed_keys(_d.orthogonal, sharded=True)
multivariate_normal = _accepting_typed_keys(_d.multivariate_normal, sharded=True)
gamma = _accepting_typed_keys(_g.gamma)
loggamma = _accepting_typed_keys(_g.loggamma)
beta = _accepting_typed_keys(_g.beta)
dirichlet = _accepting_typed_keys(_g.dirichlet)
chisquare = _accepting_typed_keys(_g.chisquare)
f = _accepting_typed_keys(_g.f)
t = _accepting_typed_keys(_g.t)
generalized_normal = _accepting_typed_keys(_g.generalized_normal)
ball = _accepting_typed_keys(_g.ball)
poisson = _accepting_typed_keys(_g.poisson)
binomial = _accepting_typed_keys(_g.binomial)
multinomial = _accepting_typed_keys(_g.multinomial)
