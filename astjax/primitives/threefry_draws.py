"""The threefry2x32 block function (Salmon et al., 2011) on uint32 lax values -- the hash
under JAX's default PRNG -- and the draws a primitive's lowering makes with it: key
splits in JAX's two counter layouts (`jax_threefry_partitionable`) and one uniform or
normal scalar per key, bit for bit as `astjax.random` draws them. It sits with the
primitive families because `random_gamma`'s lowering draws through it, and
`astjax.random` builds seeds, splits and random bits on the same hash
(`random/threefry.py`).

It also declares `threefry2x32_p`, the hash as one primitive (JAX's
`jax.extend.random.threefry2x32_p`): operands k1, k2, x1, x2 (uint32, one shape or
scalars), results the two output words; impl a NumPy copy of the hash, lowering the
hash above, batched elementwise, not differentiable (integers).

`rolled=True` writes the five rounds as a `fori_loop` (JAX's CPU lowering does the same,
so XLA keeps the ~100-op hash out of its consumers' fusions); the bits are the same.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..config import config
from ..core import ShapedArray
from ..errors import DTypeError, ShapeError
from .base import lax_ops, lowering_from, matchaxis, nondiff, register

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

# ------------------------------------------------------------- draws from keys


def _c(v, dt):
    return np.asarray(v, dt)[()]


def split_keys(keys, n):
    """keys u32[m, 2] -> u32[m, n, 2]: each key split into n, in JAX's layout."""
    L = lax_ops()
    m = core.get_aval(keys).shape[0]
    k1 = L.broadcast_in_dim(L.slice(keys, (0, 0), (m, 1)), (m, n), (0, 1))
    k2 = L.broadcast_in_dim(L.slice(keys, (0, 1), (m, 2)), (m, n), (0, 1))
    if config.read("jax_threefry_partitionable"):  # the counter of element i is (0, i)
        b1, b2 = threefry2x32(k1, k2, L.full((m, n), 0, _U32), L.broadcasted_iota(_U32, (m, n), 1))
        return L.concatenate([L.expand_dims(b1, (2,)), L.expand_dims(b2, (2,))], 2)
    # the original layout: the counter 0 .. 2n-1 hashed as its two halves, re-joined
    b1, b2 = threefry2x32(k1, k2, L.broadcasted_iota(_U32, (m, n), 1),
                          L.add(L.broadcasted_iota(_U32, (m, n), 1), np.uint32(n)))
    return L.reshape(L.concatenate([b1, b2], 1), (m, n, 2))


def keys_of(key, n):
    """Keys u32[*b, 2] split into a list of n key arrays u32[*b, 2] (`random.split(key,
    n)` unpacked, for each of the `b` keys)."""
    L = lax_ops()
    batch = core.get_aval(key).shape[:-1]
    m = int(np.prod(batch, dtype=np.int64))
    ks = L.reshape(split_keys(L.reshape(key, (m, 2)), n), (m, n, 2))
    return [L.reshape(L.index_in_dim(ks, i, 1, False), batch + (2,)) for i in range(n)]


def _word(key, i):
    """Word i of keys u32[*b, 2]: u32[*b]."""
    L = lax_ops()
    nd = core.get_aval(key).ndim
    return L.squeeze(L.slice_in_dim(key, i, i + 1, axis=nd - 1), (nd - 1,))


def _bits(key, width):
    """`random.bits` of one scalar of `width` bits (8, 16, 32, 64) from each key of
    u32[*b, 2]: shape `b`."""
    L = lax_ops()
    k1, k2 = _word(key, 0), _word(key, 1)
    shape = core.get_aval(k1).shape
    zero = L.full(shape, 0, _U32)
    partitionable = config.read("jax_threefry_partitionable")
    second = zero if partitionable or width < 64 else L.full(shape, 1, _U32)
    b1, b2 = threefry2x32(k1, k2, zero, second)
    if width == 64:
        u64 = np.dtype(np.uint64)
        return L.bitwise_or(L.shift_left(L.convert_element_type(b1, u64), np.uint64(32)),
                            L.convert_element_type(b2, u64))
    word = L.bitwise_xor(b1, b2) if partitionable else b1
    return word if width == 32 else L.convert_element_type(word, np.dtype(f"uint{width}"))


def uniform(key, dt, lo=0.0, hi=1.0, bits=_bits):
    """`random.uniform(key, (), dt, lo, hi)` for each key of u32[*b, 2]: mantissa bits
    under the exponent of 1.0 (`bits(key, width)`: one draw per key, threefry2x32's by
    default; another implementation's for its keys)."""
    L = lax_ops()
    fi = dtypes.finfo(dt)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = np.dtype(f"uint{nbits}")
    b = bits(key, rng_bits)
    if rng_bits != nbits:
        b = L.convert_element_type(b, uint)
    fb = L.bitwise_or(L.shift_right_logical(b, _c(rng_bits - nmant, uint)),
                      np.array(1.0, dt).view(uint)[()])
    floats = L.sub(L.bitcast_convert_type(fb, dt), _c(1.0, dt))
    shape = core.get_aval(floats).shape
    lo, hi = L.full(shape, lo, dt), L.full(shape, hi, dt)
    return L.max(lo, L.add(L.mul(floats, L.sub(hi, lo)), lo))


def normal(key, dt, bits=_bits):
    """`random.normal(key, (), dt)` for each key of u32[*b, 2]: sqrt(2) erf_inv(u), u
    uniform in (-1, 1) (`bits` as for `uniform`)."""
    L = lax_ops()
    lo = np.nextafter(np.array(-1.0, dt), np.array(0.0, dt), dtype=dt)
    return L.mul(_c(np.sqrt(2), dt), L.erf_inv(uniform(key, dt, lo, 1.0, bits)))


# ------------------------------------------------------------------ threefry2x32_p
threefry2x32_p = core.new_primitive("threefry2x32", multiple_results=True)


def hash_shape(name, avals):
    """The shape of a counter-based hash's words (this one's and `random123`'s): the
    operands' one non-scalar shape (scalars broadcast); every operand uint32."""
    if any(a.dtype != _U32 for a in avals):
        raise DTypeError(f"{name} requires uint32 arguments, got "
                         f"{[str(b.dtype) for b in avals]}", hint="convert with x.astype(uint32)")
    shapes = {a.shape for a in avals if a.ndim}
    if len(shapes) > 1:
        raise ShapeError(f"{name}: operands of shapes {[a.shape for a in avals]} "
                         "(they must share one shape, or be scalars)")
    return shapes.pop() if shapes else ()


def _tf_abstract_eval(k1, k2, x1, x2):
    shape = hash_shape("threefry2x32", (k1, k2, x1, x2))
    return [ShapedArray(shape, _U32), ShapedArray(shape, _U32)]


def _tf_impl(k1, k2, x1, x2):
    shape = np.broadcast_shapes(*(np.shape(v) for v in (k1, k2, x1, x2)))
    k1, k2, x1, x2 = (np.broadcast_to(np.asarray(v, _U32), shape) for v in (k1, k2, x1, x2))
    ks = [k1, k2, k1 ^ k2 ^ np.uint32(0x1BD11BDA)]
    x = [x1 + ks[0], x2 + ks[1]]
    rotl = lambda v, d: (v << np.uint32(d)) | (v >> np.uint32(32 - d))  # noqa: E731
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            x[0] = x[0] + x[1]
            x[1] = x[0] ^ rotl(x[1], r)
        x[0] = x[0] + ks[(i + 1) % 3]
        x[1] = x[1] + ks[(i + 2) % 3] + np.uint32(i + 1)
    return [x[0], x[1]]


def _tf_lower(k1, k2, x1, x2):
    L = lax_ops()
    shape = hash_shape("threefry2x32", [core.get_aval(v) for v in (k1, k2, x1, x2)])
    x1, x2 = (v if core.get_aval(v).shape == shape else L.broadcast(v, shape) for v in (x1, x2))
    return list(threefry2x32(k1, k2, x1, x2))


def _tf_batch(args, dims):
    """Every operand brought to (batch, *per-example shape), batch first."""
    L = lax_ops()
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    per = [core.get_aval(x) if d is None else
           ShapedArray(tuple(s for i, s in enumerate(core.get_aval(x).shape) if i != d), _U32)
           for x, d in zip(args, dims)]
    shape = hash_shape("threefry2x32", per)
    ops = []
    for x, d, a in zip(args, dims, per):
        x = matchaxis(x, d, 0, size)
        if a.shape != shape:       # a per-example scalar
            x = L.broadcast_in_dim(x, (size,) + shape, (0,))
        ops.append(x)
    return core.bind(threefry2x32_p, *ops), [0, 0]


register(threefry2x32_p, impl=_tf_impl, abstract_eval=_tf_abstract_eval,
         lowering=lowering_from(_tf_lower, multiple_results=True), batch=_tf_batch)
nondiff(threefry2x32_p)
