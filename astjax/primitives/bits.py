"""Bit-level arithmetic: `mulhi` (the high half of an integer product), `reduce_xor`
(the bitwise-xor reduction) and `reduce_precision` (rounding a float to fewer exponent
and mantissa bits, as a narrower float format would store it).

Each block holds the declaration, NumPy reference, abstract evaluation, lowering
(`chlo.mulhi`, `stablehlo.reduce` with an xor body, `stablehlo.reduce_precision`),
derivative and batching rules and the `lax.*` wrapper.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from ..core import bind
from ..errors import ArgumentTypeError, ArgumentValueError
from .base import (FLOAT, INT, INT_BOOL, as_operand, binop, deflinear, defreducer, is_zero,
                   match_scalars, nondiff, reducer, unop)

__all__ = ["mulhi_p", "reduce_xor_p", "reduce_precision_p"]


# ------------------------------------------------------------------------------ mulhi

def _mulhi_reference(x, y):
    """The upper N bits of the 2N-bit product of N-bit integers (two's complement for
    signed types), computed exactly with Python integers."""
    x, y = np.asarray(x), np.asarray(y)
    dt = x.dtype
    bits = 8 * dt.itemsize
    out = np.empty(np.broadcast(x, y).shape, dt)
    xs, ys = np.broadcast_arrays(x, y)
    for i, (a, b) in enumerate(zip(xs.ravel().tolist(), ys.ravel().tolist())):
        hi = (int(a) * int(b)) >> bits  # floor shift: the signed high word
        out.flat[i] = np.array(hi & ((1 << bits) - 1), np.uint64).astype(dt) \
            if dt.kind == "i" else hi
    return out


def _mulhi_lowering(ctx, x, y):
    """Up to 32 bits: the product in twice the width, shifted down (XLA's fused
    `mulhi` fails on CPU when its operands come through a transpose, in JAX too);
    64 bits: `chlo.mulhi`."""
    out = ctx.avals_out[0]
    bits = 8 * out.dtype.itemsize
    if bits == 64:
        return ctx.op1("chlo.mulhi", [x, y])
    wide = out.update(dtype=np.dtype(f"{out.dtype.kind}{2 * out.dtype.itemsize}"))
    xw, yw = (ctx.op1("stablehlo.convert", [v], wide) for v in (x, y))
    prod = ctx.op1("stablehlo.multiply", [xw, yw], wide)
    shift = ctx.broadcast(ctx.constant(bits, wide.update(shape=())), wide.update(shape=()), wide)
    op = "stablehlo.shift_right_arithmetic" if out.dtype.kind == "i" else \
        "stablehlo.shift_right_logical"
    return ctx.op1("stablehlo.convert", [ctx.op1(op, [prod, shift], wide)], out)


mulhi_p = binop("mulhi", _mulhi_reference, _mulhi_lowering, INT)
nondiff(mulhi_p)  # integer-valued: JAX's tangent is a symbolic zero


def mulhi(x, y, /):
    """Elementwise multiply-high (`lax.mulhi`): for N-bit integers, the upper N bits of
    the full 2N-bit product `x * y`."""
    x, y = match_scalars(x, y)
    return bind(mulhi_p, x, y)


# ------------------------------------------------------------------------- reduce_xor

reduce_xor_p = reducer("reduce_xor", np.bitwise_xor.reduce, "stablehlo.xor",
                       lambda d: np.zeros((), d), INT_BOOL)
defreducer(reduce_xor_p)
nondiff(reduce_xor_p)


def reduce_xor(operand, axes):
    """`lax.reduce_xor`: the bitwise exclusive or of `operand`'s entries over `axes`
    (booleans: the parity of the number of True entries)."""
    nd = core.get_aval(operand).ndim
    axes = tuple(int(a) for a in axes)
    if any(not -nd <= a < nd for a in axes) or len({a % max(nd, 1) for a in axes}) != len(axes):
        raise ArgumentValueError(f"reduce_xor: axes {axes} must be distinct axes of an operand "
                                 f"of rank {nd}", hint=f"use axes in [-{nd}, {nd - 1}]")
    return bind(reduce_xor_p, operand, axes=tuple(a % nd for a in axes) if nd else axes,
                out_sharding=None)


# ------------------------------------------------------------------- reduce_precision

_FORMATS = {2: (5, 10), 4: (8, 23), 8: (11, 52)}  # itemsize -> (exponent, mantissa) bits


def _reduce_precision_reference(x, *, exponent_bits, mantissa_bits):
    """XLA's ReducePrecision on the bit pattern: round the mantissa to nearest even at
    `mantissa_bits`, then flush exponents the narrow format cannot hold to inf / zero
    (keeping the sign); NaN stays NaN."""
    x = np.asarray(x)
    wide = x.dtype
    if wide == dtypes.bfloat16:
        return _reduce_precision_reference(x.astype(np.float32), exponent_bits=exponent_bits,
                                           mantissa_bits=mantissa_bits).astype(wide)
    ebits, mbits = _FORMATS[wide.itemsize]
    u = np.dtype(f"uint{8 * wide.itemsize}")
    one = u.type(1)
    bits = x.view(u).copy()
    if mantissa_bits < mbits:
        drop = u.type(mbits - mantissa_bits)
        last = one << drop
        bias = (last >> one) - one + ((bits & last) >> drop)
        bits = (bits + bias) & ~(last - one)
    if exponent_bits < ebits:
        exp_mask = u.type(((1 << ebits) - 1) << mbits)
        sign = bits & u.type(1 << (8 * wide.itemsize - 1))
        wide_bias = (1 << (ebits - 1)) - 1
        narrow_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        over = exponent > u.type((wide_bias + narrow_bias) << mbits)
        under = exponent <= u.type((wide_bias - narrow_bias) << mbits)
        bits = np.where(over, sign | exp_mask, np.where(under, sign, bits)).astype(u)
    return np.where(np.isnan(x), x, bits.view(wide))  # NaN stays NaN


def _check_bits(x, *, exponent_bits, mantissa_bits):
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ArgumentValueError(f"reduce_precision: exponent_bits must be >= 1 and "
                                 f"mantissa_bits >= 0, got {exponent_bits} and {mantissa_bits}")


reduce_precision_p = unop(
    "reduce_precision", _reduce_precision_reference,
    lambda ctx, x, *, exponent_bits, mantissa_bits: ctx.op1(
        "stablehlo.reduce_precision", [x],
        attrs={"exponent_bits": f"{exponent_bits} : i32",
               "mantissa_bits": f"{mantissa_bits} : i32"}),
    FLOAT, check=_check_bits)


deflinear(reduce_precision_p, lambda ct, x, **params: [
    None if is_zero(ct) else bind(reduce_precision_p, ct, **params)])


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """`lax.reduce_precision`: round a floating-point `operand` to the values a format
    with `exponent_bits` exponent and `mantissa_bits` mantissa bits can represent
    (the result keeps `operand`'s dtype). Linear: tangents and cotangents are rounded
    the same way."""
    bits = []
    for name, v in (("exponent_bits", exponent_bits), ("mantissa_bits", mantissa_bits)):
        try:
            bits.append(operator.index(v))
        except TypeError:
            raise ArgumentTypeError(f"reduce_precision: {name} must be an integer, "
                                    f"got {v!r:.40}") from None
    return bind(reduce_precision_p, as_operand(operand), exponent_bits=bits[0],
                mantissa_bits=bits[1])
