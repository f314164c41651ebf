"""The threefry2x32 block function (Salmon et al., 2011) on uint32 lax values: the hash
under JAX's default PRNG. It declares no primitive; it sits with the primitive families
because `random_gamma`'s lowering draws through it, and `astjax.random` builds seeds,
splits and random bits on the same function (`random/threefry.py`).

`rolled=True` writes the five rounds as a `fori_loop` (JAX's CPU lowering does the same,
so XLA keeps the ~100-op hash out of its consumers' fusions); the bits are the same.
"""
from __future__ import annotations

import numpy as np

from .. import core
from .base import lax_ops

_U32 = np.dtype(np.uint32)
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def threefry2x32(k1, k2, x1, x2, rolled=False):
    """The two output words of threefry2x32 with key (k1, k2) on counters (x1, x2):
    uint32 values, keys scalar or of the counters' shape."""
    L = lax_ops()
    ks = [k1, k2, L.bitwise_xor(L.bitwise_xor(k1, k2), np.uint32(0x1BD11BDA))]
    shape = core.get_aval(x1).shape
    if shape:
        ks = [k if core.get_aval(k).shape == shape else L.broadcast(k, shape) for k in ks]
    x = [L.add(x1, ks[0]), L.add(x2, ks[1])]
    if rolled:
        return _rolled_rounds(L, x, ks, shape)
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            x[0] = L.add(x[0], x[1])
            x[1] = L.bitwise_xor(x[0], _rotl(L, x[1], r))
        x[0] = L.add(x[0], ks[(i + 1) % 3])
        x[1] = L.add(L.add(x[1], ks[(i + 2) % 3]), np.uint32(i + 1))
    return x[0], x[1]


def _rotl(L, x, d):
    return L.bitwise_or(L.shift_left(x, np.uint32(d)), L.shift_right_logical(x, np.uint32(32 - d)))


def _rolled_rounds(L, x, ks, shape):
    """The rounds as `fori_loop(0, 5)`: the carry holds the two words, the key schedule
    rotated once per round and the two rotation sets swapped per round (JAX's
    `rolled_loop_step`)."""
    b = core.current_builder()
    rots = [b.const_tracer(np.array(r, _U32)) for r in ROTATIONS]

    def rotl(v, r):
        r = L.broadcast(r, shape) if shape else r
        width = L.full(shape, 32, _U32) if shape else np.uint32(32)
        return L.bitwise_or(L.shift_left(v, r), L.shift_right_logical(v, L.sub(width, r)))

    def step(i, carry):
        x0, x1, ka, kb, kc, ra, rb = carry
        for j in range(4):
            r = L.squeeze(L.slice(ra, (j,), (j + 1,)), (0,))
            x0 = L.add(x0, x1)
            x1 = L.bitwise_xor(x0, rotl(x1, r))
        x0 = L.add(x0, ka)
        n = L.add(L.convert_element_type(i, _U32), np.uint32(1))
        x1 = L.add(L.add(x1, kb), L.broadcast(n, shape) if shape else n)
        return (x0, x1, kb, kc, ka, rb, ra)

    out = L.fori_loop(0, 5, core.raw(step), (x[0], x[1], ks[1], ks[2], ks[0], *rots))
    return out[0], out[1]
