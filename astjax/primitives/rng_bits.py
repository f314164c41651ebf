"""XLA's own random number generators: `rng_bit_generator` (stateless: a key in, the
advanced key and random bits out, by XLA's ThreeFry or Philox; the same bits as JAX
for the same key and algorithm) and `rng_uniform` (stateful: XLA's `rng` op, new
numbers on every run). JAX discourages both in favour of `jax.random`.

Neither has a NumPy reference: the bits are defined by XLA's implementation, so
evaluation always goes through XLA. Both are integer-valued or stateful, hence
without derivatives (`nondiff`).
"""
from __future__ import annotations

import enum
import operator

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ArgumentTypeError, ArgumentValueError
from .base import mark_unsupported, match_scalars, moveaxis, nondiff, register
from .slicing import dynamic_update_index_in_dim, index_in_dim

__all__ = ["RandomAlgorithm", "rng_bit_generator_p", "rng_uniform_p"]


class RandomAlgorithm(enum.IntEnum):
    """Which of XLA's generators `rng_bit_generator` runs."""

    RNG_DEFAULT = 0
    "The platform's default (Philox on CPU)."

    RNG_THREE_FRY = 1
    "Threefry-2x32."

    RNG_PHILOX = 2
    "Philox-4x32."

    def __str__(self):
        return self.name


_HLO_ALGORITHM = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
                  RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                  RandomAlgorithm.RNG_PHILOX: "PHILOX"}
_BIT_DTYPES = tuple(np.dtype(f"uint{n}") for n in (8, 16, 32, 64))

# ------------------------------------------------------------------ rng_bit_generator

rng_bit_generator_p = core.new_primitive("rng_bit_generator", multiple_results=True)


def _rbg_abstract_eval(key, *, shape, dtype, algorithm, out_sharding=None):
    if not ((key.shape == (4,) and key.dtype == dtypes.uint32)
            or (key.shape == (2,) and key.dtype == np.dtype("uint64"))):
        raise ArgumentTypeError(f"rng_bit_generator: the key must be uint32[4] (or uint64[2]), "
                                f"got {key.dtype}{list(key.shape)}")
    return [key.update(weak_type=key.weak_type), ShapedArray(tuple(shape), np.dtype(dtype))]


def _rbg_lowering(ctx, key, *, shape, dtype, algorithm, out_sharding=None):
    key_aval, bits_aval = ctx.avals_out
    wide = ShapedArray((2,), np.dtype("uint64"))
    if key_aval.dtype == dtypes.uint32:  # XLA takes a u64[2] state
        pairs = ctx.op1("stablehlo.reshape", [key], ShapedArray((2, 2), dtypes.uint32))
        key = ctx.op1("stablehlo.bitcast_convert", [pairs], wide)
    attr = f"#stablehlo<rng_algorithm {_HLO_ALGORITHM[RandomAlgorithm(algorithm)]}>"
    new_key, bits = ctx.op("stablehlo.rng_bit_generator", [key], [wide, bits_aval],
                           attrs={"rng_algorithm": attr})
    if key_aval.dtype == dtypes.uint32:
        pairs = ctx.op1("stablehlo.bitcast_convert", [new_key],
                        ShapedArray((2, 2), dtypes.uint32))
        new_key = ctx.op1("stablehlo.reshape", [pairs], key_aval)
    return [new_key, bits]


def _rbg_batch(args, dims, *, shape, **params):
    # JAX's rule: one draw of (batch, *shape) bits from the first key of the batch;
    # only that key is advanced.
    (keys,), (d,) = args, dims
    if d is None:
        return bind(rng_bit_generator_p, keys, shape=shape, **params), [None, None]
    keys = moveaxis(keys, d, 0)
    n = core.get_aval(keys).shape[0]
    new_key, bits = bind(rng_bit_generator_p, index_in_dim(keys, 0, 0, False),
                         shape=(n,) + tuple(shape), **params)
    return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


register(rng_bit_generator_p, abstract_eval=_rbg_abstract_eval, lowering=_rbg_lowering,
         batch=_rbg_batch)
nondiff(rng_bit_generator_p)
mark_unsupported(rng_bit_generator_p, "impl", "the bits are those of XLA's generator: "
                                              "evaluated by XLA only")


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """`lax.rng_bit_generator`: `(new_key, bits)`, uniformly random unsigned integers
    of `shape` and `dtype` from XLA's stateless generator `algorithm`, and the key
    advanced past them. `key` is uint32[4] (or uint64[2]); the same key gives the
    same bits as JAX on the same platform."""
    shape = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ArgumentTypeError(f"rng_bit_generator: shape must be nonnegative, got {shape}")
    dt = dtypes.canonicalize(np.dtype(dtype))
    if dt not in _BIT_DTYPES:
        raise ArgumentTypeError(f"rng_bit_generator: unsupported dtype {np.dtype(dtype)}")
    if isinstance(key, (list, tuple)):
        key = np.asarray(key, dtypes.uint32)
    return tuple(bind(rng_bit_generator_p, key, shape=shape, dtype=dt,
                      algorithm=RandomAlgorithm(algorithm), out_sharding=out_sharding))


# ------------------------------------------------------------------------ rng_uniform

rng_uniform_p = core.new_primitive("rng_uniform")


def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ArgumentValueError(f"Arguments to rng_uniform must have identical dtypes, got "
                                 f"{a.dtype} and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ArgumentValueError(f"Arguments to rng_uniform must be scalars; got shapes "
                                 f"{a.shape} and {b.shape}.")
    return ShapedArray(tuple(shape), a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_lowering(ctx, a, b, *, shape):
    dims = ctx.constant(np.asarray(shape, np.int64), ShapedArray((len(shape),), np.dtype("int64")))
    return ctx.op1("stablehlo.rng", [a, b, dims],
                   attrs={"rng_distribution": "#stablehlo<rng_distribution UNIFORM>"})


register(rng_uniform_p, abstract_eval=_rng_uniform_abstract_eval,
         lowering=_rng_uniform_lowering)
nondiff(rng_uniform_p)
mark_unsupported(rng_uniform_p, "impl", "XLA's stateful generator: evaluated by XLA only")
mark_unsupported(rng_uniform_p, "batch", "a stateful draw has no batching rule (as in JAX)")


def rng_uniform(a, b, shape):
    """`lax.rng_uniform`: XLA's stateful generator, uniform numbers in [a, b) of
    `shape` (scalars `a`, `b` of one dtype); each run draws new numbers."""
    a, b = match_scalars(a, b)
    return bind(rng_uniform_p, a, b, shape=tuple(operator.index(d) for d in shape))
