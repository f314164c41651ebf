"""`astjax.extend.random` (JAX's `jax.extend.random`): PRNG implementations for
libraries that build on them -- the records `threefry_prng_impl`, `rbg_prng_impl`,
`unsafe_rbg_prng_impl` (key shape and seed / split / random_bits / fold_in),
`define_prng_impl` (a new implementation from such functions, usable wherever one is
named: `random.key(0, impl=spec)`), the threefry2x32 hash as a primitive
(`threefry2x32_p`) and as a function on a key pair and counts (`threefry_2x32`), and
typed keys made from seeds with an implementation (`random_seed`, `seed_with_impl`).

This module sits in the libraries layer, above `astjax.random` which it builds on (the
rest of `astjax.extend` is below it); the package imports it, so `astjax.extend.random`
is there after `import astjax`."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from .. import numpy as jnp
from ..batching_api import vmap
from ..errors import DTypeError
from ..primitives.threefry_draws import threefry2x32_p
from ..random.key_array import PRNGKeyArray
from ..random.impls import (PRNGImpl, PRNGSpec, rbg_prng_impl, resolve_impl,
                            threefry_prng_impl, unsafe_rbg_prng_impl)

__all__ = ["PRNGImpl", "threefry2x32_p", "threefry_2x32", "threefry_prng_impl",
           "rbg_prng_impl", "unsafe_rbg_prng_impl", "define_prng_impl", "random_seed",
           "seed_with_impl"]


def define_prng_impl(*, key_shape, seed, split, random_bits, fold_in, name="<unnamed>",
                     tag="?"):
    """A new PRNG implementation (a `PRNGSpec`, accepted as `impl=` by `random.key`,
    `PRNGKey`, `wrap_key_data`, `key_dtype`): keys are uint32 data of shape `key_shape`;
    `seed(int[]) -> K`, `split(K, shape) -> K[*shape]`, `random_bits(K, bit_width,
    shape) -> uint<bit_width>[*shape]` and `fold_in(K, uint32[]) -> K` are written with
    `astjax.numpy` / `astjax.lax` on one key's data (vmap batches them); the dtype of
    its keys prints `key<tag>`."""
    shape = tuple(int(d) for d in key_shape)
    return PRNGSpec(PRNGImpl(shape, seed, split, random_bits, fold_in, name=name, tag=tag))


def threefry_2x32(keypair, count):
    """The threefry2x32 hash of the uint32 array `count` under the key `keypair` (a
    pair of uint32 scalars): a uint32 array of `count`'s shape (JAX's layout: the
    flattened counts, padded to even length, hashed as their two halves)."""
    key1, key2 = keypair
    key1, key2, count = (x if isinstance(x, core.Tracer) or hasattr(x, "aval")
                         else np.asarray(x) for x in (key1, key2, count))
    kinds = [core.get_aval(x).dtype for x in (key1, key2, count)]
    if any(k != dtypes.uint32 for k in kinds):
        raise DTypeError(f"threefry_2x32 requires uint32 arguments, got {[str(k) for k in kinds]}",
                         hint="convert with x.astype(jnp.uint32)")
    shape = core.get_aval(count).shape
    flat = jnp.ravel(count)
    odd = flat.shape[0] % 2
    if odd:
        flat = jnp.concatenate([flat, jnp.zeros((1,), jnp.uint32)])
    half = flat.shape[0] // 2
    y1, y2 = threefry2x32_p.bind(key1, key2, flat[:half], flat[half:])
    out = jnp.concatenate([y1, y2])
    return lax.reshape(out[:-1] if odd else out, shape)


def random_seed(seeds, impl):
    """Typed keys of `impl` (any way of naming one), one per element of the integer
    array `seeds` (shape `seeds.shape`), each `impl.seed(s)`."""
    impl = resolve_impl(impl)
    seeds = np.int64(seeds) if isinstance(seeds, int) else seeds
    seeds = seeds if isinstance(seeds, core.Tracer) else jnp.asarray(seeds)
    seed = impl.seed
    for _ in range(core.get_aval(seeds).ndim):
        seed = vmap(seed)
    return PRNGKeyArray(seed(seeds), impl)


def seed_with_impl(impl, seed):
    """`random_seed(seed, impl)`: typed keys of `impl` from `seed`."""
    return random_seed(seed, impl=impl)
