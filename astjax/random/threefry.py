"""The threefry2x32 counter-based hash and the key operations built on it, exactly
as JAX's default PRNG implementation: `seed`, `split`, `fold_in` and `random_bits`
give the same bits as `jax.random` for the same key, shape and dtype.

The flag `jax_threefry_partitionable` picks the counter layout, as in JAX: True
(JAX's default since 0.5) hashes each element's own 64-bit index, so any slice of a
sample is computable on its own; False gives JAX's original layout, where the flat
counter `0 .. n-1` is cut into two halves that are hashed as pairs (and 8-/16-bit
samples unpack each 32-bit word, low bits first). `seed` and `fold_in` are the same
under both settings.

Keys are raw `uint32[..., 2]` arrays (JAX's "legacy" key representation); the
typed-key API (`key`, `key_data`, `wrap_key_data`) maps onto the same arrays.
Everything here is written with lax uint32 ops, so it stages, differentiates
(as a constant) and batches like any other code.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..codegen import runtime, sharded, spmd
from ..config import config
from ..errors import ArgumentError, ArgumentTypeError, ArgumentValueError, DTypeError
from ..numpy.operands import _constant
from ..primitives import threefry_draws as _hash
from ..sharding_impls import context_mesh, context_meshes

_U32 = dtypes.uint32


def _u32(v):
    return np.uint32(v)


def threefry2x32(k1, k2, x1, x2):
    """The threefry2x32 block function on uint32 arrays (keys broadcast); rolled into a
    loop when staged on CPU (`_rolled_loops`) -- not where operations on known values run
    now (`ensure_compile_time_eval`: the loop's staged constants would stage it)."""
    staged = core.current_builder() is not None and not core._state.compile_time_eval
    return _hash.threefry2x32(k1, k2, x1, x2, rolled=staged and _rolled_loops())


def _rolled_loops():
    """Roll the five rounds into a loop on CPU, as JAX's CPU lowering does: XLA then
    keeps the ~100-op hash out of the fusions of its consumers (a sample sliced 100
    ways compiled 100 copies of it, issue 14). Other platforms get the unrolled form."""
    return runtime.platform() == "cpu"


def iota_2x32(shape):
    """(hi, lo) uint32 words of the row-major flat index of each element of `shape`."""
    if not shape:
        z = lax.full((), 0, _U32)
        return z, z
    size = int(np.prod(shape, dtype=np.int64))
    if size >= 2 ** 32:
        raise ArgumentValueError("random arrays of 2**32 elements or more are not supported")
    lo = None
    stride = 1
    for d in range(len(shape) - 1, -1, -1):
        term = lax.broadcasted_iota(_U32, shape, d)
        if stride != 1:
            term = lax.mul(term, _u32(stride))
        lo = term if lo is None else lax.add(lo, term)
        stride *= shape[d]
    return lax.full(shape, 0, _U32), lo


def check_key(key, name):
    a = core.get_aval(key)
    if a.dtype != _U32 or a.shape[-1:] != (2,):
        raise DTypeError(f"`random.{name}` needs a PRNG key (uint32 array of shape (..., 2)), "
                         f"got {a.str_short(True)}",
                         hint="make one with astjax.random.PRNGKey(seed) or random.key(seed)")
    if a.ndim != 1:
        raise ArgumentValueError(f"`random.{name}` takes a single key, got a key array of shape "
                            f"{a.shape[:-1]}", hint="use astjax.vmap to map over keys")
    return key


def _halves(key):
    return (lax.squeeze(lax.slice(key, (0,), (1,)), (0,)),
            lax.squeeze(lax.slice(key, (1,), (2,)), (0,)))


def seed(s):
    """`jax.random.PRNGKey(seed)` data: the 64-bit seed as (hi, lo) uint32 words."""
    if isinstance(s, (bool, np.bool_)) or not (isinstance(s, (int, np.integer)) or dtypes.is_int(
            core.get_aval(s).dtype)):
        raise DTypeError(f"a PRNG seed must be an integer, got {s!r:.40}")
    if isinstance(s, (int, np.integer)):
        s = int(s)
        if config.x64_enabled:
            s &= 0xFFFFFFFFFFFFFFFF
            hi, lo = s >> 32, s & 0xFFFFFFFF
        else:
            hi, lo = 0, s & 0xFFFFFFFF
        v = np.array([hi, lo], np.uint32)
        if core.current_builder() is None and context_meshes[0] and context_mesh() is not None:
            # (JAX seeds in a `jit` on set_mesh's mesh: its result typed over the mesh)
            return sharded.put(v, spmd.replicated(context_mesh(), core.get_aval(v)))
        return _constant(v)
    a = core.get_aval(s)
    if a.shape != ():
        raise ArgumentTypeError(f"a PRNG seed must be a scalar, got shape {a.shape}",
                            hint="use astjax.vmap to make several keys")
    if a.dtype.itemsize == 8:
        hi = lax.convert_element_type(lax.shift_right_logical(s, np.asarray(32, a.dtype)[()]), _U32)
    else:
        hi = lax.full((), 0, _U32)
    lo = lax.convert_element_type(s if a.dtype.itemsize <= 4 else lax.bitwise_and(
        s, np.asarray(0xFFFFFFFF, a.dtype)[()]), _U32)
    return lax.concatenate([lax.reshape(hi, (1,)), lax.reshape(lo, (1,))], 0)


def _hash_counts(k1, k2, counts):
    """JAX's original `threefry_2x32(key, counts)` on a 1-D uint32 `counts`: its two
    halves (zero-padded to an even length) are hashed as pairs and the two outputs
    concatenated again."""
    n = core.get_aval(counts).shape[0]
    if n % 2:
        counts = lax.concatenate([counts, lax.full((1,), 0, _U32)], 0)
    half = (n + 1) // 2
    x1 = lax.slice(counts, (0,), (half,))
    x2 = lax.slice(counts, (half,), (2 * half,))
    b1, b2 = threefry2x32(k1, k2, x1, x2)
    out = lax.concatenate([b1, b2], 0)
    return lax.slice(out, (0,), (n,)) if n % 2 else out


def _partitionable():
    return config.read("jax_threefry_partitionable")


def _check_size(n):
    if n >= 2 ** 32 - 1:
        raise ArgumentValueError("random arrays of 2**32 elements or more are not supported")


def split(key, shape):
    k1, k2 = _halves(key)
    if not _partitionable():
        num = int(np.prod(shape, dtype=np.int64))
        _check_size(2 * num)
        bits = _hash_counts(k1, k2, lax.iota(_U32, 2 * num))
        return lax.reshape(bits, (*shape, 2))
    c1, c2 = iota_2x32(shape)
    b1, b2 = threefry2x32(k1, k2, c1, c2)
    nd = len(shape)
    return lax.concatenate([lax.expand_dims(b1, (nd,)), lax.expand_dims(b2, (nd,))], nd)


def fold_in(key, data):
    k1, k2 = _halves(key)
    a = core.get_aval(data)
    if a.dtype != _U32:
        data = lax.convert_element_type(data, _U32)
    zero = lax.full((), 0, _U32)
    b1, b2 = threefry2x32(k1, k2, zero, data)
    return lax.concatenate([lax.reshape(b1, (1,)), lax.reshape(b2, (1,))], 0)


def random_bits(key, bit_width, shape):
    """Uniform random bits as an unsigned integer array of `bit_width` bits."""
    if bit_width not in (8, 16, 32, 64):
        raise DTypeError("random bits need an 8-, 16-, 32- or 64-bit width")
    k1, k2 = _halves(key)
    if bit_width == 64:
        u64 = dtypes.canonicalize(dtypes.uint64)
        if u64 != dtypes.uint64:
            raise DTypeError("64-bit random bits need jax_enable_x64")
    if not _partitionable():
        return _original_bits(k1, k2, bit_width, shape)
    c1, c2 = iota_2x32(shape)
    b1, b2 = threefry2x32(k1, k2, c1, c2)
    if bit_width == 64:
        hi = lax.convert_element_type(b1, u64)
        lo = lax.convert_element_type(b2, u64)
        return lax.bitwise_or(lax.shift_left(hi, np.uint64(32)), lo)
    bits = lax.bitwise_xor(b1, b2)
    if bit_width == 32:
        return bits
    return lax.convert_element_type(bits, np.dtype(f"uint{bit_width}"))


def _original_bits(k1, k2, bit_width, shape):
    """`random_bits` in JAX's original (non-partitionable) layout: ceil(bits / 32)
    words hashed from the flat counter; 64-bit values join the first half (high
    words) with the second (low words), 8-/16-bit values are the words' pieces, low
    bits first."""
    size = int(np.prod(shape, dtype=np.int64))
    words = -(-bit_width * size // 32)
    _check_size(words)
    bits = _hash_counts(k1, k2, lax.iota(_U32, words))
    dtype = np.dtype(f"uint{bit_width}")
    if bit_width == 64:
        u64 = dtypes.canonicalize(dtypes.uint64)
        hi = lax.convert_element_type(lax.slice(bits, (0,), (size,)), u64)
        lo = lax.convert_element_type(lax.slice(bits, (size,), (2 * size,)), u64)
        bits = lax.bitwise_or(lax.shift_left(hi, np.uint64(32)), lo)
    elif bit_width < 32:
        per = 32 // bit_width
        shifts = lax.mul(lax.broadcasted_iota(_U32, (words, per), 1), _u32(bit_width))
        pieces = lax.bitwise_and(
            lax.shift_right_logical(lax.broadcast_in_dim(bits, (words, per), (0,)), shifts),
            _u32((1 << bit_width) - 1))
        pieces = lax.reshape(pieces, (words * per,))
        bits = lax.convert_element_type(lax.slice(pieces, (0,), (size,)), dtype)
    return lax.reshape(bits, tuple(shape))
