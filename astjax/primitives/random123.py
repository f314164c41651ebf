"""The Random123 counter-based hashes under JAX's other PRNG implementations (Salmon et
al., 2011), each a primitive as JAX declares it: `threefry4x32_p` (key k0..k3, counter
x0..x3; 20 rounds of the four-word Threefry mix, a key injection every four),
`philox2x32_p` (key k0, counter x0, x1; 10 rounds of one multiply-high/low) and
`philox4x32_p` (key k0, k1, counter x0..x3; 10 rounds of two). The key schedules,
rotation constants and multipliers are Random123's, so the words are the reference
generators' (and JAX 0.10.2's, `astjax/random/random123.py` builds the implementations
on them).

Each block holds: operands uint32 arrays of one shape, or scalars broadcast against it
(JAX's broadcasting rule); results the four (two) output words of that shape; impl a
NumPy copy of the rounds (uint32 wrap-around arithmetic, the high product word through
uint64); lowering the same rounds on lax values (JAX's `lower_fun`); batching the
broadcasting rule (an unbatched operand is broadcast, a batched one moved to the batch
axis); no derivative (integers: `nondiff`).
"""
from __future__ import annotations

import numpy as np

from .. import core
from ..core import ShapedArray
from ..errors import ShapeError
from .base import defbroadcasting, lax_ops, lowering_from, nondiff, register
from .threefry_draws import hash_shape

__all__ = ["threefry4x32_p", "philox2x32_p", "philox4x32_p"]

_U32 = np.dtype(np.uint32)


def _rotl(x, d):
    return (x << np.uint32(d)) | (x >> np.uint32(32 - d))


class _NumpyOps:
    """uint32 NumPy arithmetic, wrapping as XLA's does: the impls' operations."""
    add = staticmethod(lambda x, y: x + y)
    xor = staticmethod(lambda x, y: x ^ y)
    rotl = staticmethod(_rotl)
    mullo = staticmethod(lambda m, x: np.uint32(m) * x)
    mulhi = staticmethod(lambda m, x: ((np.uint64(m) * x.astype(np.uint64))
                                       >> np.uint64(32)).astype(_U32))


class _LaxOps:
    """The same operations on lax values: the lowerings'."""
    add = staticmethod(lambda x, y: lax_ops().add(x, y))
    xor = staticmethod(lambda x, y: lax_ops().bitwise_xor(x, y))
    mullo = staticmethod(lambda m, x: lax_ops().mul(x, np.uint32(m)))
    mulhi = staticmethod(lambda m, x: lax_ops().mulhi(x, np.uint32(m)))

    @staticmethod
    def rotl(x, d):
        L = lax_ops()
        return L.bitwise_or(L.shift_left(x, np.uint32(d)),
                            L.shift_right_logical(x, np.uint32(32 - d)))


def _declare(name, n_in, n_out, rounds):
    """A hash primitive: `rounds(ops, *words)` is the computation, on NumPy arrays (impl)
    or lax values (lowering), with scalars broadcast to the operands' shape first."""
    p = core.new_primitive(name, multiple_results=True)

    def abstract_eval(*avals):
        if len(avals) != n_in:
            raise ShapeError(f"{name} expects {n_in} arguments, got {len(avals)}")
        return [ShapedArray(hash_shape(name, avals), _U32)] * n_out

    def impl(*args):
        shape = np.broadcast_shapes(*(np.shape(v) for v in args))
        words = [np.broadcast_to(np.asarray(v, _U32), shape).copy() for v in args]
        with np.errstate(over="ignore"):
            return [np.asarray(w, _U32) for w in rounds(_NumpyOps, *words)]

    def lower(*args):
        L = lax_ops()
        shape = hash_shape(name, [core.get_aval(v) for v in args])
        words = [v if core.get_aval(v).shape == shape else L.broadcast(v, shape) for v in args]
        return list(rounds(_LaxOps, *words))

    elementwise = defbroadcasting(p)

    def batch(args, dims):
        outs, d = elementwise(args, dims)
        return outs, [d] * n_out

    register(p, impl=impl, abstract_eval=abstract_eval,
             lowering=lowering_from(lower, multiple_results=True), batch=batch)
    nondiff(p)
    return p

# ------------------------------------------------------------------- threefry4x32
# Random123's rotation pairs, one per round (cycling every eight), and the Skein
# key-schedule parity word


_ROT_4X32 = ((10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20))
_PARITY = np.uint32(0x1BD11BDA)


def _threefry4x32_rounds(op, k0, k1, k2, k3, x0, x1, x2, x3):
    """20 rounds: even rounds mix the pairs (0, 1), (2, 3), odd ones (0, 3), (2, 1); after
    every fourth, the key schedule (the four key words and their parity) is added,
    rotated by one, plus the injection count in the last word."""
    ks = [k0, k1, k2, k3, op.xor(op.xor(op.xor(op.xor(k0, k1), k2), k3), _PARITY)]
    x = [op.add(x0, k0), op.add(x1, k1), op.add(x2, k2), op.add(x3, k3)]
    for rnd in range(20):
        ra, rb = _ROT_4X32[rnd % 8]
        (a, b), (c, d) = ((0, 1), (2, 3)) if rnd % 2 == 0 else ((0, 3), (2, 1))
        x[a] = op.add(x[a], x[b])
        x[b] = op.xor(x[a], op.rotl(x[b], ra))
        x[c] = op.add(x[c], x[d])
        x[d] = op.xor(x[c], op.rotl(x[d], rb))
        if rnd % 4 == 3:
            j = rnd // 4
            x = [op.add(x[i], ks[(i + 1 + j) % 5]) for i in range(4)]
            x[3] = op.add(x[3], np.uint32(j + 1))
    return tuple(x)


threefry4x32_p = _declare("threefry4x32", 8, 4, _threefry4x32_rounds)

# --------------------------------------------------------------------- philox2x32
# Random123's multiplier and Weyl key increments


_M2X32 = 0xD256D193
_M4X32 = (0xD2511F53, 0xCD9E8D57)
_WEYL = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))


def _philox2x32_rounds(op, k0, x0, x1):
    """10 rounds of (x0, x1) -> (hi(M x0) ^ x1 ^ k, lo(M x0)), the key bumped by the
    Weyl constant before every round but the first."""
    for rnd in range(10):
        if rnd:
            k0 = op.add(k0, _WEYL[0])
        x0, x1 = op.xor(op.xor(op.mulhi(_M2X32, x0), x1), k0), op.mullo(_M2X32, x0)
    return x0, x1


philox2x32_p = _declare("philox2x32", 3, 2, _philox2x32_rounds)

# --------------------------------------------------------------------- philox4x32


def _philox4x32_rounds(op, k0, k1, x0, x1, x2, x3):
    """10 rounds of (x0..x3) -> (hi(M1 x2) ^ x1 ^ k0, lo(M1 x2), hi(M0 x0) ^ x3 ^ k1,
    lo(M0 x0)), both key words bumped by their Weyl constants before every round but
    the first."""
    m0, m1 = _M4X32
    for rnd in range(10):
        if rnd:
            k0, k1 = op.add(k0, _WEYL[0]), op.add(k1, _WEYL[1])
        x0, x1, x2, x3 = (op.xor(op.xor(op.mulhi(m1, x2), x1), k0), op.mullo(m1, x2),
                          op.xor(op.xor(op.mulhi(m0, x0), x3), k1), op.mullo(m0, x0))
    return x0, x1, x2, x3


philox4x32_p = _declare("philox4x32", 6, 4, _philox4x32_rounds)
