"""PRNG implementations: what a typed key's dtype names and every key operation
dispatches through (JAX's `PRNGImpl`).

An implementation is a record of a key shape (the trailing uint32 axes of one key's
data) and four functions on one key's data: `seed(int[]) -> K`, `split(K, shape) ->
K[*shape]`, `random_bits(K, bit_width, shape) -> uint<bit_width>[*shape]` and
`fold_in(K, uint32[]) -> K`, with a `name` (`random.key(0, impl=name)`) and a short
`tag` (the dtype `key<tag>`). The registered ones, as JAX 0.10.2 computes them on CPU:

- `threefry2x32` (`key<fry>`, JAX's default): two words, everything by the threefry
  hash (`astjax/random/threefry.py`);
- `rbg` (`key<rbg>`): four words, two threefry half-keys; seeded, split and folded
  with threefry on each half, bits drawn by XLA's `rng_bit_generator` (the platform's
  default algorithm) from the whole key;
- `unsafe_rbg` (`key<urbg>`): as `rbg`, but split and folded by `rng_bit_generator`
  itself (faster, statistically weaker);
- `threefry4x32` (`key<fry4>`, four words), `philox2x32` (`key<phx2>`, one word) and
  `philox4x32` (`key<phx4>`, two words): Random123's other counter-based hashes
  (`astjax/random/random123.py`).

`jax.extend.random.define_prng_impl` makes others (a `PRNGSpec` over a `PRNGImpl`);
`resolve_impl` reads every way an implementation is named (None: the
`jax_default_prng_impl` flag, a name, a spec, a record, a key dtype).
"""
from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np

from .. import core, dtypes, lax
from ..batching_api import vmap
from ..config import config
from ..numpy.util import _Direct
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError
from ..primitives.rng_bits import rng_bit_generator
from . import random123 as _r123
from . import threefry as _tf

__all__ = ["PRNGImpl", "PRNGSpec", "threefry_prng_impl", "rbg_prng_impl",
           "unsafe_rbg_prng_impl", "threefry4x32_prng_impl", "philox2x32_prng_impl",
           "philox4x32_prng_impl", "PRNGS", "resolve_impl", "default_impl", "impl_spec"]


class PRNGImpl(NamedTuple):
    """A PRNG implementation (JAX's `PRNGImpl`): the shape of one key's uint32 data and
    the functions `seed(int[]) -> K`, `split(K, shape) -> K[*shape]`,
    `random_bits(K, bit_width, shape)`, `fold_in(K, uint32[]) -> K`; `name` and `tag`
    (the dtype prints `key<tag>`). Records compare field by field and hash by tag."""
    key_shape: tuple
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self):
        return hash(self.tag)

    def __str__(self):
        return self.tag

    def seed_each(self, seeds):
        """The key data of every seed of the integer array `seeds` (of any shape),
        `uint32[*seeds.shape, *key_shape]`: `seed` mapped over the seeds (what the
        `random_seed` primitive lowers to)."""
        shape = tuple(core.get_aval(seeds).shape)
        if not shape:
            return self.seed(seeds)
        flat = vmap(_Direct(self.seed))(lax.reshape(seeds, (math.prod(shape),)))
        return lax.reshape(flat, shape + tuple(self.key_shape))

    def split_each(self, keys, shape):
        """Every key of `keys` (data `uint32[n, *key_shape]`) split to `shape`, giving
        `uint32[n, *shape, *key_shape]`: the split `vmap`ped over the keys, as JAX's gamma
        sampler splits a batch of keys (so unsafe_rbg's `rng_bit_generator` draws every
        key's split from the batch's first key, by its batching rule, as in JAX)."""
        return vmap(_Direct(lambda k: self.split(k, tuple(shape))))(keys)

    def fold_in_each(self, keys, msgs):
        """Every key of `keys` (data `uint32[*shape, *key_shape]`) with the uint32 of
        `msgs` (`uint32[*shape]`) at its place folded in: `fold_in` `vmap`ped once per
        axis of the keys, outermost first. A size-1 axis of one side (or a whole side
        without axes) broadcasts: that side is not mapped there, as in JAX, so
        unsafe_rbg's `rng_bit_generator` draws from the mapped side only."""
        kn = len(self.key_shape)
        kshape = tuple(core.get_aval(keys).shape)
        lead, mshape = kshape[:len(kshape) - kn], tuple(core.get_aval(msgs).shape)
        if not lead or not mshape:
            axes = [(None, 0)] * len(mshape) if not lead else [(0, None)] * len(lead)
        else:
            rank = max(len(lead), len(mshape))
            lead, mshape = (1,) * (rank - len(lead)) + lead, (1,) * (rank - len(mshape)) + mshape
            axes = [(0, 0) if a == b else (None, 0) if a == 1 else (0, None)
                    for a, b in zip(lead, mshape)]
            keys = lax.reshape(keys, tuple(a for a, (k, _) in zip(lead, axes) if k == 0)
                               + tuple(self.key_shape))
            msgs = lax.reshape(msgs, tuple(b for b, (_, m) in zip(mshape, axes) if m == 0))
        f = self.fold_in
        for ax in reversed(axes):   # (a fresh lambda per level: vmap unwraps wrappers)
            f = vmap(_Direct(lambda k, m, inner=f: inner(k, m)), in_axes=ax)
        return f(keys, msgs)

    def bits_each(self, keys, bit_width, shape):
        """`bit_width`-bit random bits of `shape` from every key of `keys` (data
        `uint32[n, *key_shape]`): `random_bits` `vmap`ped over the keys."""
        return vmap(_Direct(lambda k: self.random_bits(k, bit_width, tuple(shape))))(keys)


class PRNGSpec:
    """A handle on a PRNG implementation (what `define_prng_impl` returns and
    `random.key_impl` gives for an unregistered one): accepted wherever an
    implementation is named."""
    __slots__ = ("_impl",)

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    def __repr__(self):
        return f"PRNGSpec({self._impl.name!r})"

    def __str__(self):
        return str(self._impl)

    def __hash__(self):
        return hash(self._impl)

    def __eq__(self, other):
        return isinstance(other, PRNGSpec) and self._impl == other._impl


threefry_prng_impl = PRNGImpl((2,), _tf.seed, _tf.split, _tf.random_bits, _tf.fold_in,
                              name="threefry2x32", tag="fry")

# ------------------------------------------------------------------------------ rbg

_U32 = dtypes.uint32


def _rbg_seed(seed):
    """Four words: the threefry key of `seed`, twice."""
    half = _tf.seed(seed)
    return lax.concatenate([half, half], 0)


def _halves(key):
    return lax.slice(key, (0,), (2,)), lax.slice(key, (2,), (4,))


def _rbg_split(key, shape):
    """Each threefry half-key split to `shape`; key i is half-key 1's key i followed by
    half-key 2's (JAX vmaps the threefry split over the halves)."""
    nd = len(shape)
    parts = [lax.expand_dims(_tf.split(h, shape), (nd,)) for h in _halves(key)]
    return lax.reshape(lax.concatenate(parts, nd), (*shape, 4))


def _rbg_fold_in(key, data):
    """Each threefry half-key folded with `data`."""
    return lax.concatenate([_tf.fold_in(h, data) for h in _halves(key)], 0)


def _rbg_random_bits(key, bit_width, shape):
    """`shape` values of `bit_width` bits from XLA's generator started at the key."""
    a = core.get_aval(key)
    if a.shape != (4,) or a.dtype != _U32:
        raise DTypeError(f"rbg random bits need a uint32[4] key, got {a.str_short(True)}")
    if bit_width not in (8, 16, 32, 64):
        raise DTypeError("random bits need an 8-, 16-, 32- or 64-bit width")
    dt = np.dtype(f"uint{bit_width}")
    if dtypes.canonicalize(dt) != dt:
        raise DTypeError("64-bit random bits need jax_enable_x64")
    return rng_bit_generator(key, tuple(shape), dt)[1]


rbg_prng_impl = PRNGImpl((4,), _rbg_seed, _rbg_split, _rbg_random_bits, _rbg_fold_in,
                         name="rbg", tag="rbg")


def _unsafe_rbg_split(key, shape):
    """Every tenth row of `10 * n` generated keys (ten draws act as the hash)."""
    n = math.prod(shape)
    rows = rng_bit_generator(key, (10 * n, 4), _U32)[1]
    return lax.reshape(lax.slice(rows, (0, 0), (10 * n, 4), (10, 1)), (*shape, 4))


def _unsafe_rbg_fold_in(key, data):
    """The key xor the tenth row generated from the rbg seed of `data`."""
    rows = rng_bit_generator(_rbg_seed(data), (10, 4), _U32)[1]
    return lax.bitwise_xor(key, lax.reshape(lax.slice(rows, (9, 0), (10, 4)), (4,)))


unsafe_rbg_prng_impl = PRNGImpl((4,), _rbg_seed, _unsafe_rbg_split, _rbg_random_bits,
                                _unsafe_rbg_fold_in, name="unsafe_rbg", tag="urbg")

# ------------------------------------------------------------------------ random123

threefry4x32_prng_impl = PRNGImpl((4,), _r123.threefry4x32_seed, _r123.threefry4x32_split,
                                  _r123.threefry4x32_random_bits, _r123.threefry4x32_fold_in,
                                  name="threefry4x32", tag="fry4")
philox2x32_prng_impl = PRNGImpl((1,), _r123.philox2x32_seed, _r123.philox2x32_split,
                                _r123.philox2x32_random_bits, _r123.philox2x32_fold_in,
                                name="philox2x32", tag="phx2")
philox4x32_prng_impl = PRNGImpl((2,), _r123.philox4x32_seed, _r123.philox4x32_split,
                                _r123.philox4x32_random_bits, _r123.philox4x32_fold_in,
                                name="philox4x32", tag="phx4")

# ------------------------------------------------------------------- naming an impl

PRNGS: dict[str, PRNGImpl] = {i.name: i for i in (
    threefry_prng_impl, rbg_prng_impl, unsafe_rbg_prng_impl, threefry4x32_prng_impl,
    philox2x32_prng_impl, philox4x32_prng_impl)}


def default_impl() -> PRNGImpl:
    """The implementation the `jax_default_prng_impl` flag names."""
    return PRNGS[config.read("jax_default_prng_impl")]


def resolve_impl(spec: Any) -> PRNGImpl:
    """The implementation `spec` names: None (the default), a name, a `PRNGSpec`, a
    `PRNGImpl` or a key dtype; anything else is JAX's error."""
    if spec is None:
        return default_impl()
    if type(spec) is PRNGImpl:
        return spec
    if isinstance(spec, PRNGSpec):
        return spec._impl
    if isinstance(spec, dtypes.ExtendedDType) and isinstance(getattr(spec, "_impl", None),
                                                             PRNGImpl):   # a key dtype
        return spec._impl
    if type(spec) is str:
        if spec in PRNGS:
            return PRNGS[spec]
        names = ", ".join(f'"{n}"' for n in PRNGS)
        raise ArgumentValueError(f'unrecognized PRNG implementation "{spec}". '
                                 f"Did you mean one of: {names}?")
    raise ArgumentTypeError(f"unrecognized type {type(spec)} for specifying PRNG "
                            "implementation.")


def impl_spec(impl: PRNGImpl):
    """What `random.key_impl` answers: the name of a registered implementation, a
    `PRNGSpec` of another."""
    return impl.name if PRNGS.get(impl.name) is impl else PRNGSpec(impl)
