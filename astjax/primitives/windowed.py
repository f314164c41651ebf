"""Windowed reductions: `lax.reduce_window` (sum / max / min pooling) and the two
primitives their derivatives need.

- `reduce_window_sum` is linear: its transpose pads the cotangent (interior padding
  by the stride) and sums it over windows again;
- `reduce_window_max` / `_min`: the tangent of a window is the tangent at the
  element the window selects, `select_and_gather_add`, a variadic reduce_window over
  (value, tangent) pairs; its transpose, `select_and_scatter_add`, sends each
  cotangent back to that element (StableHLO's select_and_scatter). Each transposes
  into the other.

Window parameters (every primitive here): `window_dimensions`, `window_strides`,
`padding` ((low, high) per dimension), `base_dilation`, `window_dilation`. Batching
adds a window of size 1 over the mapped axis.
"""
from __future__ import annotations

import ast

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import DTypeError, NotImplementedInAstjaxError, ShapeError
from ..pyast import attr, call
from ..shape_poly_expr import max_dim
from .base import (NUMBER, bdim_at_front, check_dtype, is_zero, max_value, min_value,
                   register, weak_const)
from .base import tangent_aval as _aval
from .concat_pad import pad

__all__ = ["reduce_window_sum_p", "reduce_window_max_p", "reduce_window_min_p",
           "select_and_gather_add_p", "select_and_scatter_add_p", "reduce_window_shape_tuple"]

_WINDOW = ("window_dimensions", "window_strides", "padding", "base_dilation",
           "window_dilation")


def _dilate(n, d):
    return 0 if n == 0 else (n - 1) * d + 1


def _out_shape(shape, window_dimensions, window_strides, padding, base_dilation,
               window_dilation):
    out = []
    for n, w, s, (lo, hi), bd, wd in zip(shape, window_dimensions, window_strides, padding,
                                         base_dilation, window_dilation):
        size = _dilate(n, bd) + lo + hi - _dilate(w, wd)
        out.append(max_dim(size // s + 1, 0))    # (JAX's rule, also for symbolic sizes)
    return tuple(out)


def _check(name, aval, window_dimensions, window_strides, padding, base_dilation,
           window_dilation):
    nd = aval.ndim
    for what, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                    ("padding", padding), ("base_dilation", base_dilation),
                    ("window_dilation", window_dilation)):
        if len(v) != nd:
            raise ShapeError(f"{name}: {what} has {len(v)} entries for an operand of rank {nd}")
    if any(w < 1 for w in window_dimensions) or any(s < 1 for s in window_strides):
        raise ShapeError(f"{name}: window dimensions and strides must be positive, got "
                         f"{window_dimensions} and {window_strides}")


def _windows(x, fill, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):
    """NumPy: the windows of `x` as an array (out..., window...), padding with `fill`."""
    x = np.asarray(x)
    if any(d > 1 for d in base_dilation):
        shape = tuple(_dilate(n, d) for n, d in zip(x.shape, base_dilation))
        xd = np.full(shape, fill, x.dtype)
        xd[tuple(slice(None, None, d) for d in base_dilation)] = x
        x = xd
    x = np.pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in padding], constant_values=fill)
    x = x[tuple(slice(max(-lo, 0), x.shape[i] - max(-hi, 0)) for i, (lo, hi) in enumerate(padding))]
    eff = tuple(_dilate(w, d) for w, d in zip(window_dimensions, window_dilation))
    out = _out_shape(np.shape(x), window_dimensions, window_strides, [(0, 0)] * x.ndim,
                     [1] * x.ndim, window_dilation)
    if any(o == 0 for o in out):
        return np.zeros(out + tuple(window_dimensions), x.dtype)
    win = np.lib.stride_tricks.sliding_window_view(x, eff)
    win = win[tuple(slice(None, None, s) for s in window_strides)]
    win = win[(Ellipsis,) + tuple(slice(None, None, d) for d in window_dilation)]
    return win[tuple(slice(0, o) for o in out)]


def _window_attrs(ctx, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
    nd = len(window_dimensions)
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    return {"window_dimensions": ctx.i64(window_dimensions),
            "window_strides": ctx.i64(window_strides),
            "base_dilations": ctx.i64(base_dilation),
            "window_dilations": ctx.i64(window_dilation),
            "padding": f"dense<[{pads}]> : tensor<{nd}x2xi64>" if nd else
                       "dense<> : tensor<0x2xi64>"}


def _batch_window(params, d):
    """The window params with a size-1 window over new axis `d`."""
    def ins(v, x):
        return tuple(v[:d]) + (x,) + tuple(v[d:])
    return dict(params, window_dimensions=ins(params["window_dimensions"], 1),
                window_strides=ins(params["window_strides"], 1),
                padding=ins(params["padding"], (0, 0)),
                base_dilation=ins(params["base_dilation"], 1),
                window_dilation=ins(params["window_dilation"], 1))


def _source(gen, eqn):
    """select_and_* (no lax wrapper in JAX either): `<primitive>.bind(...)`."""
    prim = gen.inject(eqn.primitive, eqn.primitive.name + "_p")
    return call(f"{prim}.bind", [gen.arg(a) for a in eqn.invars],
                **{k: gen.value(eqn.params[k]) for k in eqn.params})


def _monoid_source(comp, identity):
    """`lax.reduce_window(x, <identity>, lax.<comp>, ...)`."""
    def rule(gen, eqn):
        dt = eqn.invars[0].aval.dtype
        ident = identity(dt)
        if dtypes.is_inexact(dt) and np.isinf(ident):
            init = attr("jnp", "inf") if ident > 0 else \
                ast.UnaryOp(op=ast.USub(), operand=attr("jnp", "inf"))
        else:
            init = gen.value(ident.item() if hasattr(ident, "item") else ident)
        return call("lax.reduce_window", [gen.arg(eqn.invars[0]), init, attr("lax", comp)]
                    + [gen.value(eqn.params[k]) for k in _WINDOW])
    return rule


# ---- reduce_window_sum / max / min ----------------------------------------------------


def _monoid(name, np_reduce, hlo_op, identity, comp):
    p = core.new_primitive(name)

    def abstract_eval(x, **w):
        check_dtype(name, NUMBER, x)
        _check(name, x, **w)
        return ShapedArray(_out_shape(x.shape, **w), x.dtype, x.weak_type)

    def impl(x, **w):
        x = np.asarray(x)
        win = _windows(x, identity(x.dtype), **w)
        return np_reduce(win, axis=tuple(range(x.ndim, 2 * x.ndim))).astype(x.dtype)

    def lowering(ctx, x, **w):
        aval = ctx.avals_in[0]
        scalar = ShapedArray((), aval.dtype)
        init = ctx.constant(identity(aval.dtype), scalar)
        body = ctx.region([scalar, scalar],
                          lambda a, b: [ctx.mb.op(hlo_op, [a, b], [scalar])[0]])
        return ctx.op1("stablehlo.reduce_window", [x, init], regions=[body],
                       attrs=_window_attrs(ctx, **w))

    def batch(args, dims, **w):
        x, d = args[0], dims[0]
        return bind(p, x, **_batch_window(w, d)), d

    register(p, impl=impl, abstract_eval=abstract_eval, lowering=lowering, batch=batch,
             source=_monoid_source(comp, identity))
    return p


reduce_window_sum_p = _monoid("reduce_window_sum", np.sum, "stablehlo.add", lambda d: 0, "add")
reduce_window_max_p = _monoid("reduce_window_max", np.max, "stablehlo.maximum", min_value, "max")
reduce_window_min_p = _monoid("reduce_window_min", np.min, "stablehlo.minimum", max_value, "min")


def _vjp_padding(in_shape, out_shape, window_dimensions, window_strides, padding,
                 base_dilation, window_dilation):
    """(low, high) padding of the stride-dilated cotangent that lines each element of
    the operand up with the windows containing it."""
    pads = []
    for n, o, w, s, (lo, _), bd, wd in zip(in_shape, out_shape, window_dimensions,
                                          window_strides, padding, base_dilation,
                                          window_dilation):
        eff = _dilate(w, wd)
        before = eff - lo - 1
        after = _dilate(n, bd) + eff - 1 - _dilate(o, s) - before
        pads.append((before, after))
    return pads


def _sum_jvp(primals, tangents, **w):
    out = bind(reduce_window_sum_p, primals[0], **w)
    t = tangents[0]
    return out, (core.Zero(_aval(out)) if is_zero(t) else bind(reduce_window_sum_p, t, **w))


def _sum_transpose(ct, x, **w):
    if is_zero(ct):
        return [None]
    in_shape = x.aval.shape
    pads = _vjp_padding(in_shape, _aval(ct).shape, **w)
    padded = pad(ct, weak_const(ct, 0),   # (the cotangent's weak type kept, as JAX)
                 [(lo, hi, s - 1) for (lo, hi), s in zip(pads, w["window_strides"])])
    nd = len(in_shape)
    return [bind(reduce_window_sum_p, padded, window_dimensions=w["window_dimensions"],
                 window_strides=w["base_dilation"], padding=((0, 0),) * nd,
                 base_dilation=(1,) * nd, window_dilation=w["window_dilation"])]


register(reduce_window_sum_p, jvp=_sum_jvp, transpose=_sum_transpose)


def _chooser_jvp(p, select):
    def jvp(primals, tangents, **w):
        x, = primals
        t, = tangents
        out = bind(p, x, **w)
        if is_zero(t):
            return out, core.Zero(_aval(out))
        return out, bind(select_and_gather_add_p, t, x, select=select, **w)
    return jvp


register(reduce_window_max_p, jvp=_chooser_jvp(reduce_window_max_p, "max"))
register(reduce_window_min_p, jvp=_chooser_jvp(reduce_window_min_p, "min"))


# ---- select_and_gather_add: the tangent at each window's selected element -------------


def _select_ae(t, x, *, select, **w):
    if t.shape != x.shape or t.dtype != x.dtype:
        raise DTypeError(f"select_and_gather_add needs a tangent like its operand, got "
                         f"{t.str_short(True)} and {x.str_short(True)}")
    return ShapedArray(_out_shape(x.shape, **w), t.dtype)


def _fill(select, dt):
    return min_value(dt) if select == "max" else max_value(dt)


def _select_impl(t, x, *, select, **w):
    x, t = np.asarray(x), np.asarray(t)
    xw = _windows(x, _fill(select, x.dtype), **w)
    tw = _windows(t, 0, **w)
    flat = xw.reshape(xw.shape[:x.ndim] + (-1,))
    idx = (np.argmax if select == "max" else np.argmin)(flat, axis=-1)
    picked = np.take_along_axis(tw.reshape(flat.shape), idx[..., None], -1)[..., 0]
    return picked.astype(t.dtype)


def _selects(ctx, select, dtype, a, b):
    """StableHLO: does `a` win over `b` (a >= b for max, a <= b for min)?"""
    direction = "GE" if select == "max" else "LE"
    kind = "FLOAT" if dtypes.is_inexact(dtype) else (
        "UNSIGNED" if np.dtype(dtype).kind in "ub" else "SIGNED")
    return ctx.mb.op("stablehlo.compare", [a, b], [ShapedArray((), np.bool_)],
                     {"comparison_direction": f"#stablehlo<comparison_direction {direction}>",
                      "compare_type": f"#stablehlo<comparison_type {kind}>"})[0]


def _select_lowering(ctx, t, x, *, select, **w):
    aval = ctx.avals_in[1]
    scalar = ShapedArray((), aval.dtype)
    init_x = ctx.constant(_fill(select, aval.dtype), scalar)
    init_t = ctx.constant(0, scalar)
    def body(ax, at, bx, bt):
        pred = _selects(ctx, select, aval.dtype, ax, bx)
        sx = ctx.mb.op("stablehlo.select", [pred, ax, bx], [scalar])[0]
        st = ctx.mb.op("stablehlo.select", [pred, at, bt], [scalar])[0]
        return [sx, st]
    region = ctx.region([scalar, scalar, scalar, scalar], body)
    out_aval = ctx.avals_out[0]
    outs = ctx.op("stablehlo.reduce_window", [x, t, init_x, init_t],
                  [out_aval.update(dtype=aval.dtype), out_aval], _window_attrs(ctx, **w),
                  regions=[region])
    return outs[1]


def _select_jvp(primals, tangents, **params):
    t, x = primals
    dt, _ = tangents
    out = bind(select_and_gather_add_p, t, x, **params)
    if is_zero(dt):
        return out, core.Zero(_aval(out))
    return out, bind(select_and_gather_add_p, dt, x, **params)


def _no_dilation(what, w):
    if any(d != 1 for d in w["base_dilation"]) or any(d != 1 for d in w["window_dilation"]):
        raise NotImplementedInAstjaxError(
            f"{what} of a max/min window reduction with base or window dilation is not "
            "supported (as in JAX): StableHLO's select_and_scatter has no dilation")


def _select_transpose(ct, t, x, *, select, **w):
    if is_zero(ct):
        return [None, None]
    _no_dilation("reverse-mode differentiation", w)
    return [bind(select_and_scatter_add_p, ct, x, select=select, **w), None]


def _pair_batch(p):
    """Batch rule of a select_and_* primitive: both operands' batch axes to the front,
    under a size-1 window."""
    def rule(args, dims, **params):
        size = next(_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
        front = [bdim_at_front(a, d, size) for a, d in zip(args, dims)]
        return bind(p, *front, **_batch_window(params, 0)), 0
    return rule


select_and_gather_add_p = core.new_primitive("select_and_gather_add")
register(select_and_gather_add_p, impl=_select_impl, abstract_eval=_select_ae,
         lowering=_select_lowering, jvp=_select_jvp, transpose=_select_transpose,
         batch=_pair_batch(select_and_gather_add_p), source=_source)


# ---- select_and_scatter_add: each cotangent back to its window's selected element ----


def _scatter_ae(s, x, *, select, **w):
    out = _out_shape(x.shape, **w)
    if s.shape != out:
        raise ShapeError(f"select_and_scatter_add: source of shape {s.shape} for windows "
                         f"of shape {out}")
    return ShapedArray(x.shape, s.dtype)


def _scatter_impl(s, x, *, select, window_dimensions, window_strides, padding,
                  base_dilation, window_dilation):
    x, s = np.asarray(x), np.asarray(s)
    out = np.zeros(x.shape, s.dtype)
    choose = np.argmax if select == "max" else np.argmin
    for pos in np.ndindex(*s.shape):
        best, where = None, None
        for off in np.ndindex(*window_dimensions):
            idx = tuple(p * st + o - lo for p, st, o, (lo, _) in
                        zip(pos, window_strides, off, padding))
            if all(0 <= i < n for i, n in zip(idx, x.shape)):
                v = x[idx]
                if best is None or (choose([best, v]) == 1 and v != best):
                    best, where = v, idx
        if where is not None:
            out[where] += s[pos]
    return out


def _scatter_lowering(ctx, s, x, *, select, window_dimensions, window_strides, padding,
                      **_):
    aval = ctx.avals_in[1]
    scalar = ShapedArray((), aval.dtype)
    sc = ShapedArray((), ctx.avals_in[0].dtype)
    sel = ctx.region([scalar, scalar], lambda a, b: [_selects(ctx, select, aval.dtype, a, b)])
    add = ctx.region([sc, sc], lambda a, b: [ctx.mb.op("stablehlo.add", [a, b], [sc])[0]])
    init = ctx.constant(0, sc)
    nd = len(window_dimensions)
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
    attrs = {"window_dimensions": ctx.i64(window_dimensions),
             "window_strides": ctx.i64(window_strides),
             "padding": f"dense<[{pads}]> : tensor<{nd}x2xi64>" if nd else
                        "dense<> : tensor<0x2xi64>"}
    return ctx.op1("stablehlo.select_and_scatter", [x, s, init], regions=[sel, add],
                   attrs=attrs)


def _scatter_jvp(primals, tangents, **params):
    s, x = primals
    ds, _ = tangents
    out = bind(select_and_scatter_add_p, s, x, **params)
    if is_zero(ds):
        return out, core.Zero(_aval(out))
    return out, bind(select_and_scatter_add_p, ds, x, **params)


def _scatter_transpose(ct, s, x, *, select, **w):
    if is_zero(ct):
        return [None, None]
    return [bind(select_and_gather_add_p, ct, x, select=select, **w), None]


select_and_scatter_add_p = core.new_primitive("select_and_scatter_add")
register(select_and_scatter_add_p, impl=_scatter_impl, abstract_eval=_scatter_ae,
         lowering=_scatter_lowering, jvp=_scatter_jvp, transpose=_scatter_transpose,
         batch=_pair_batch(select_and_scatter_add_p), source=_source)


# ---- shapes ---------------------------------------------------------------------------


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The output shape of `reduce_window` for these window parameters."""
    nd = len(operand_shape)
    return _out_shape(tuple(operand_shape), tuple(window_dimensions), tuple(window_strides),
                      tuple(tuple(p) for p in padding),
                      tuple(base_dilation or (1,) * nd), tuple(window_dilation or (1,) * nd))
