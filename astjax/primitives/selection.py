"""Selection primitives: `select_n` (cases[which], elementwise) and `clamp`, each one
block: declaration, impl, abstract eval, lowering, jvp/transpose, batch rule, printed
source and the `lax.*` wrappers (`select_n`, `select`, `clamp`)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import DTypeError, ShapeError
from ..pyast import call, lax_call
from . import elementwise as ew
from .base import (bcast_operand, defbroadcasting, instantiate, is_zero, match_scalars,
                   register)
from .base import tangent_aval as _aval
from .structural import full_like

__all__ = ["select_n_p", "clamp_p"]

# ---- select_n / clamp -------------------------------------------------------------
select_n_p = core.new_primitive("select_n")


def _select_n_ae(which, *cases):
    if which.dtype != dtypes.bool_ and not dtypes.is_int(which.dtype):
        raise DTypeError(f"select_n predicate must be boolean or integer, got {which.dtype}")
    c0 = cases[0]
    for c in cases[1:]:
        if c.shape != c0.shape or c.dtype != c0.dtype:
            raise ShapeError("select_n cases must have one shape and dtype, got "
                             f"{', '.join(c.str_short(True) for c in cases)}")
    if which.shape not in ((), c0.shape):
        raise ShapeError(f"select_n predicate shape {which.shape} does not match {c0.shape}")
    return ShapedArray(c0.shape, c0.dtype, all(c.weak_type for c in cases))


def _select_n_impl(which, *cases):
    if len(cases) == 1:
        return np.array(cases[0])
    which = np.asarray(which)
    if which.dtype == np.bool_:
        which = which.astype(np.int32)
    # (an index out of range takes the nearest case, as the lowering's comparison tree)
    which = np.clip(which, 0, len(cases) - 1)
    return np.choose(np.broadcast_to(which, np.shape(cases[0])), [np.asarray(c) for c in cases])


def _select_n_lowering(ctx, which, *cases):
    wa = ctx.avals_in[0]
    out = ctx.avals_out[0]
    if len(cases) == 1:
        return cases[0]
    if wa.dtype == dtypes.bool_:
        pred = ctx.broadcast(which, wa, out.update(dtype=dtypes.bool_)) if out.shape else which
        if wa.shape == () and out.shape:
            pred = which  # stablehlo.select accepts a scalar predicate
        return ctx.op1("stablehlo.select", [pred, cases[1], cases[0]])
    # integer index: a tree of `which < mid` selects, so an index out of range takes the
    # nearest case (a negative one cases[0], a large one the last), as JAX's lowering
    bool_aval = wa.update(dtype=dtypes.bool_)

    def tree(lo, hi):
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        k = ctx.broadcast(ctx.constant(mid, wa.update(shape=())), wa.update(shape=()), wa)
        below = ctx.op1("stablehlo.compare", [which, k], bool_aval,
                        attrs={"comparison_direction": "#stablehlo<comparison_direction LT>"})
        return ctx.op1("stablehlo.select", [below, tree(lo, mid), tree(mid, hi)])
    return tree(0, len(cases))


register(select_n_p, impl=_select_n_impl, abstract_eval=_select_n_ae,
         lowering=_select_n_lowering)


def _select_jvp(primals, tangents):
    which, *cases = primals
    out = bind(select_n_p, which, *cases)
    ts = tangents[1:]
    if all(is_zero(t) for t in ts):
        return out, core.Zero(_aval(out))
    return out, bind(select_n_p, which, *[instantiate(t, _aval(c)) for t, c in zip(ts, cases)])


def _select_transpose(ct, which, *cases):
    if core.is_undefined(which):
        raise AssertionError("select_n is not linear in its predicate")
    if is_zero(ct):
        return [None] * (1 + len(cases))
    zeros = full_like(ct, 0)
    out = [None]
    for i, c in enumerate(cases):
        if not core.is_undefined(c):
            out.append(None)
        elif core.get_aval(which).dtype == dtypes.bool_:
            out.append(bind(select_n_p, which, *[ct if j == i else zeros
                                                 for j in range(len(cases))]))
        else:
            # (only where which == i, as JAX: an index out of range passes no cotangent,
            # though the forward selection takes the nearest case there)
            is_i = bind(ew.eq_p, which, full_like(which, i))
            out.append(bind(select_n_p, is_i, zeros, ct))
    return out


def _select_source(gen, eqn):
    which, *cases = eqn.invars
    if (len(cases) == 2 and which.aval.dtype == dtypes.bool_ and isinstance(which, core.Var)
            and which.aval.shape == cases[0].aval.shape
            and all(c.aval.dtype == cases[0].aval.dtype for c in cases)
            and not all(isinstance(c, core.Literal) for c in cases)):
        return call("jnp.where", [gen.arg(which), gen.arg(cases[1], bare=True),
                                  gen.arg(cases[0], bare=True)])
    return lax_call("select_n", gen, eqn)


register(select_n_p, jvp=_select_jvp, transpose=_select_transpose, source=_select_source)
defbroadcasting(select_n_p, scalar_ok={0})


def select_n(which, *cases):
    """`lax.select_n`: cases[which] elementwise (bool `which`: False -> cases[0])."""
    return bind(select_n_p, which, *cases)


def select(pred, on_true, on_false):
    """`lax.select`: on_true where pred, else on_false."""
    return bind(select_n_p, pred, on_false, on_true)

clamp_p = core.new_primitive("clamp")


def _clamp_ae(lo, x, hi):
    for b in (lo, hi):
        if b.shape not in ((), x.shape) or b.dtype != x.dtype:
            raise ShapeError(f"clamp bounds {b.str_short(True)} do not match operand {x.str_short(True)}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


register(clamp_p,
         impl=lambda lo, x, hi: np.minimum(np.maximum(np.asarray(x), lo), hi).astype(np.asarray(x).dtype),
         abstract_eval=_clamp_ae,
         lowering=lambda ctx, lo, x, hi: ctx.op1("stablehlo.clamp", [lo, x, hi]))


def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    out = bind(clamp_p, lo, x, hi)
    shape = _aval(out).shape
    if all(is_zero(t) for t in tangents):
        return out, core.Zero(_aval(out))
    blo, bhi = bcast_operand(lo, shape), bcast_operand(hi, shape)
    zeros = full_like(out, 0)
    # JAX's rule: an operand passes its tangent only where it is the result strictly (x
    # at a bound, or NaN, passes none), the parts summed in operand order
    conds = [lambda: bind(ew.and_p, bind(ew.gt_p, blo, x), bind(ew.lt_p, blo, bhi)),
             lambda: bind(ew.and_p, bind(ew.gt_p, x, blo), bind(ew.lt_p, x, bhi)),
             lambda: bind(ew.lt_p, bhi, x)]
    t = None
    for cond, tan, primal in zip(conds, tangents, primals):
        if is_zero(tan):
            continue
        part = select(cond(), bcast_operand(instantiate(tan, _aval(primal)), shape), zeros)
        t = part if t is None else bind(ew.add_p, t, part)
    return out, t


def _clamp_source(gen, eqn):
    lo, x, hi = eqn.invars
    return call("lax.clamp", [gen.arg(lo, bare=True), gen.arg(x), gen.arg(hi, bare=True)])


register(clamp_p, jvp=_clamp_jvp, source=_clamp_source)
defbroadcasting(clamp_p, scalar_ok={0, 2})


def clamp(min, x, max):  # noqa: A002
    """`lax.clamp`: x limited to [min, max] (Python scalars take x's dtype)."""
    min, x = match_scalars(min, x)
    max, x = match_scalars(max, x)
    return bind(clamp_p, min, x, max)

