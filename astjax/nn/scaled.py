"""Block-scaled matrix products: `jax.nn.scaled_matmul`, `scaled_dot_general` and
`get_scaled_dot_general_config` (the microscaling formats mxfp8 and nvfp4).

A block-scaled operand is low-precision data (`float8_e4m3fn`, `float4_e2m1fn`) and one
scale per `block_size` consecutive elements of the contracting axis (`float8_e8m0fnu`
powers of two for mxfp8, `float8_e4m3fn` for nvfp4). JAX 0.10.2 runs these products
through cuDNN on NVIDIA GPUs and through `lax.scaled_dot` on ROCm; on CPU its
`scaled_matmul` has no lowering. astjax computes them everywhere as JAX's ROCm path
does: operand and broadcast scale are converted to bfloat16, multiplied, and contracted
by `dot_general` into `preferred_element_type`. For the formats above the bfloat16
products are exact, so this is the dequantize-then-multiply that cuDNN computes.

`scaled_dot_general` quantizes high-precision operands with JAX's recipe (per-block
absolute maximum over the format's largest value; mxfp8 scales rounded up to a power
of two) and differentiates with JAX's custom VJP: each cotangent product is itself
quantized with the third config (mxfp8) or computed unquantized (nvfp4), and nvfp4
zeroes the gradient of inputs that quantization clipped.
"""
from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Literal

import ml_dtypes
import numpy as np

from .. import dtypes, lax
from .. import numpy as jnp
from ..custom_api import custom_vjp
from ..errors import ArgumentTypeError, ArgumentValueError
from ..typing import Array, DTypeLike

__all__ = ["BlockScaleConfig", "scaled_matmul", "scaled_dot_general",
           "get_scaled_dot_general_config"]

_F32 = np.dtype(np.float32)
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
_E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
_E2M1 = np.dtype(ml_dtypes.float4_e2m1fn)


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    """How one operand of `scaled_dot_general` is quantized: the format name, elements
    per scale, the data and scale dtypes, nvfp4's float32 global scale (shape (1,))."""
    mode: str
    block_size: int
    data_type: DTypeLike
    scale_type: DTypeLike
    global_scale: Array | None
    infer_only: bool


def get_scaled_dot_general_config(mode: Literal["nvfp4", "mxfp8"],
                                  global_scale: Array | None = None) -> BlockScaleConfig:
    """The quantization config of a format for `scaled_dot_general`: 'mxfp8' (blocks
    of 32, float8_e4m3fn data, float8_e8m0fnu scales) or 'nvfp4' (blocks of 16,
    float4_e2m1fn data, float8_e4m3fn scales, a global scale defaulting to 1)."""
    if mode == "nvfp4":
        return BlockScaleConfig(mode="nvfp4", block_size=16, data_type=_E2M1.type,
                                scale_type=_E4M3.type,
                                global_scale=(jnp.ones((1,), _F32) if global_scale is None
                                              else global_scale), infer_only=False)
    if mode == "mxfp8":
        return BlockScaleConfig(mode="mxfp8", block_size=32, data_type=_E4M3.type,
                                scale_type=_E8M0.type, global_scale=None, infer_only=False)
    raise ArgumentValueError(f"Unsupported mode: {mode}",
                             hint="the formats are 'mxfp8' and 'nvfp4'")

# ------------------------------------------------------------------- scaled_matmul


def _dequantized(x, scales):
    """x * scales, each scale repeated over its block of the last axis, in bfloat16."""
    block = x.shape[-1] // scales.shape[-1]
    s = lax.broadcast_in_dim(scales, (*scales.shape, block), tuple(range(scales.ndim)))
    s = lax.reshape(s, x.shape)
    bf16 = dtypes.bfloat16
    return lax.mul(lax.convert_element_type(x, bf16), lax.convert_element_type(s, bf16))


def _matmul(lhs, rhs, lhs_scales, rhs_scales, out_dtype):
    return lax.dot_general(_dequantized(lhs, lhs_scales), _dequantized(rhs, rhs_scales),
                           (((2,), (2,)), ((0,), (0,))), preferred_element_type=out_dtype)


def scaled_matmul(lhs: Array, rhs: Array, lhs_scales: Array, rhs_scales: Array,
                  preferred_element_type: DTypeLike = np.float32) -> Array:
    """Block-scaled batched matmul: lhs (B, M, K) and rhs (B, N, K), each times its
    scales (B, M, K_s) / (B, N, K_s) repeated K // K_s times along K, contracted over
    K into (B, M, N) of `preferred_element_type`.

    Example:
        >>> import astjax.numpy as jnp
        >>> from astjax import nn
        >>> a = jnp.array([1., 2., 3.]).reshape((1, 1, 3))
        >>> b = jnp.array([4., 5., 6.]).reshape((1, 1, 3))
        >>> s = jnp.array([0.5]).reshape((1, 1, 1))
        >>> nn.scaled_matmul(a, b, s, s)
        Array([[[8.]]], dtype=float32)
    """
    a, b, sa, sb = (jnp.asarray(v) for v in (lhs, rhs, lhs_scales, rhs_scales))
    if not all(v.ndim == 3 for v in (a, b, sa, sb)):
        raise ArgumentValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    if a.shape[2] != b.shape[2] or a.shape[0] != b.shape[0]:
        raise ArgumentValueError(
            "scaled_matmul requires inputs a and b to have matching batch (B) and contract "
            f"(K) dimensions, but got shapes {a.shape} and {b.shape}")
    if sa.shape[2] != sb.shape[2] or sa.shape[0] != sb.shape[0]:
        raise ArgumentValueError(
            "scaled_matmul requires scales to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {sa.shape} and {sb.shape}")
    if sa.shape[1] != a.shape[1] or sb.shape[1] != b.shape[1]:
        raise ArgumentValueError(
            "scaled_matmul requires scales to match non-contract dimensions of inputs, but "
            f"got shapes a: {a.shape}, b: {b.shape}, a_scales: {sa.shape}, b_scales: "
            f"{sb.shape}")
    if a.shape[2] % sa.shape[2]:
        raise ArgumentValueError(f"scaled_matmul: the contract dimension {a.shape[2]} is not a "
                                 f"multiple of the scales' {sa.shape[2]}")
    return _matmul(a, b, sa, sb, dtypes.canonicalize(dtypes.dtype(preferred_element_type)))

# ---------------------------------------------------------------- quantization


def _to_e8m0_rounding_up(x):
    """float32 -> the uint8 biased exponent of the power of two at or above |x|."""
    bits = lax.bitcast_convert_type(lax.convert_element_type(x, _F32), np.uint32)
    exp = lax.shift_right_logical(bits, np.uint32(23))
    mant = lax.bitwise_and(bits, np.uint32(0x7FFFFF))
    round_up = jnp.logical_and(jnp.logical_and(mant > 0, exp != 0xFE),
                               jnp.logical_not(jnp.logical_and(exp == 0, mant <= 0x400000)))
    return lax.convert_element_type(jnp.where(round_up, exp + 1, exp), np.uint8)


def _e8m0_value(exp, dtype):
    """The power of two a uint8 e8m0 exponent stands for, in `dtype` (an exponent 0 as
    the smallest normal of float16 when dtype is float16, else 2**-127)."""
    v = lax.bitcast_convert_type(lax.shift_left(lax.convert_element_type(exp, np.uint32),
                                                np.uint32(23)), _F32)
    tiny = 2.0 ** -15 if np.dtype(dtype) == np.float16 else 2.0 ** -127
    return lax.convert_element_type(jnp.where(v == 0, np.float32(tiny), v), dtype)


def _quantize(x, config):
    """(B, M, K) -> (data of config.data_type (B, M, K), scales (B, M, K // block))."""
    shape, block = x.shape, config.block_size
    if shape[-1] < block or shape[-1] % block:
        raise ArgumentValueError(f"scaled_dot_general: the contracting size {shape[-1]} is not "
                                 f"a multiple of the {config.mode} block size {block}")
    x = lax.reshape(x, (*shape[:-1], shape[-1] // block, block))
    top = np.asarray(dtypes.finfo(config.data_type).max, x.dtype)

    def block_scales(v):
        return jnp.true_divide(jnp.max(jnp.abs(v), axis=-1, keepdims=True), top)
    if config.mode == "mxfp8":
        exps = _to_e8m0_rounding_up(block_scales(x))
        scaled = jnp.true_divide(x, _e8m0_value(exps, x.dtype))
        scales = lax.bitcast_convert_type(exps, _E8M0)
    elif config.mode == "nvfp4":
        x = jnp.true_divide(x, config.global_scale)
        scale_top = np.asarray(dtypes.finfo(config.scale_type).max, x.dtype)
        scales = jnp.clip(block_scales(x), 0, scale_top).astype(config.scale_type)
        scaled = jnp.true_divide(x, scales.astype(_F32))
    else:
        raise ArgumentValueError(f"Unrecognized mode: {config.mode}.")
    data = jnp.clip(scaled, -top, top).astype(config.data_type)
    return lax.reshape(data, shape), lax.reshape(scales, scales.shape[:-1])

# ------------------------------------------------------------ scaled_dot_general


def _remaining(n, *used):
    taken = {d for u in used for d in u}
    return [d for d in range(n) if d not in taken]


def _to_3d(x, contract, batch):
    """x transposed to (batch, kept, contracting) axes and flattened to (B, M, K)."""
    kept = _remaining(x.ndim, contract, batch)
    b, m, k = ([d for d in range(x.ndim) if d in batch], kept,
               [d for d in range(x.ndim) if d in contract])
    size = lambda ds: int(np.prod([x.shape[d] for d in ds], dtype=np.int64))  # noqa: E731
    return lax.reshape(lax.transpose(x, (*b, *m, *k)), (size(b), size(m), size(k)))


def _out_shape(lhs_shape, rhs_shape, lhs_dn, rhs_dn):
    (lc, lb), (rc, rb) = lhs_dn, rhs_dn
    return (tuple(lhs_shape[i] for i in lb)
            + tuple(d for i, d in enumerate(lhs_shape) if i not in lc and i not in lb)
            + tuple(d for i, d in enumerate(rhs_shape) if i not in rc and i not in rb))


def _forward(lhs, rhs, dn, out_dtype, configs):
    (lc, rc), (lb, rb) = dn
    lq, ls = _quantize(_to_3d(lhs, lc, lb), configs[0])
    rq, rs = _quantize(_to_3d(rhs, rc, rb), configs[1])
    nvfp4 = configs[0].mode == "nvfp4"
    out = _matmul(lq, rq, ls, rs, _F32 if nvfp4 else out_dtype)
    if nvfp4:
        out = jnp.multiply(out, jnp.multiply(configs[0].global_scale, configs[1].global_scale))
        out = out.astype(out_dtype)
    return lax.reshape(out, _out_shape(lhs.shape, rhs.shape, (lc, lb), (rc, rb)))


def _cotangent(g, x, y, dn, out_dtype, configs, swap_ans=False):
    """The cotangent of x in dot_general(x, y, dn) (or of y when swap_ans), as JAX's
    scaled transpose: g times y, quantized unless the format is nvfp4."""
    (xc, yc), (xb, yb) = dn
    x_kept = _remaining(x.ndim, xc, xb)
    y_kept = _remaining(y.ndim, yc, yb)
    nb = len(xb)
    if swap_ans:
        ans_y = list(range(nb, nb + len(y_kept)))
    else:
        ans_y = list(range(nb + len(x_kept), nb + len(x_kept) + len(y_kept)))
    ans_b = list(range(nb))
    xc_by_y = list(np.take(xc, np.argsort(yc))) if len(xc) else []
    out_axes = np.argsort(list(xb) + x_kept + xc_by_y)
    y3, g3 = _to_3d(y, y_kept, yb), _to_3d(g, ans_y, ans_b)
    if configs[0].mode != "nvfp4":
        gq, gs = _quantize(g3, configs[0])
        yq, ys = _quantize(y3, configs[1])
        out = _matmul(gq, yq, gs, ys, out_dtype)
    else:
        out = lax.dot_general(g3, y3, (((2,), (2,)), ((0,), (0,))),
                              preferred_element_type=out_dtype)
    out = lax.reshape(out, _out_shape(g.shape, y.shape, (ans_y, ans_b), (y_kept, yb)))
    return lax.transpose(out, tuple(int(a) for a in out_axes))


def _scaled_dot(dn, out_dtype, configs):
    """The custom-VJP function of one (dimension numbers, dtype, configs)."""
    @custom_vjp
    def fn(lhs, rhs):
        return _forward(lhs, rhs, dn, out_dtype, configs)

    def fwd(lhs, rhs):
        return _forward(lhs, rhs, dn, out_dtype, configs), (lhs, rhs)

    def bwd(res, g):
        lhs, rhs = res
        (lc, rc), (lb, rb) = dn
        g_lhs = _cotangent(g, lhs, rhs, dn, out_dtype, [configs[2], configs[1]])
        g_rhs = _cotangent(g, rhs, lhs, ((rc, lc), (rb, lb)), out_dtype,
                           [configs[2], configs[0]], swap_ans=True)
        if configs[2].mode == "nvfp4":  # straight-through, zero where fprop clipped
            top = np.asarray(dtypes.finfo(configs[0].data_type).max, lhs.dtype)
            scale_top = np.asarray(dtypes.finfo(configs[0].scale_type).max, lhs.dtype)
            bound = lambda c: jnp.multiply(c.global_scale, top * scale_top)  # noqa: E731
            g_lhs = jnp.where(jnp.abs(lhs) <= bound(configs[0]), g_lhs, 0)
            g_rhs = jnp.where(jnp.abs(rhs) <= bound(configs[1]), g_rhs, 0)
        return g_lhs, g_rhs
    fn.defvjp(fwd, bwd)
    return fn


def scaled_dot_general(lhs: Array, rhs: Array, dimension_numbers: Any,
                       preferred_element_type: DTypeLike = np.float32,
                       configs: list[BlockScaleConfig] | None = None,
                       implementation: Literal["cudnn"] | None = None) -> Array:
    """`lax.dot_general` with both operands block-quantized by `configs` (lhs, rhs,
    cotangent; see `get_scaled_dot_general_config`); without configs, plain
    `lax.dot_general`. Batch dimensions come first in the result, then lhs's kept
    dimensions, then rhs's; `preferred_element_type` is float32, bfloat16 or float16."""
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning, stacklevel=2)
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    out_dtype = np.dtype(preferred_element_type)
    if out_dtype not in (_F32, np.dtype(dtypes.bfloat16), np.dtype(np.float16)):
        raise ArgumentTypeError("Only support preferred_element_type in (f32, bf16, f16), but "
                                f"got {out_dtype}")
    lhs, rhs = jnp.asarray(lhs), jnp.asarray(rhs)
    (lc, rc), (lb, rb) = (tuple(tuple(d) for d in p) for p in dimension_numbers)
    squeeze = not lb or not rb
    if not lb:
        lhs, lb = lax.expand_dims(lhs, (lhs.ndim,)), (lhs.ndim,)
    if not rb:
        rhs, rb = lax.expand_dims(rhs, (rhs.ndim,)), (rhs.ndim,)
    out = _scaled_dot(((lc, rc), (lb, rb)), out_dtype, list(configs))(lhs, rhs)
    return lax.squeeze(out, (0,)) if squeeze else out
