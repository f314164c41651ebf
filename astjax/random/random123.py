"""JAX's threefry4x32, philox2x32 and philox4x32 PRNG implementations: the seed, split,
fold_in and random_bits functions on one key's data, built on the Random123 hashes
(`astjax/primitives/random123.py`), giving JAX 0.10.2's words for every operation.
`astjax/random/impls.py` makes the `PRNGImpl` records of them.

All three share JAX's layout:

- seed: the integer seed's (hi, lo) 32-bit words (as threefry2x32 reads a seed: the
  high word is 0 for a seed of 32 bits or fewer, a signed one sign-extended) hashed once
  to fill the key (threefry4x32: as the key, with a zero counter; the philox ones: as
  the counter, with a zero key);
- split and random_bits: element i of the result hashes the 64-bit counter i as its
  (hi, lo) words (`threefry.iota_2x32`), beside zero words;
- fold_in: the data in the last counter word, the others zero;
- random_bits: 32 bits (and 8 / 16, truncated) are the xor of every output word; 64
  bits join two 32-bit halves (threefry4x32: out0 ^ out2 high, out1 ^ out3 low;
  philox: out0 high, out1 low).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import DTypeError
from ..primitives.random123 import philox2x32_p, philox4x32_p, threefry4x32_p
from . import threefry as _tf

__all__ = ["threefry4x32_seed", "threefry4x32_split", "threefry4x32_fold_in",
           "threefry4x32_random_bits", "philox2x32_seed", "philox2x32_split",
           "philox2x32_fold_in", "philox2x32_random_bits", "philox4x32_seed",
           "philox4x32_split", "philox4x32_fold_in", "philox4x32_random_bits"]

_U32 = dtypes.uint32
_Z = np.uint32(0)


def _words(key, n):
    """The n uint32 scalar words of one key's data."""
    return [lax.squeeze(lax.slice(key, (i,), (i + 1,)), (0,)) for i in range(n)]


def _seed_words(seed):
    """The (hi, lo) words of an integer seed, as threefry2x32's key of it."""
    return _words(_tf.seed(seed), 2)


def _stack(outs):
    """Output words of one shape stacked on a new last axis (one key's data each)."""
    nd = core.get_aval(outs[0]).ndim
    return lax.concatenate([lax.expand_dims(o, (nd,)) for o in outs], nd)


def _counters(shape):
    """The (hi, lo) words of each element's flat index, and zeros, of `shape`."""
    hi, lo = _tf.iota_2x32(tuple(shape))
    return hi, lo, lax.full(tuple(shape), 0, _U32)


def _fold_data(data):
    return data if core.get_aval(data).dtype == _U32 else lax.convert_element_type(data, _U32)


def _bits_of(words32, hi, lo, bit_width):
    """`bit_width` bits from the hash's words: the xor of all of them (truncated below
    32 bits), or `hi` and `lo` joined for 64."""
    if bit_width not in (8, 16, 32, 64):
        raise DTypeError("random bits need an 8-, 16-, 32- or 64-bit width")
    if bit_width == 64:
        u64 = dtypes.canonicalize(dtypes.uint64)
        if u64 != dtypes.uint64:
            raise DTypeError("64-bit random bits need jax_enable_x64")
        return lax.bitwise_or(lax.shift_left(lax.convert_element_type(hi, u64), np.uint64(32)),
                              lax.convert_element_type(lo, u64))
    bits = words32[0]
    for w in words32[1:]:
        bits = lax.bitwise_xor(bits, w)
    return bits if bit_width == 32 else lax.convert_element_type(bits, np.dtype(f"uint{bit_width}"))

# ------------------------------------------------------------------- threefry4x32


def threefry4x32_seed(seed):
    """Four words: the seed's (hi, lo) as the key's first two words, zeros after, hashed
    at counter 0."""
    hi, lo = _seed_words(seed)
    return _stack(threefry4x32_p.bind(hi, lo, _Z, _Z, _Z, _Z, _Z, _Z))


def threefry4x32_split(key, shape):
    """Key i of `shape`: the hash of counter (0, 0, hi(i), lo(i))."""
    hi, lo, zero = _counters(shape)
    return _stack(threefry4x32_p.bind(*_words(key, 4), zero, zero, hi, lo))


def threefry4x32_fold_in(key, data):
    """The hash of counter (0, 0, 0, data)."""
    return _stack(threefry4x32_p.bind(*_words(key, 4), _Z, _Z, _Z, _fold_data(data)))


def threefry4x32_random_bits(key, bit_width, shape):
    """Element i: the words of counter (hi(i), lo(i), 0, 0)."""
    hi, lo, zero = _counters(shape)
    o = threefry4x32_p.bind(*_words(key, 4), hi, lo, zero, zero)
    return _bits_of(o, lax.bitwise_xor(o[0], o[2]), lax.bitwise_xor(o[1], o[3]), bit_width)

# --------------------------------------------------------------------- philox2x32


def philox2x32_seed(seed):
    """One word: the first output of the seed's (hi, lo) hashed as the counter under
    key 0."""
    hi, lo = _seed_words(seed)
    return _stack(philox2x32_p.bind(_Z, hi, lo)[:1])


def philox2x32_split(key, shape):
    """Key i of `shape`: the first output for counter (hi(i), lo(i))."""
    hi, lo, _ = _counters(shape)
    return _stack(philox2x32_p.bind(*_words(key, 1), hi, lo)[:1])


def philox2x32_fold_in(key, data):
    """The first output for counter (0, data)."""
    return _stack(philox2x32_p.bind(*_words(key, 1), _Z, _fold_data(data))[:1])


def philox2x32_random_bits(key, bit_width, shape):
    """Element i: the two outputs for counter (hi(i), lo(i))."""
    hi, lo, _ = _counters(shape)
    o = philox2x32_p.bind(*_words(key, 1), hi, lo)
    return _bits_of(o, o[0], o[1], bit_width)

# --------------------------------------------------------------------- philox4x32


def philox4x32_seed(seed):
    """Two words: the first outputs of counter (hi, lo, 0, 0) under key (0, 0)."""
    hi, lo = _seed_words(seed)
    return _stack(philox4x32_p.bind(_Z, _Z, hi, lo, _Z, _Z)[:2])


def philox4x32_split(key, shape):
    """Key i of `shape`: the first two outputs for counter (0, 0, hi(i), lo(i))."""
    hi, lo, zero = _counters(shape)
    return _stack(philox4x32_p.bind(*_words(key, 2), zero, zero, hi, lo)[:2])


def philox4x32_fold_in(key, data):
    """The first two outputs for counter (0, 0, 0, data)."""
    return _stack(philox4x32_p.bind(*_words(key, 2), _Z, _Z, _Z, _fold_data(data))[:2])


def philox4x32_random_bits(key, bit_width, shape):
    """Element i: the four outputs for counter (hi(i), lo(i), 0, 0)."""
    hi, lo, zero = _counters(shape)
    o = philox4x32_p.bind(*_words(key, 2), hi, lo, zero, zero)
    return _bits_of(o, o[0], o[1], bit_width)
