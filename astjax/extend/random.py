"""`astjax.extend.random` (JAX's `jax.extend.random`): the threefry2x32 PRNG's pieces
for libraries that build on them -- the hash as a primitive (`threefry2x32_p`) and as
a function on a key pair and counts (`threefry_2x32`), the implementation object
`threefry_prng_impl` (its key shape and seed / split / random_bits / fold_in), and
typed keys made from seeds with an implementation (`random_seed`, `seed_with_impl`).

This module sits in the libraries layer, above `astjax.random` which it builds on (the
rest of `astjax.extend` is below it); the package imports it, so `astjax.extend.random`
is there after `import astjax`.

Not here yet: `define_prng_impl`, `rbg_prng_impl`, `unsafe_rbg_prng_impl` (astjax's
typed keys carry threefry2x32 data only; docs/coming_from_jax.md)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from .. import numpy as jnp
from ..batching_api import vmap
from ..errors import ArgumentValueError, DTypeError
from ..primitives.threefry_draws import threefry2x32_p
from ..random.key_array import PRNGKeyArray
from ..random.impls import PRNGImpl, threefry_prng_impl

__all__ = ["PRNGImpl", "threefry2x32_p", "threefry_2x32", "threefry_prng_impl",
           "random_seed", "seed_with_impl"]


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
    """Typed keys of `impl`, one per element of the integer array `seeds` (shape
    `seeds.shape`), each `impl.seed(s)`."""
    if impl is not threefry_prng_impl:
        raise ArgumentValueError(f"random_seed: PRNG implementation {impl} is not supported",
                                 hint="astjax's typed keys implement threefry_prng_impl")
    seeds = np.int64(seeds) if isinstance(seeds, int) else seeds
    seeds = seeds if isinstance(seeds, core.Tracer) else jnp.asarray(seeds)
    seed = impl.seed
    for _ in range(core.get_aval(seeds).ndim):
        seed = vmap(seed)
    return PRNGKeyArray(seed(seeds))


def seed_with_impl(impl, seed):
    """`random_seed(seed, impl)`: typed keys of `impl` from `seed`."""
    return random_seed(seed, impl=impl)
