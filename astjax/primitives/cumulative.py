"""Index reductions and cumulative reductions: `argmax`, `argmin` (params `axes`,
`index_dtype`) and `cumsum`, `cumprod`, `cummax`, `cummin`, `cumlogsumexp` (params
`axis`, `reverse`), with JAX's names, params and semantics.

- argmax/argmin lower to a variadic `stablehlo.reduce` over (value, index) pairs
  with JAX's comparator: NaN counts as the extreme value (for both argmax and
  argmin, as in JAX), and on ties the first index wins.
- the cumulative reductions lower to `stablehlo.reduce_window` with a window of
  the whole axis padded on one side, which is what JAX emits on CPU and GPU (over a
  symbolic axis of `jax.export`, JAX's `stablehlo.dynamic_reduce_window` custom call).

Each block also holds the jvp/transpose, batch rule, printed source and the `lax.*`
wrappers (`argmax`, `argmin`, `cumsum`, ...).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import DTypeError, ScalarOverflowError, ShapeError, ShapeValueError
from ..pyast import dtype_expr, lax_call, pyconst
from . import elementwise as ew
from . import selection as sel
from .base import (ANY, FLOAT, NUMBER, REAL, as_operand, check_dtype, defcumulative, deflinear,
                   defreducer, is_zero, max_value, min_value, nondiff, register)
from .base import tangent_aval as _aval
from .comparisons import minmax_values
from .reductions import mul_jvp_pair
from .slicing import slice_in_dim
from .concat_pad import concatenate, pad, rev
from .structural import full_like


def check_axis(axis, ndim, name):
    """`axis` of an array of rank `ndim`, made non-negative (ShapeError if out of bounds)."""
    axis = int(axis)
    if not -ndim <= axis < max(ndim, 1):
        raise ShapeValueError(f"`{name}`: axis {axis} is out of bounds for an array of rank "
                              f"{ndim}")
    return axis % max(ndim, 1)

# ------------------------------------------------------------------ argmax / argmin


def _arg_ae_for(name):
    def abstract_eval(operand, *, axes, index_dtype):
        if len(axes) != 1:
            raise ShapeError(f"`{name}` reduces exactly one axis, got axes={tuple(axes)}")
        axis = axes[0]
        if not 0 <= axis < operand.ndim:
            raise ShapeValueError(f"`{name}`: axis {axis} is out of bounds for an array of "
                                  f"rank {operand.ndim}")
        if operand.shape[axis] == 0:
            raise ShapeValueError(f"`{name}` of an empty axis (shape {operand.shape}, axis {axis}) "
                             "has no answer")
        if not dtypes.is_int(index_dtype):
            raise DTypeError(f"`{name}`: index_dtype must be an integer dtype, got {index_dtype}")
        return ShapedArray(tuple(d for i, d in enumerate(operand.shape) if i != axis),
                           index_dtype)
    return abstract_eval


def _reject_complex(name, dtype):
    """Complex values have no ordering. As in JAX, the check is made when the program is
    lowered or run, not while staging it (`eval_shape` / `make_jaxpr` accept it)."""
    if dtypes.issubdtype(dtype, np.complexfloating):
        raise DTypeError(f"`{name}` does not accept dtype {np.dtype(dtype).name}: complex "
                         "values have no ordering",
                         hint="take jnp.real / jnp.imag / jnp.abs of the operand first")


def _arg_impl_for(np_fn):
    def impl(operand, *, axes, index_dtype):
        _reject_complex(np_fn.__name__, np.asarray(operand).dtype)
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
        _reject_complex("argmax" if direction == "GT" else "argmin", aval.dtype)
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


def _arg_source(gen, eqn):
    (axis,) = eqn.params["axes"]
    return lax_call(eqn.primitive.name, gen, eqn, pyconst(int(axis)),
                    dtype_expr(eqn.params["index_dtype"]))


argmax_p = core.new_primitive("argmax")
register(argmax_p, impl=_arg_impl_for(np.argmax), abstract_eval=_arg_ae_for("argmax"),
         lowering=_arg_lowering_for("GT", min_value), source=_arg_source)
nondiff(argmax_p)
defreducer(argmax_p)

argmin_p = core.new_primitive("argmin")
register(argmin_p, impl=_arg_impl_for(np.argmin), abstract_eval=_arg_ae_for("argmin"),
         lowering=_arg_lowering_for("LT", max_value), source=_arg_source)
nondiff(argmin_p)
defreducer(argmin_p)


def _not_bool(axis, name):
    """JAX's `lax.argmax` / `argmin` refuse a bool axis with a ValueError."""
    if isinstance(axis, (bool, np.bool_)):
        raise ShapeValueError(f"`{name}`: the axis must be an integer, got {axis!r}")
    return axis


def argmax(operand, axis, index_dtype):
    """`lax.argmax`: the first index of the maximum along `axis` (NaN counts as max)."""
    operand = as_operand(operand)
    axis = check_axis(_not_bool(axis, "argmax"), core.get_aval(operand).ndim, "argmax")
    return bind(argmax_p, operand, axes=(axis,),
                index_dtype=dtypes.canonicalize(index_dtype))


def argmin(operand, axis, index_dtype):
    """`lax.argmin`: the first index of the minimum along `axis` (NaN counts as min)."""
    operand = as_operand(operand)
    axis = check_axis(_not_bool(axis, "argmin"), core.get_aval(operand).ndim, "argmin")
    return bind(argmin_p, operand, axes=(axis,),
                index_dtype=dtypes.canonicalize(index_dtype))

# ------------------------------------------------------------- cumulative reductions


def _cum_ae_for(name, kind):
    def abstract_eval(operand, *, axis, reverse=False):
        check_dtype(name, kind, operand)
        if not 0 <= axis < operand.ndim:
            raise ShapeValueError(f"`{name}`: axis {axis} is out of bounds for an array of "
                                  f"rank {operand.ndim}")
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


def _reducer_function(ctx, body_fn, s):
    """A private function `(s, s) -> s` of the module applying `body_fn`: the reducer
    a `dynamic_reduce_window` custom call names. -> its name."""
    mb = ctx.mb
    slot = len(mb.functions)
    mb.functions.append("")
    name = f"cumulative_reducer_{slot}"
    saved = mb.lines, mb.indent
    mb.lines, mb.indent = [], 4
    a, b = mb.fresh(ctx.type(s)), mb.fresh(ctx.type(s))
    r = body_fn(ctx, a, b, s)
    mb.emit(f"func.return {r} : {mb.types[r]}")
    body = mb.lines
    mb.lines, mb.indent = saved
    mb.functions[slot] = (f"func.func private @{name}({a}: {mb.types[a]}, {b}: {mb.types[b]})"
                          f" -> ({mb.types[r]}) {{\n" + "\n".join(body) + "\n}")
    return name


def _dynamic_window(ctx, operand, init, body_fn, s, axis, reverse):
    """The cumulative reduction over a symbolic axis (`jax.export`): JAX's
    `stablehlo.dynamic_reduce_window` custom call, its window, strides, dilations and
    padding computed from the dimension variables; jaxlib's shape refinement turns it
    into a `reduce_window` once the sizes are known."""
    aval = ctx.avals_in[0]
    n, rank = aval.shape[axis], aval.ndim
    ones = ctx.constant(np.ones(rank, np.int32), ShapedArray((rank,), np.int32))
    row = ShapedArray((1, 2), np.int32)
    pads = [ctx.op1("stablehlo.reshape", [ctx.shape_value(
        ((0, n - 1) if reverse else (n - 1, 0)) if i == axis else (0, 0))], row)
        for i in range(rank)]
    padding = pads[0] if rank == 1 else ctx.op1(
        "stablehlo.concatenate", pads, ShapedArray((rank, 2), np.int32), {"dimension": "0 : i64"})
    window = ctx.shape_value([n if i == axis else 1 for i in range(rank)])
    return ctx.op1("stablehlo.custom_call", [operand, init, window, ones, ones, ones, padding],
                   attrs={"call_target_name": '"stablehlo.dynamic_reduce_window"',
                          "api_version": "2 : i32",
                          "called_computations": f"[@{_reducer_function(ctx, body_fn, s)}]"})


def _cum_lowering_for(body_fn, init_fn):
    def lowering(ctx, operand, *, axis, reverse=False):
        aval = ctx.avals_in[0]
        s = ShapedArray((), aval.dtype)
        n = aval.shape[axis]
        if type(n) is int and n == 0:  # nothing to accumulate (XLA rejects empty windows)
            return operand
        init = ctx.constant(init_fn(aval.dtype), s)
        if type(n) is not int:
            return _dynamic_window(ctx, operand, init, body_fn, s, axis, reverse)
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
        if s.dtype != dtypes.bool_ and op in ("stablehlo.maximum", "stablehlo.minimum"):
            return minmax_values(ctx, op, a, b, s)   # complex: lexicographic, as JAX
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

def _logaddexp_identity(dt):
    """-inf, cumlogsumexp's identity; an integer operand passes abstract evaluation (as
    JAX's: `eval_shape` answers) and fails here, with JAX's OverflowError."""
    if not dtypes.is_inexact(dt):
        raise ScalarOverflowError(f"cannot convert float infinity to integer: cumlogsumexp "
                                  f"of a {np.dtype(dt).name} operand (its identity, -inf, "
                                  f"is no {np.dtype(dt).name})",
                                  hint="convert the operand to a float dtype first")
    return -np.inf


cumlogsumexp_p = core.new_primitive("cumlogsumexp")
register(cumlogsumexp_p, impl=_cum_impl_for(lambda x, axis: np.logaddexp.accumulate(x, axis=axis)),
         abstract_eval=_cum_ae_for("cumlogsumexp", REAL),   # (complex: not yet)
         lowering=_cum_lowering_for(_logaddexp_body, _logaddexp_identity))

CUMULATIVE = {p.name: p for p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p)}


def _cum_source(gen, eqn):
    kw = {"axis": pyconst(int(eqn.params["axis"]))}
    if eqn.params.get("reverse"):
        kw["reverse"] = pyconst(True)
    return lax_call(eqn.primitive.name, gen, eqn, **kw)


def _cumulative(p):
    """The `lax.<name>(operand, axis=0, reverse=False)` wrapper of `p`."""
    def f(operand, axis=0, reverse=False):
        operand = as_operand(operand)
        axis = check_axis(axis, core.get_aval(operand).ndim, p.name)
        return bind(p, operand, axis=axis, reverse=bool(reverse))
    f.__name__ = p.name
    f.__doc__ = f"`lax.{p.name}` along `axis` (from the end if `reverse`)."
    return f


for _p in CUMULATIVE.values():
    register(_p, source=_cum_source)
    defcumulative(_p)
del _p
cumsum = _cumulative(cumsum_p)
cumprod = _cumulative(cumprod_p)
cummax = _cumulative(cummax_p)
cummin = _cumulative(cummin_p)
cumlogsumexp = _cumulative(cumlogsumexp_p)

# cumsum is linear; the others' jvp is an associative scan's, as JAX's


def _cumsum_transpose(ct, x, *, axis, reverse=False):
    if is_zero(ct):
        return [None]
    return [bind(cumsum_p, ct, axis=axis, reverse=not reverse)]


deflinear(cumsum_p, _cumsum_transpose)


def _logaddexp_value(xa, xb):
    """JAX's `logaddexp` formula (lax/other.py's form): the larger operand plus
    log1p(exp(-|a - b|)), and a + b where a - b is NaN."""
    delta = bind(ew.sub_p, xa, xb)
    big = bind(ew.add_p, bind(ew.max_p, xa, xb),
               bind(ew.log1p_p, bind(ew.exp_p, bind(ew.neg_p, bind(ew.abs_p, delta)))))
    return bind(sel.select_n_p, bind(ew.ne_p, delta, delta), big, bind(ew.add_p, xa, xb))


class _LogaddexpJvp:
    """The rule of the `custom_jvp_call` `_logaddexp` binds (JAX's `logaddexp` is a
    custom_jvp function): `(consts, primals, tangents)` -> `_logaddexp_pair`'s."""
    __slots__ = ()

    def __repr__(self):
        return "logaddexp_jvp"

    def __call__(self, consts, primals, tangents):
        (xa, xb), (ta, tb) = primals, tangents
        z, dz = _logaddexp_pair(xa, ta, xb, tb)
        return [z], [dz]


_LOGADDEXP_JVP = _LogaddexpJvp()


def _logaddexp(xa, xb):
    """JAX's custom_jvp `logaddexp` of two values of one aval: a `custom_jvp_call` of
    the formula with its rule, so that a derivative of the jvp's primal (a second
    derivative of cumlogsumexp) is the rule's too, as JAX's, not the formula's."""
    from .custom_derivatives import custom_jvp_call_p   # (a later family)
    a = _aval(xa)
    body, consts = core.split_consts(core.stage(lambda u, v: [_logaddexp_value(u, v)], [a, a]))
    return bind(custom_jvp_call_p, *consts, xa, xb, call_jaxpr=body, jvp_jaxpr_fun=_LOGADDEXP_JVP,
                num_consts=len(consts), symbolic_zeros=False)[0]


def _logaddexp_pair(xa, ta, xb, tb):
    """JAX's `logaddexp` and its custom jvp on (value, tangent) pairs: the tangent
    weights are exp(x - out), an infinite +inf operand read as 0."""
    z = _logaddexp(xa, xb)

    def finite(v):
        return bind(sel.select_n_p, bind(ew.eq_p, v, full_like(v, np.inf)), v, full_like(v, 0))

    def weight(v):
        return bind(ew.exp_p, bind(ew.sub_p, finite(v), finite(z)))
    return z, bind(ew.add_p, bind(ew.mul_p, ta, weight(xa)), bind(ew.mul_p, tb, weight(xb)))


def _interleave(a, b, axis):
    """(value, tangent) pairs `a` and `b` interleaved along `axis` -- a[0], b[0], a[1],
    ... (a is as long as b or one longer) -- JAX's way: each spread with interior
    zeros and the two added (a -0.0 comes out +0.0, as JAX's), the equations in the
    order JAX's jvp emits them (each operation on the value, then on the tangent)."""
    na, nb = _aval(a[0]).shape[axis], _aval(b[0]).shape[axis]
    config_a, config_b = [(0, 0, 0)] * _aval(a[0]).ndim, [(0, 0, 0)] * _aval(a[0]).ndim
    config_a[axis] = (0, 1 if na == nb else 0, 1)
    config_b[axis] = (1, 0 if na == nb else 1, 1)
    zero = np.zeros((), _aval(a[0]).dtype)
    pa = [pad(v, zero, config_a) for v in a]
    pb = [pad(v, zero, config_b) for v in b]
    add = ew.or_p if _aval(a[0]).dtype == np.bool_ else ew.add_p
    return tuple(bind(add, u, v) for u, v in zip(pa, pb))


def _assoc_scan(combine, x, t, axis):
    """Prefix combination of (value, tangent) pairs along `axis` by odd/even recursive
    doubling: JAX's associative scan, whose jvp JAX takes for the cumulative
    reductions (so values, tangents and the shares of ties round as JAX's)."""
    n = _aval(x).shape[axis]
    if n < 2:
        return x, t

    def sl(vs, start, stop, stride=2):
        return [slice_in_dim(v, start, stop, stride, axis) for v in vs]
    odd = _assoc_scan(combine, *combine(*sl((x, t), 0, n - 1), *sl((x, t), 1, n)), axis)
    no = _aval(odd[0]).shape[axis]
    even = combine(*(odd if n % 2 else sl(odd, 0, no - 1, 1)), *sl((x, t), 2, n))
    even = [concatenate([first, rest], axis) for first, rest in zip(sl((x, t), 0, 1, 1), even)]
    return _interleave(even, odd, axis)


def _balanced(p):
    """max/min of (value, tangent) pairs; a tie gives each side half (JAX's balanced
    rule: an operand equal to the result counts 1, or 1/2 when both are)."""
    def combine(xa, ta, xb, tb):
        z = bind(p, xa, xb)

        def coef(u, v):
            one, half, zero = full_like(z, 1), full_like(z, 0.5), full_like(z, 0)
            return bind(sel.select_n_p, bind(ew.eq_p, u, z), zero,
                        bind(sel.select_n_p, bind(ew.eq_p, v, z), one, half))
        return z, bind(ew.add_p, bind(ew.mul_p, coef(xa, xb), ta),
                       bind(ew.mul_p, coef(xb, xa), tb))
    return combine


def _assoc_scan_jvp(p, combine):
    """JAX's rule: the jvp of an associative scan of `combine` along the axis (the
    reversed axis when `reverse`); its primal is the scan's too, as JAX's."""
    def rule(primals, tangents, *, axis, reverse=False):
        x, = primals
        t, = tangents
        if is_zero(t):
            y = bind(p, x, axis=axis, reverse=reverse)
            return y, core.Zero(_aval(y))
        if reverse:
            x, t = rev(x, (axis,)), rev(t, (axis,))
        y, dy = _assoc_scan(combine, x, t, axis)
        if reverse:
            y, dy = rev(y, (axis,)), rev(dy, (axis,))
        return y, dy
    p.jvp = rule


_assoc_scan_jvp(cumprod_p, mul_jvp_pair)
_assoc_scan_jvp(cumlogsumexp_p, _logaddexp_pair)
_assoc_scan_jvp(cummax_p, _balanced(ew.max_p))
_assoc_scan_jvp(cummin_p, _balanced(ew.min_p))

__all__ = ["argmax_p", "argmin_p", "cumsum_p", "cumprod_p", "cummax_p", "cummin_p",
           "cumlogsumexp_p"]
