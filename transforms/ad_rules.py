"""JVP and transpose rules for every non-control-flow primitive, one contiguous block
per primitive family. Rules are written with `lax` functions on Tracers, so `bind`
stages them into the current builder.

Signatures (see `primitives.helpers`):
  jvp(primals, tangents, **params) -> (primal_out, tangent_out)   tangents may be Zero
  transpose(ct, *args, **params) -> [ct per arg]   linear args are UndefinedPrimal;
                                                   ct may be Zero; None = no cotangent
"""
from __future__ import annotations

import numpy as np

from astjax import core, dtypes, lax
from astjax.core import bind
from astjax.primitives import cumulative as cum
from astjax.primitives import indexing as ix
from astjax.primitives import reductions as red
from astjax.primitives import sort as srt
from astjax.primitives import structural as st

from .ad import UndefinedPrimal, Zero, add_tangents, differentiable, instantiate, is_undefined

jvp_rules = core.jvp_rules
transpose_rules = core.transpose_rules


from astjax.primitives.base import (bcast_rank0 as _bcast, deflinear, defjvp,  # noqa: E402
                                    deftranspose, defzero, is_zero as _is_zero, nondiff,
                                    sum_tangents as _sum_tangents, tangent_aval as _aval,
                                    unbcast_rank0 as _unbcast, weak_const as _const)


# --------------------------------------------------------------- gather / scatter


def _gather_jvp(primals, tangents, **params):
    x, idx = primals
    out = bind(ix.gather_p, x, idx, **params)
    if _is_zero(tangents[0]):
        return out, Zero(_aval(out))
    p = dict(params)
    if p.get("fill_value") is not None:
        p["fill_value"] = 0
    return out, bind(ix.gather_p, tangents[0], idx, **p)


def _gather_transpose(ct, x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted=False,
                      unique_indices=False, mode=None, fill_value=None):
    if _is_zero(ct):
        return [None, None]
    dn = dimension_numbers
    sdn = ix.ScatterDimensionNumbers(
        update_window_dims=tuple(dn.offset_dims),
        inserted_window_dims=tuple(dn.collapsed_slice_dims),
        scatter_dims_to_operand_dims=tuple(dn.start_index_map),
        operand_batching_dims=tuple(dn.operand_batching_dims),
        scatter_indices_batching_dims=tuple(dn.start_indices_batching_dims))
    z = instantiate(Zero(x.aval))
    smode = mode if mode != ix.GatherScatterMode.PROMISE_IN_BOUNDS else mode
    if smode == ix.GatherScatterMode.CLIP:
        smode = ix.GatherScatterMode.CLIP
    out = bind(ix.scatter_add_p, z, idx, ct, dimension_numbers=sdn,
               indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
               mode=smode, update_jaxpr=None, update_consts=())
    return [out, None]


jvp_rules[ix.gather_p] = _gather_jvp
deftranspose(ix.gather_p, _gather_transpose)


def _scatter_gather_dims(dn, operand_shape, updates_shape):
    """The gather that reads back what a scatter with `dn` wrote."""
    slice_sizes = []
    pos = 0
    for i in range(len(operand_shape)):
        if i in dn.inserted_window_dims or i in dn.operand_batching_dims:
            slice_sizes.append(1)
        else:
            slice_sizes.append(updates_shape[dn.update_window_dims[pos]])
            pos += 1
    gdn = ix.GatherDimensionNumbers(
        offset_dims=tuple(dn.update_window_dims),
        collapsed_slice_dims=tuple(dn.inserted_window_dims),
        start_index_map=tuple(dn.scatter_dims_to_operand_dims),
        operand_batching_dims=tuple(dn.operand_batching_dims),
        start_indices_batching_dims=tuple(dn.scatter_indices_batching_dims))
    return gdn, tuple(slice_sizes)


def _gather_for_scatter(x, idx, params, updates_aval):
    gdn, sizes = _scatter_gather_dims(params["dimension_numbers"], _aval(x).shape,
                                      updates_aval.shape)
    mode = params.get("mode")
    fill = 0 if mode == ix.GatherScatterMode.FILL_OR_DROP else None
    return bind(ix.gather_p, x, idx, dimension_numbers=gdn, slice_sizes=sizes,
                indices_are_sorted=params.get("indices_are_sorted", False),
                unique_indices=params.get("unique_indices", False), mode=mode, fill_value=fill)


def _scatter_linear_jvp(p):
    def rule(primals, tangents, **params):
        x, idx, u = primals
        tx, _, tu = tangents
        out = bind(p, x, idx, u, **params)
        if _is_zero(tx) and _is_zero(tu):
            return out, Zero(_aval(out))
        return out, bind(p, instantiate(tx, _aval(x)), idx, instantiate(tu, _aval(u)), **params)
    return rule


def _scatter_add_transpose(ct, x, idx, u, **params):
    if _is_zero(ct):
        return [None, None, None]
    cx = ct if is_undefined(x) else None
    cu = _gather_for_scatter(ct, idx, params, _aval(u)) if is_undefined(u) else None
    return [cx, None, cu]


def _scatter_transpose(ct, x, idx, u, **params):
    if _is_zero(ct):
        return [None, None, None]
    ua = _aval(u)
    cx = bind(ix.scatter_p, ct, idx, instantiate(Zero(ua)), **params) if is_undefined(x) else None
    cu = _gather_for_scatter(ct, idx, params, ua) if is_undefined(u) else None
    return [cx, None, cu]


jvp_rules[ix.scatter_add_p] = _scatter_linear_jvp(ix.scatter_add_p)
deftranspose(ix.scatter_add_p, _scatter_add_transpose)
jvp_rules[ix.scatter_p] = _scatter_linear_jvp(ix.scatter_p)
deftranspose(ix.scatter_p, _scatter_transpose)


def _scatter_mul_jvp(primals, tangents, **params):
    x, idx, u = primals
    tx, _, tu = tangents
    out = bind(ix.scatter_mul_p, x, idx, u, **params)
    ts = []
    if not _is_zero(tx):
        ts.append(bind(ix.scatter_mul_p, tx, idx, u, **params))
    if not _is_zero(tu):
        if not params.get("unique_indices"):
            from .ad import DifferentiationError
            raise DifferentiationError(
                "scatter_mul gradients with respect to the updates are only implemented "
                "if `unique_indices=True` (as in JAX)")
        xg = _gather_for_scatter(x, idx, params, _aval(u))
        z = instantiate(Zero(_aval(x)))
        ts.append(bind(ix.scatter_add_p, z, idx, lax.mul(tu, xg), **params))
    if not ts:
        return out, Zero(_aval(out))
    return out, ts[0] if len(ts) == 1 else add_tangents(ts[0], ts[1])


def _scatter_mul_transpose(ct, x, idx, u, **params):
    if is_undefined(u):
        raise AssertionError("scatter-mul is not linear in its updates")
    if _is_zero(ct):
        return [None, None, None]
    return [bind(ix.scatter_mul_p, ct, idx, u, **params), None, None]


jvp_rules[ix.scatter_mul_p] = _scatter_mul_jvp
deftranspose(ix.scatter_mul_p, _scatter_mul_transpose)


def _scatter_ext_jvp(p):
    # balanced, like reduce_max: ties share the tangent equally
    def rule(primals, tangents, **params):
        x, idx, u = primals
        tx, _, tu = tangents
        out = bind(p, x, idx, u, **params)
        if _is_zero(tx) and _is_zero(tu):
            return out, Zero(_aval(out))
        dt = _aval(x).dtype
        ua = _aval(u)
        x_wins = lax.convert_element_type(lax.eq(x, out), dt)
        out_g = _gather_for_scatter(out, idx, params, ua)
        u_wins = lax.convert_element_type(lax.eq(u, out_g), dt)
        z = instantiate(Zero(_aval(x)))
        sparams = dict(params)
        count = lax.add(x_wins, bind(ix.scatter_add_p, z, idx, u_wins, **sparams))
        num = lax.mul(instantiate(tx, _aval(x)), x_wins)
        num = lax.add(num, bind(ix.scatter_add_p, z, idx,
                                lax.mul(instantiate(tu, ua), u_wins), **sparams))
        return out, lax.div(num, count)
    return rule


jvp_rules[ix.scatter_min_p] = _scatter_ext_jvp(ix.scatter_min_p)
jvp_rules[ix.scatter_max_p] = _scatter_ext_jvp(ix.scatter_max_p)

# ------------------------------------------------------------ collectives (named axes)
from astjax.primitives import collectives as coll  # noqa: E402


def _psum_transpose(ct, x, **params):
    return [None if _is_zero(ct) else bind(coll.psum_p, ct, **params)]


deflinear(coll.psum_p, _psum_transpose)
deflinear(coll.ppermute_p, lambda ct, x, *, axis_name, perm: [
    None if _is_zero(ct) else bind(coll.ppermute_p, ct, axis_name=axis_name,
                                   perm=tuple((t, s) for s, t in perm))])


def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, **params):
    if _is_zero(ct):
        return [None]
    return [bind(coll.all_to_all_p, ct, split_axis=concat_axis, concat_axis=split_axis,
                 **params)]


deflinear(coll.all_to_all_p, _all_to_all_transpose)
nondiff(coll.axis_index_p)
for _p, _why in ((coll.pmax_p, "pmax has no derivative rule yet"),
                 (coll.pmin_p, "pmin has no derivative rule yet")):
    core.unsupported["jvp"][_p] = _why
core.jvp_rules[coll.all_gather_p] = lambda primals, tangents, **params: (
    bind(coll.all_gather_p, *primals, **params),
    Zero(core.get_aval(bind(coll.all_gather_p, *primals, **params)))
    if _is_zero(tangents[0]) else bind(coll.all_gather_p, tangents[0], **params))
core.unsupported["transpose"][coll.all_gather_p] = "needs psum_scatter (not implemented)"

