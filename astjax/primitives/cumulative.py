"""Index reductions and cumulative reductions: `argmax`, `argmin` (params `axes`,
`index_dtype`) and `cumsum`, `cumprod`, `cummax`, `cummin`, `cumlogsumexp` (params
`axis`, `reverse`), with JAX's names, params and semantics.

- argmax/argmin lower to a variadic `stablehlo.reduce` over (value, index) pairs
  with JAX's comparator: NaN counts as the extreme value (for both argmax and
  argmin, as in JAX), and on ties the first index wins.
- the cumulative reductions lower to `stablehlo.reduce_window` with a window of
  the whole axis padded on one side, which is what JAX emits on CPU and GPU.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, ShapeError
from .base import ANY, FLOAT, NUMBER, check_dtype, max_value, min_value, register

# ------------------------------------------------------------------ argmax / argmin


def _arg_ae_for(name):
    def abstract_eval(operand, *, axes, index_dtype):
        if len(axes) != 1:
            raise ShapeError(f"`{name}` reduces exactly one axis, got axes={tuple(axes)}")
        axis = axes[0]
        if not 0 <= axis < operand.ndim:
            raise ShapeError(f"`{name}`: axis {axis} is out of bounds for an array of rank "
                             f"{operand.ndim}")
        if operand.shape[axis] == 0:
            raise ShapeError(f"`{name}` of an empty axis (shape {operand.shape}, axis {axis}) "
                             "has no answer")
        if not dtypes.is_int(index_dtype):
            raise DTypeError(f"`{name}`: index_dtype must be an integer dtype, got {index_dtype}")
        return ShapedArray(tuple(d for i, d in enumerate(operand.shape) if i != axis),
                           index_dtype)
    return abstract_eval


def _arg_impl_for(np_fn):
    def impl(operand, *, axes, index_dtype):
        x = np.asarray(operand)
        if x.dtype == dtypes.bfloat16:
            x = x.astype(np.float32)
        return np.asarray(np_fn(x, axis=axes[0])).astype(index_dtype)
    return impl


def _compare_type(dt):
    if dtypes.is_inexact(dt):
        return "FLOAT"
    if dt == dtypes.bool_ or dtypes.issubdtype(dt, np.unsignedinteger):
        return "UNSIGNED"
    return "SIGNED"


def compare(ctx, x, y, direction, aval, ctype=None):
    """`stablehlo.compare` of two values of `aval`'s dtype; bool result of its shape."""
    return ctx.mb.op("stablehlo.compare", [x, y], [aval.update(dtype=dtypes.bool_)], attrs={
        "comparison_direction": f"#stablehlo<comparison_direction {direction}>",
        "compare_type": f"#stablehlo<comparison_type {ctype or _compare_type(aval.dtype)}>"})[0]


def _arg_lowering_for(direction, init_fn):
    def lowering(ctx, operand, *, axes, index_dtype):
        aval = ctx.avals_in[0]
        out = ctx.avals_out[0]
        vs, is_ = ShapedArray((), aval.dtype), ShapedArray((), index_dtype)
        iota = ctx.op1("stablehlo.iota", [], aval.update(dtype=index_dtype),
                       attrs={"iota_dimension": f"{axes[0]} : i64"})
        init_v = ctx.constant(init_fn(aval.dtype), vs)
        init_i = ctx.constant(0, is_)
        mb = ctx.mb
        b1 = ShapedArray((), dtypes.bool_)

        def body(av, ai, bv, bi):
            pick = compare(ctx, av, bv, direction, vs)
            if dtypes.is_inexact(aval.dtype):
                isnan = compare(ctx, av, av, "NE", vs)
                pick = mb.op("stablehlo.or", [pick, isnan], [b1])[0]
            eq = compare(ctx, av, bv, "EQ", vs)
            lt = compare(ctx, ai, bi, "LT", is_)
            pick_i = mb.op("stablehlo.or", [pick, mb.op("stablehlo.and", [eq, lt], [b1])[0]],
                           [b1])[0]
            return [mb.op("stablehlo.select", [pick, av, bv], [vs])[0],
                    mb.op("stablehlo.select", [pick_i, ai, bi], [is_])[0]]

        region = ctx.region([vs, is_, vs, is_], body)
        _, idx = ctx.op("stablehlo.reduce", [operand, iota, init_v, init_i],
                        [out.update(dtype=aval.dtype), out], regions=[region],
                        attrs={"dimensions": ctx.i64(axes)})
        return idx
    return lowering


argmax_p = core.new_primitive("argmax")
register(argmax_p, impl=_arg_impl_for(np.argmax), abstract_eval=_arg_ae_for("argmax"),
         lowering=_arg_lowering_for("GT", min_value))
core.nondiff_primitives.add(argmax_p)

argmin_p = core.new_primitive("argmin")
register(argmin_p, impl=_arg_impl_for(np.argmin), abstract_eval=_arg_ae_for("argmin"),
         lowering=_arg_lowering_for("LT", max_value))
core.nondiff_primitives.add(argmin_p)

# ------------------------------------------------------------- cumulative reductions


def _cum_ae_for(name, kind):
    def abstract_eval(operand, *, axis, reverse=False):
        check_dtype(name, kind, operand)
        if not 0 <= axis < operand.ndim:
            raise ShapeError(f"`{name}`: axis {axis} is out of bounds for an array of rank "
                             f"{operand.ndim}")
        return operand
    return abstract_eval


def _cum_impl_for(accumulate):
    def impl(operand, *, axis, reverse=False):
        x = np.asarray(operand)
        if reverse:
            x = np.flip(x, axis)
        with np.errstate(all="ignore"):
            r = np.asarray(accumulate(x, axis)).astype(x.dtype)
        return np.array(np.flip(r, axis) if reverse else r)
    return impl


def _logaddexp_body(ctx, a, b, s):
    """JAX's logaddexp: max + log1p(exp(-|a - b|)), and a + b where a - b is NaN."""
    mb = ctx.mb
    amax = mb.op("stablehlo.maximum", [a, b], [s])[0]
    delta = mb.op("stablehlo.subtract", [a, b], [s])[0]
    e = mb.op("stablehlo.exponential", [mb.op("stablehlo.negate", [
        mb.op("stablehlo.abs", [delta], [s])[0]], [s])[0]], [s])[0]
    r = mb.op("stablehlo.add", [amax, mb.op("stablehlo.log_plus_one", [e], [s])[0]], [s])[0]
    isnan = compare(ctx, delta, delta, "NE", s)
    return mb.op("stablehlo.select", [isnan, mb.op("stablehlo.add", [a, b], [s])[0], r], [s])[0]


def _cum_lowering_for(body_fn, init_fn):
    def lowering(ctx, operand, *, axis, reverse=False):
        aval = ctx.avals_in[0]
        s = ShapedArray((), aval.dtype)
        n = aval.shape[axis]
        if n == 0:  # nothing to accumulate (XLA rejects empty windows)
            return operand
        init = ctx.constant(init_fn(aval.dtype), s)
        region = ctx.region([s, s], lambda a, b: [body_fn(ctx, a, b, s)])
        pads = [[0, 0] for _ in aval.shape]
        pads[axis] = [0, n - 1] if reverse else [n - 1, 0]
        flat = ", ".join(f"[{lo}, {hi}]" for lo, hi in pads)
        ones = [1] * aval.ndim
        window = [n if i == axis else 1 for i in range(aval.ndim)]
        return ctx.op1("stablehlo.reduce_window", [operand, init], regions=[region], attrs={
            "window_dimensions": ctx.i64(window), "window_strides": ctx.i64(ones),
            "base_dilations": ctx.i64(ones), "window_dilations": ctx.i64(ones),
            "padding": f"dense<[{flat}]> : tensor<{aval.ndim}x2xi64>"})
    return lowering


def _binary_body(op, bool_op):
    def body(ctx, a, b, s):
        return ctx.mb.op(bool_op if s.dtype == dtypes.bool_ else op, [a, b], [s])[0]
    return body


def _accumulate(uf, bool_uf):
    return lambda x, axis: (bool_uf if x.dtype == np.bool_ else uf).accumulate(x, axis=axis)


def _cumsum_np(x, axis):
    return np.cumsum(x, axis=axis, dtype=x.dtype)


def _cumprod_np(x, axis):
    return np.cumprod(x, axis=axis, dtype=x.dtype)


cumsum_p = core.new_primitive("cumsum")
register(cumsum_p, impl=_cum_impl_for(_cumsum_np), abstract_eval=_cum_ae_for("cumsum", NUMBER),
         lowering=_cum_lowering_for(_binary_body("stablehlo.add", "stablehlo.or"),
                                    lambda d: 0))

cumprod_p = core.new_primitive("cumprod")
register(cumprod_p, impl=_cum_impl_for(_cumprod_np),
         abstract_eval=_cum_ae_for("cumprod", NUMBER),
         lowering=_cum_lowering_for(_binary_body("stablehlo.multiply", "stablehlo.and"),
                                    lambda d: 1))

cummax_p = core.new_primitive("cummax")
register(cummax_p, impl=_cum_impl_for(_accumulate(np.maximum, np.logical_or)),
         abstract_eval=_cum_ae_for("cummax", ANY),
         lowering=_cum_lowering_for(_binary_body("stablehlo.maximum", "stablehlo.or"),
                                    min_value))

cummin_p = core.new_primitive("cummin")
register(cummin_p, impl=_cum_impl_for(_accumulate(np.minimum, np.logical_and)),
         abstract_eval=_cum_ae_for("cummin", ANY),
         lowering=_cum_lowering_for(_binary_body("stablehlo.minimum", "stablehlo.and"),
                                    max_value))

cumlogsumexp_p = core.new_primitive("cumlogsumexp")
register(cumlogsumexp_p, impl=_cum_impl_for(lambda x, axis: np.logaddexp.accumulate(x, axis=axis)),
         abstract_eval=_cum_ae_for("cumlogsumexp", FLOAT),
         lowering=_cum_lowering_for(_logaddexp_body, lambda d: -np.inf))

CUMULATIVE = {p.name: p for p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p)}

__all__ = ["argmax_p", "argmin_p", "cumsum_p", "cumprod_p", "cummax_p", "cummin_p",
           "cumlogsumexp_p"]
