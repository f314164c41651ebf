"""Typed PRNG keys: `random.key(seed)` arrays of the extended dtype `key<fry>`.

A typed key array (`PRNGKeyArray`) has the key's *logical* shape (`()` for one key,
`(3,)` for three) and the dtype `KeyTy` (printed `key<fry>`, a sub-dtype of
`astjax.dtypes.prng_key`), and is an instance of `astjax.Array`. It overlays the raw
threefry2x32 key data, a `uint32[..., 2]` array (`key_data` reads it, `wrap_key_data`
makes a key array of it).

How it flows through the transformations: a key array is one pytree leaf, as in JAX
(`tree_leaves(key)` is `[key]`, `tree_map` hands `f` the key array). At a staging
boundary (`jit`, `vmap`, `grad` -- keys are integer data, never differentiated --
`lax.scan` / `fori_loop` / `while_loop` carries, `cond` branches, custom derivatives)
`tree_util.flatten_for_staging` expands it to its key data, which is what the IR
carries, and the function receives a key array again over the staged data; results
are rebuilt likewise. The variables holding keys are typed as keys
(`primitives/prng_keys.py`: a `KeyDataAval`), so a printed jaxpr shows `key<fry>[]`
where JAX does; `random_unwrap` marks where a sampler or `key_data` reads the data,
`random_wrap` where `wrap_key_data` makes keys of it.

Every sampler of `astjax.random` accepts typed or raw keys (the wrappers at the end of
this module); `split`, `fold_in` and `clone` return keys of the kind they were given.
"""
from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

from .. import core, dtypes, tree_util
from ..config import config
from ..api import ShapeDtypeStruct
from ..ir import ShapedArray
from .. import numpy as jnp
from ..primitives.prng_keys import random_unwrap, random_wrap, type_as_keys
from ..errors import ArgumentTypeError, ArityError, DTypeError
from . import distributions as _d
from . import gamma as _g
from . import prng as _p
from . import key_reuse as _kr

__all__ = ["PRNGKeyArray", "KeyTy", "key", "key_data", "wrap_key_data", "key_impl", "key_dtype",
           "split", "fold_in", "clone", "bits", "uniform", "normal", "bernoulli", "randint",
           "choice", "permutation", "truncated_normal", "categorical", "gumbel",
           "exponential", "laplace", "logistic", "rademacher", "cauchy", "lognormal",
           "pareto", "rayleigh", "wald", "weibull_min", "maxwell", "double_sided_maxwell",
           "triangular", "geometric", "orthogonal", "multivariate_normal", "gamma",
           "loggamma", "beta", "dirichlet", "chisquare", "f", "t", "generalized_normal",
           "ball", "poisson", "binomial", "multinomial"]

_IMPL = "threefry2x32"
_KEY_SHAPE = (2,)  # threefry2x32's key data: two uint32 words


class KeyTy(dtypes.ExtendedDType):
    """The dtype of typed key arrays of one PRNG implementation (`key<fry>` for
    threefry2x32): `issubdtype(k.dtype, astjax.dtypes.prng_key)` is True."""
    type = dtypes.prng_key

    def __init__(self, impl=_IMPL):
        self.impl = impl
        self.name = "key<fry>" if impl == _IMPL else f"key<{impl}>"

    itemsize = property(lambda self: 4 * _KEY_SHAPE[0])
    kind = "V"

    def __eq__(self, other):
        return isinstance(other, KeyTy) and other.impl == self.impl

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((KeyTy, self.impl))

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name


KEY_DTYPE = KeyTy()


def _short_name(impl):
    """JAX's short name of a PRNG implementation, as in `key<fry>`."""
    return "fry" if impl == _IMPL else impl


class KeyAval(ShapedArray):
    """The abstract value of a key array (`jax.typeof(key)`: `key<fry>[3]`): its
    logical shape and key dtype. Transformations never see it -- they carry the key
    data -- so it is only read, never staged."""
    __slots__ = ()

    def __init__(self, shape, dtype=KEY_DTYPE, weak_type=False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.weak_type = False

    def update(self, shape=None, dtype=None, weak_type=None):
        return KeyAval(self.shape if shape is None else shape, self.dtype)

    def str_short(self):
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other):
        return type(other) is KeyAval and (other.shape, other.dtype) == (self.shape, self.dtype)

    def __hash__(self):
        return hash((KeyAval, self.shape, self.dtype))

    def __repr__(self):
        return f"ShapedArray({self.str_short()})"

    __str__ = str_short


def _shape_of(x):
    return tuple(core.get_aval(x).shape)


class PRNGKeyArray:
    """An array of typed PRNG keys (see the module docstring): shape, indexing,
    reshaping and transposition act on the keys; `key_data` gives the raw words."""
    __slots__ = ("_base", "_impl", "_consumed")
    __array_priority__ = 100

    def __init__(self, base, impl=_IMPL):
        self._consumed = False   # the key-reuse checker's eager mark (random/key_reuse.py)
        self._base = type_as_keys(base, _short_name(impl))
        self._impl = impl

    # ---------------------------------------------------------------- array facts
    shape = property(lambda self: (_shape_of(self._base) if _is_key_data(self._base) else
                                   tuple(getattr(self._base, "shape", (0,))))[:-1])
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    dtype = property(lambda self: KeyTy(self._impl) if self._impl != _IMPL else KEY_DTYPE)
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.itemsize)
    weak_type = False
    aval = property(lambda self: KeyAval(self.shape, self.dtype))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    # ----------------------------------------------------- indexing and reshaping
    def __getitem__(self, idx):
        idx = idx if isinstance(idx, tuple) else (idx,)
        if any(isinstance(i, PRNGKeyArray) for i in idx):
            raise ArgumentTypeError("a key array cannot index an array")
        _kr.index(self, idx)
        # the key-data axis is the trailing one: every index leaves it whole
        return PRNGKeyArray(self._base[idx + (slice(None),)], self._impl)

    def reshape(self, *shape, order="C"):
        """The keys in a new shape (`order="C"` only, as JAX's key arrays)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if order != "C":
            raise ArgumentTypeError("key arrays reshape in C order only")
        shape = tuple(int(d) for d in shape)
        if -1 in shape:
            known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
            shape = tuple(self.size // max(known, 1) if d == -1 else d for d in shape)
        return PRNGKeyArray(jnp.reshape(self._base, shape + _KEY_SHAPE), self._impl)

    def ravel(self):
        return self.reshape(self.size)

    flatten = ravel

    def squeeze(self, axis=None):
        """Drop length-1 key axes (all of them, or `axis`)."""
        nd = self.ndim
        if axis is None:
            axes = tuple(i for i, d in enumerate(self.shape) if d == 1)
        else:
            axes = tuple(a % nd for a in (axis if isinstance(axis, tuple) else (axis,)))
        return PRNGKeyArray(jnp.squeeze(self._base, axes), self._impl)

    def transpose(self, *axes):
        """Permute the key axes (the key data axis stays last)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        nd = self.ndim
        perm = tuple(a % nd for a in axes) if axes else tuple(reversed(range(nd)))
        return PRNGKeyArray(jnp.transpose(self._base, perm + (nd,)), self._impl)

    T = property(lambda self: self.transpose())

    def swapaxes(self, a, b):
        perm = list(range(self.ndim))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def broadcast_to(self, shape):
        """The keys broadcast to `shape`."""
        shape = tuple(shape)
        return PRNGKeyArray(jnp.broadcast_to(self._base, shape + _KEY_SHAPE), self._impl)

    def copy(self):
        return PRNGKeyArray(jnp.array(self._base, copy=True), self._impl)

    def block_until_ready(self):
        if hasattr(self._base, "block_until_ready"):
            self._base.block_until_ready()
        return self

    # ----------------------------------------------------------------- comparison
    def __eq__(self, other):
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        if not (_is_key_data(self._base) and _is_key_data(other._base)):
            # placeholders a transformation put in the data's place: plain equality
            return self._impl == other._impl and bool(self._base == other._base)
        return jnp.all(jnp.equal(self._base, other._base), axis=-1)

    def __ne__(self, other):
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return jnp.logical_not(self == other)

    __hash__ = None  # arrays are unhashable

    # --------------------------------------------------------------- conversions
    def __array__(self, dtype=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy "
                        "array. Use jax.random.key_data(arr) if you wish to extract the "
                        "underlying integer array.")

    def __bool__(self):
        raise TypeError("a key array has no truth value")

    def __repr__(self):
        if not _is_key_data(self._base):
            return f"PRNGKeyArray[{self._impl}]({self._base!r})"
        if isinstance(self._base, core.Tracer):
            return f"Traced<{self.dtype}[{','.join(map(str, self.shape))}]>"
        return (f"Array({self.shape}, dtype={self.dtype}) overlaying:\n"
                f"{np.asarray(self._base)}")

    __str__ = __repr__


def _is_key_data(x):
    """Raw key data (staged or concrete), as opposed to a placeholder a transformation
    unflattened in its place (e.g. an axis number)."""
    aval = getattr(x, "aval", None)
    return isinstance(aval, ShapedArray) or isinstance(x, (np.ndarray, np.generic))


def _from_physical(impl, data):
    """A key array again over what a transformation computed for its data: the data,
    or its shape struct (`eval_shape`: JAX's `ShapeDtypeStruct(shape, key<fry>)`)."""
    if isinstance(data, ShapeDtypeStruct):
        return ShapeDtypeStruct(data.shape[:-1], KeyTy(impl))
    return PRNGKeyArray(data, impl)


tree_util.register_staging_leaf(PRNGKeyArray, lambda k: (k._base, k._impl), _from_physical)
core.Array.register(PRNGKeyArray)


def is_typed_key(x) -> bool:
    """Whether `x` is a typed key array (not raw uint32 key data)."""
    return isinstance(x, PRNGKeyArray)


def _raw(k):
    return random_unwrap(k._base) if isinstance(k, PRNGKeyArray) else k


def _same_kind(k, data):
    if isinstance(k, PRNGKeyArray):
        return PRNGKeyArray(data, k._impl)
    # jax_enable_custom_prng: raw keys in, typed keys out (as JAX)
    return PRNGKeyArray(data) if config.read("jax_enable_custom_prng") else data


_LEGACY = ("Legacy uint32 key array passed as key to jax.random function. Please create "
           "keys using jax.random.key(). If use of a raw key array was intended, set "
           "jax_legacy_prng_key=\"allow\".")


def _key_in(k):
    """The raw data of a key given to a sampler, `split` or `fold_in`; a raw key is
    refused or warned about as `jax_legacy_prng_key` (and `jax_enable_custom_prng`)
    say."""
    if isinstance(k, PRNGKeyArray):
        return random_unwrap(k._base)
    policy = config.read("jax_legacy_prng_key")
    if policy == "error":
        raise ValueError(_LEGACY)
    if policy == "warn":
        warnings.warn(_LEGACY, stacklevel=3)
    elif config.read("jax_enable_custom_prng"):
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                      "Assuming valid threefry2x32 key for now.", FutureWarning, stacklevel=3)
    return k


# ------------------------------------------------------------------ constructors


def key(seed, *, impl=None):
    """A typed key (shape `()`, dtype `key<fry>`) from an integer seed: the same
    key data as `PRNGKey(seed)`."""
    _p._check_impl(impl)
    return PRNGKeyArray(_p._seed(seed))


def key_dtype(impl_spec=None):
    """The dtype of typed keys of PRNG implementation `impl_spec` (None: the default,
    threefry2x32): `random.key(0).dtype == random.key_dtype()`."""
    _p._check_impl(impl_spec)
    return KeyTy(_IMPL)


def key_data(keys):
    """The raw `uint32[..., 2]` data under a typed key array (raw keys as they are)."""
    return _raw(keys)


def wrap_key_data(key_bits_array, *, impl=None):
    """A typed key array over raw key data `uint32[..., 2]` (shape `[...]`)."""
    _p._check_impl(impl)
    if isinstance(key_bits_array, PRNGKeyArray):
        raise DTypeError("wrap_key_data takes raw uint32 key data, got a typed key array",
                         hint="random.key_data(keys) gives the data")
    data = key_bits_array if hasattr(key_bits_array, "aval") else jnp.asarray(key_bits_array)
    a = core.get_aval(data)
    if a.dtype != dtypes.uint32 or a.shape[-1:] != _KEY_SHAPE:
        raise DTypeError(f"key data must be uint32[..., 2], got {a.str_short()}")
    return PRNGKeyArray(random_wrap(data, _short_name(_IMPL)))


def key_impl(keys):
    """The name of the PRNG implementation of `keys` ('threefry2x32')."""
    return keys._impl if isinstance(keys, PRNGKeyArray) else _IMPL


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
    data = _kr.consume(key, "random_split") if isinstance(key, PRNGKeyArray) else _key_in(key)
    return _same_kind(key, _p.split(data, num))


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
        base = random_wrap(random_unwrap(base), _short_name(key._impl))
    return PRNGKeyArray(base, key._impl)


# ------------------------------------------------------------ samplers, any key


def _accepting_typed_keys(fn):
    """`fn` (a sampler taking a raw key first) accepting typed keys as well; a call
    that does not fit `fn`'s signature is reported at the user's line."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def sampler(key, *args, out_sharding=None, **kwargs):
        # out_sharding: where the result lives; one device holds every result
        try:
            sig.bind(key, *args, **kwargs)
        except TypeError as e:
            raise ArityError(f"random.{fn.__name__}(): {e}",
                             hint=f"its signature is random.{fn.__name__}{sig}") from None
        data = _kr.consume(key, fn.__name__) if isinstance(key, PRNGKeyArray) else _key_in(key)
        return fn(data, *args, **kwargs)
    return sampler


bits = _accepting_typed_keys(_p.bits)
uniform = _accepting_typed_keys(_p.uniform)
normal = _accepting_typed_keys(_p.normal)
bernoulli = _accepting_typed_keys(_p.bernoulli)
randint = _accepting_typed_keys(_p.randint)
choice = _accepting_typed_keys(_p.choice)
permutation = _accepting_typed_keys(_p.permutation)
truncated_normal = _accepting_typed_keys(_p.truncated_normal)
categorical = _accepting_typed_keys(_p.categorical)
gumbel = _accepting_typed_keys(_p.gumbel)
exponential = _accepting_typed_keys(_p.exponential)
laplace = _accepting_typed_keys(_p.laplace)
logistic = _accepting_typed_keys(_p.logistic)
rademacher = _accepting_typed_keys(_p.rademacher)
cauchy = _accepting_typed_keys(_d.cauchy)
lognormal = _accepting_typed_keys(_d.lognormal)
pareto = _accepting_typed_keys(_d.pareto)
rayleigh = _accepting_typed_keys(_d.rayleigh)
wald = _accepting_typed_keys(_d.wald)
weibull_min = _accepting_typed_keys(_d.weibull_min)
maxwell = _accepting_typed_keys(_d.maxwell)
double_sided_maxwell = _accepting_typed_keys(_d.double_sided_maxwell)
triangular = _accepting_typed_keys(_d.triangular)
geometric = _accepting_typed_keys(_d.geometric)
orthogonal = _accepting_typed_keys(_d.orthogonal)
multivariate_normal = _accepting_typed_keys(_d.multivariate_normal)
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
