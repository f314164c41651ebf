"""The typed key array (`PRNGKeyArray`) and its dtype (`KeyTy`), and the key operations
the samplers draw through: `random_bits`, `split` and `fold_in` of a key go to the
functions of the key's own implementation (`astjax/random/impls.py`), so no sampler
knows which one it is given.

A key array has the key's *logical* shape (`()` for one key, `(3,)` for three) and the
dtype `key<tag>` (`key<fry>` for threefry2x32, `key<rbg>`, `key<urbg>`, a sub-dtype of
`astjax.dtypes.prng_key`), and is an instance of `astjax.Array`. It overlays the raw
key data, a uint32 array of shape `(*shape, *impl.key_shape)`.

How it flows through the transformations: a key array is one pytree leaf, as in JAX
(`tree_leaves(key)` is `[key]`). At a staging boundary (`jit`, `vmap`, `grad` -- keys
are integer data, never differentiated --, loop carries, `cond` branches, custom
derivatives) `tree_util.flatten_for_staging` expands it to its key data, with the
implementation as static structure (so each implementation stages and compiles on its
own), and the function receives a key array again over the staged data. The variables
holding keys are typed as keys (`primitives/prng_keys.py`: a `KeyDataAval`), so a
printed jaxpr shows `key<rbg>[]` where JAX does.
"""
from __future__ import annotations

import math

import numpy as np

from .. import core, dtypes, tree_util
from .. import sharding_impls as _shd
from .. import numpy as jnp
from ..api import ShapeDtypeStruct
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError
from ..ir import ShapedArray
from ..primitives.edtypes import ExtendedAval, squeeze_axes
from ..primitives import prng_ops as _ops
from ..primitives.prng_keys import random_unwrap, random_wrap, type_as_keys
from . import key_reuse as _kr
from .impls import PRNGImpl, default_impl, threefry_prng_impl

__all__ = ["KeyTy", "KeyAval", "PRNGKeyArray", "as_typed_key", "check_key", "check_key_data", "data_of",
           "random_bits", "split", "fold_in"]


class KeyTy(dtypes.ExtendedDType):
    """The dtype of typed key arrays of one PRNG implementation (`key<fry>` for
    threefry2x32): `issubdtype(k.dtype, astjax.dtypes.prng_key)` is True."""
    type = dtypes.prng_key
    kind = "V"

    def __init__(self, impl: PRNGImpl | None = None):
        self._impl = threefry_prng_impl if impl is None else impl

    name = property(lambda self: f"key<{self._impl.tag}>")
    itemsize = property(lambda self: 4 * math.prod(self._impl.key_shape))

    def physical(self, shape):
        return tuple(shape) + tuple(self._impl.key_shape), np.dtype(np.uint32)

    def from_physical(self, data):
        return PRNGKeyArray(data, self._impl)

    def __eq__(self, other):
        return isinstance(other, KeyTy) and other._impl == self._impl

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((KeyTy, self._impl))

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name


class KeyAval(ExtendedAval):
    """The abstract value of a key array (`jax.typeof(key)`: `key<fry>[3]`): its
    logical shape and key dtype. Transformations never see it -- they carry the key
    data -- so it is only read, never staged."""
    __slots__ = ()

    def to_tangent_aval(self):
        """Keys have no tangent space: float0 of the keys' shape (JAX's)."""
        return ShapedArray(self.shape, dtypes.float0)

    to_ct_aval = at_least_vspace = to_tangent_aval


def _shape_of(x):
    return tuple(core.get_aval(x).shape)


def _logical(shape, impl):
    return tuple(shape)[:len(shape) - len(impl.key_shape)]


def _compare_with_non_key(name, key, other):
    """`key == other` for an `other` that is no key array: an array or a number is
    JAX's TypeError (keys compare only with keys), anything else Python's fallback."""
    if not (isinstance(other, (core.Tracer, core.Array, np.ndarray, np.generic, int, float,
                               complex)) and hasattr(jnp.asarray(other), "dtype")):
        return NotImplemented
    raise ArgumentTypeError(f"{name} does not accept dtypes {key.dtype}, "
                            f"{jnp.asarray(other).dtype}.",
                            hint="compare keys with keys (or their `random.key_data`)")


class PRNGKeyArray:
    """An array of typed PRNG keys (see the module docstring): shape, indexing,
    reshaping and transposition act on the keys; `key_data` gives the raw words."""
    __slots__ = ("_base", "_impl", "_consumed", "__weakref__")
    __array_priority__ = 100

    def __init__(self, base, impl: PRNGImpl | None = None):
        impl = threefry_prng_impl if impl is None else impl
        self._consumed = False   # the key-reuse checker's eager mark (random/key_reuse.py)
        self._base = type_as_keys(base, impl)
        self._impl = impl

    # ---------------------------------------------------------------- array facts
    shape = property(lambda self: _logical(
        _shape_of(self._base) if _is_key_data(self._base) else
        tuple(getattr(self._base, "shape", (0,) * len(self._impl.key_shape))), self._impl))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    dtype = property(lambda self: KeyTy(self._impl))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.itemsize)
    weak_type = False
    aval = property(lambda self: KeyAval(self.shape, self.dtype))
    committed = property(lambda self: bool(getattr(self._base, "committed", False)))

    @property
    def sharding(self):
        """The keys' layout (JAX's logical sharding): their data's, without its
        trailing key dimensions (a data spec shorter than the data is padded with
        `None` first: the keys of a split key are `P(None,)`)."""
        s = self._base.sharding
        if not isinstance(s, _shd.NamedSharding):
            return s
        spec = s.spec._normalized(len(self._base.shape))[:self.ndim]
        return _shd.NamedSharding(s.mesh, _shd.PartitionSpec(
            *spec, unreduced=s.spec.unreduced, reduced=s.spec.reduced),
            memory_kind=s.memory_kind)

    def _data_axes(self):
        return (slice(None),) * len(self._impl.key_shape)

    def _with(self, data):
        return PRNGKeyArray(data, self._impl)

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
        # the key-data axes are the trailing ones: every index leaves them whole
        return self._with(self._base[idx + self._data_axes()])

    @property
    def at(self):
        """`keys.at[idx].set(other_keys)` (the keys with those at `idx` replaced) and
        `keys.at[idx].get()`, as JAX's key arrays."""
        return _KeysAt(self)

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
        return self._with(jnp.reshape(self._base, shape + self._impl.key_shape))

    def ravel(self):
        return self.reshape(self.size)

    flatten = ravel

    def squeeze(self, axis=None):
        """Drop length-1 key axes (all of them, or `axis`)."""
        return self._with(jnp.squeeze(self._base, squeeze_axes(self.shape, axis)))

    def transpose(self, *axes):
        """Permute the key axes (the key data axes stay last)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        nd = self.ndim
        perm = tuple(a % nd for a in axes) if axes else tuple(reversed(range(nd)))
        tail = tuple(range(nd, nd + len(self._impl.key_shape)))
        return self._with(jnp.transpose(self._base, perm + tail))

    T = property(lambda self: self.transpose())

    def swapaxes(self, a, b):
        perm = list(range(self.ndim))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def broadcast_to(self, shape):
        """The keys broadcast to `shape`."""
        return self._with(jnp.broadcast_to(self._base, tuple(shape) + self._impl.key_shape))

    def copy(self):
        return self._with(jnp.array(self._base, copy=True))

    def block_until_ready(self):
        if hasattr(self._base, "block_until_ready"):
            self._base.block_until_ready()
        return self

    # ----------------------------------------------------------------- comparison
    def __eq__(self, other):
        if not isinstance(other, PRNGKeyArray):
            return _compare_with_non_key("equal", self, other)
        if not (_is_key_data(self._base) and _is_key_data(other._base)):
            # placeholders a transformation put in the data's place: plain equality
            return self._impl == other._impl and bool(self._base == other._base)
        if self.dtype != other.dtype:
            raise ArgumentTypeError(f"equal does not accept dtypes {self.dtype}, {other.dtype}.",
                                    hint="compare keys of one PRNG implementation")
        axes = tuple(range(-len(self._impl.key_shape), 0))
        return jnp.all(jnp.equal(self._base, other._base), axis=axes)

    def __ne__(self, other):
        if not isinstance(other, PRNGKeyArray):
            return _compare_with_non_key("not_equal", self, other)
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
            return f"PRNGKeyArray[{self._impl.name}]({self._base!r})"
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
        return ShapeDtypeStruct(_logical(data.shape, impl), KeyTy(impl))
    return PRNGKeyArray(data, impl)


tree_util.register_staging_leaf(PRNGKeyArray, lambda k: (k._base, k._impl), _from_physical)
core.Array.register(PRNGKeyArray)


def check_key_data(data, impl: PRNGImpl):
    """JAX's checks of raw key data for `impl` (trailing axes `impl.key_shape`, uint32)."""
    a = core.get_aval(data)
    kn = len(impl.key_shape)
    if a.ndim < 1 or a.shape[a.ndim - kn:] != impl.key_shape or a.ndim < kn:
        raise DTypeError("JAX encountered invalid PRNG key data: expected key_data.shape "
                         f"to end with {impl.key_shape}; got shape={a.shape} for "
                         f"impl={impl.name}",
                         hint=f"{impl.name} keys are uint32[..., "
                              f"{', '.join(map(str, impl.key_shape))}]")
    if a.dtype != dtypes.uint32:
        raise DTypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                         f"uint32; got dtype={a.dtype}")


def as_typed_key(k):
    """`k` as a typed key array: itself, or raw key data read as keys of the default
    implementation (the `jax_default_prng_impl` flag), as JAX reads raw keys."""
    if isinstance(k, PRNGKeyArray):
        return k
    impl = default_impl()
    if not hasattr(k, "aval"):
        if not isinstance(k, (np.ndarray, np.generic, list, tuple)):
            raise ArgumentTypeError(f"unexpected PRNG key type {type(k)}",
                                    hint="make keys with astjax.random.key(seed)")
        k = jnp.asarray(k)
    check_key_data(k, impl)
    return PRNGKeyArray(random_wrap(k, impl), impl)


def check_key(key, name):
    """`key` as one typed key (raw data read as the default implementation's), for
    `random.<name>`: an array of keys is JAX's ValueError."""
    key = as_typed_key(key)
    if key.ndim:
        raise ArgumentValueError(f"{name} accepts a single key, but was given a key array of "
                                 f"shape {key.shape} != (). Use jax.vmap for batching.",
                                 hint="use astjax.vmap to map over keys")
    return key


def data_of(keys):
    """The raw data under typed `keys` (a staged value through `random_unwrap`)."""
    return random_unwrap(keys._base)


def random_bits(key, bit_width, shape):
    """`bit_width`-bit random bits of `shape` from one typed key, by its implementation
    (staged: JAX's `random_bits` equation on the key)."""
    return _ops.random_bits(key._base, bit_width, tuple(shape), key._impl)


def split(key, shape):
    """Typed keys of `shape` split from one typed key, by its implementation (staged:
    JAX's `random_split` equation)."""
    return PRNGKeyArray(_ops.random_split(key._base, tuple(shape), key._impl), key._impl)


def fold_in(key, data):
    """One typed key: `key` with the uint32 scalar `data` folded in, by its implementation
    (staged: JAX's `random_fold_in` equation)."""
    return PRNGKeyArray(_ops.random_fold_in(key._base, data, key._impl), key._impl)


class _KeysAt:
    """`keys.at`: indexed by `[idx]` to a `_KeysAtIndex`."""
    __slots__ = ("keys",)

    def __init__(self, keys):
        self.keys = keys

    def __getitem__(self, idx):
        return _KeysAtIndex(self.keys, idx if isinstance(idx, tuple) else (idx,))


class _KeysAtIndex:
    """`keys.at[idx]`: `.get()` the keys there, `.set(values)` a copy with them replaced
    by the key array `values` (of the same implementation)."""
    __slots__ = ("keys", "idx")

    def __init__(self, keys, idx):
        self.keys, self.idx = keys, idx

    def get(self, **kwargs):
        return self.keys[self.idx]

    def set(self, values, **kwargs):
        keys = self.keys
        if not isinstance(values, PRNGKeyArray) or values._impl is not keys._impl:
            raise ArgumentTypeError(f"key_array.at[...].set: the values must be keys of the "
                                    f"same implementation ({keys.dtype}), got {values!r:.60}")
        return keys._with(keys._base.at[self.idx + keys._data_axes()].set(values._base, **kwargs))


KeyTy.aval_type = KeyAval   # (`core.ShapedArray(shape, key_dtype)` is a KeyAval)
