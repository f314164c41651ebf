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


# ----------------------------------------------------------------- convert / copy


def _convert_jvp(primals, tangents, *, new_dtype, weak_type=False, sharding=None):
    x, = primals
    t, = tangents
    out = bind(st.convert_element_type_p, x, new_dtype=new_dtype, weak_type=weak_type,
               sharding=sharding)
    if _is_zero(t) or not differentiable(_aval(x)) or not dtypes.is_inexact(new_dtype):
        return out, Zero(_aval(out))
    return out, bind(st.convert_element_type_p, t, new_dtype=new_dtype, weak_type=weak_type,
                     sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type=False, sharding=None):
    if _is_zero(ct):
        return [None]
    return [bind(st.convert_element_type_p, ct, new_dtype=x.aval.dtype,
                 weak_type=x.aval.weak_type, sharding=sharding)]


jvp_rules[st.convert_element_type_p] = _convert_jvp
deftranspose(st.convert_element_type_p, _convert_transpose)
deflinear(st.copy_p, lambda ct, x: [None if _is_zero(ct) else bind(st.copy_p, ct)])
nondiff(st.bitcast_convert_type_p, st.iota_p)

# ----------------------------------------------------------------------- shapes


def _bid_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
    if _is_zero(ct):
        return [None]
    in_shape = x.aval.shape
    new_dims = tuple(d for d in range(len(shape)) if d not in broadcast_dimensions)
    expanded = tuple(d for i, d in enumerate(broadcast_dimensions)
                     if in_shape[i] == 1 and shape[d] != 1)
    r = ct
    if expanded:
        r = lax.reduce_sum(r, expanded)  # reduces, then the dims are gone
    dims_left = [d for d in range(len(shape)) if d not in expanded]
    new_left = tuple(dims_left.index(d) for d in new_dims)
    if new_left:
        r = lax.reduce_sum(r, new_left)
    return [lax.reshape(r, in_shape)]


deflinear(st.broadcast_in_dim_p, _bid_transpose)
deflinear(st.reshape_p, lambda ct, x, **_: [None if _is_zero(ct) else lax.reshape(ct, x.aval.shape)])
deflinear(st.squeeze_p, lambda ct, x, **_: [None if _is_zero(ct) else lax.reshape(ct, x.aval.shape)])
deflinear(st.expand_dims_p, lambda ct, x, **_: [None if _is_zero(ct) else lax.reshape(ct, x.aval.shape)])
deflinear(st.transpose_p, lambda ct, x, *, permutation: [
    None if _is_zero(ct) else lax.transpose(ct, tuple(np.argsort(permutation)))])
deflinear(st.rev_p, lambda ct, x, *, dimensions: [
    None if _is_zero(ct) else lax.rev(ct, dimensions)])


def _concat_transpose(ct, *xs, dimension):
    out, off = [], 0
    for x in xs:
        n = _aval(x).shape[dimension]
        if is_undefined(x) and not _is_zero(ct):
            out.append(lax.slice_in_dim(ct, off, off + n, axis=dimension))
        else:
            out.append(None)
        off += n
    return out


deflinear(st.concatenate_p, _concat_transpose)


def _pad_transpose(ct, x, pv, *, padding_config):
    if _is_zero(ct):
        return [None, None]
    t = ct
    unpad = tuple((-lo, -hi, 0) for lo, hi, _ in padding_config)
    t = lax.pad(t, _const(t, 0), unpad)
    tx = lax.slice(t, (0,) * len(padding_config), _aval(t).shape,
                   tuple(it + 1 for _, _, it in padding_config))
    cx = tx if is_undefined(x) else None
    cpv = None
    if is_undefined(pv):
        total = lax.reduce_sum(ct, tuple(range(_aval(ct).ndim)))
        cpv = lax.sub(total, lax.reduce_sum(tx, tuple(range(_aval(tx).ndim))))
    return [cx, cpv]


deflinear(st.pad_p, _pad_transpose)


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides=None):
    if _is_zero(ct):
        return [None]
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    out_shape = _aval(ct).shape
    cfg = []
    for s, n_out, st_, d in zip(start_indices, out_shape, strides, shape):
        real_limit = s + (n_out - 1) * st_ + 1 if n_out > 0 else s
        cfg.append((s, d - real_limit, st_ - 1 if n_out > 0 else 0))
    return [lax.pad(ct, _const(ct, 0), cfg)]


deflinear(st.slice_p, _slice_transpose)


def _ds_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals
    out = bind(st.dynamic_slice_p, x, *idx, slice_sizes=slice_sizes)
    if _is_zero(tangents[0]):
        return out, Zero(_aval(out))
    return out, bind(st.dynamic_slice_p, tangents[0], *idx, slice_sizes=slice_sizes)


def _ds_transpose(ct, x, *idx, slice_sizes):
    if _is_zero(ct):
        return [None] * (1 + len(idx))
    z = instantiate(Zero(x.aval))
    return [bind(st.dynamic_update_slice_p, z, ct, *idx)] + [None] * len(idx)


jvp_rules[st.dynamic_slice_p] = _ds_jvp
deftranspose(st.dynamic_slice_p, _ds_transpose)


def _dus_jvp(primals, tangents):
    x, u, *idx = primals
    tx, tu = tangents[:2]
    out = bind(st.dynamic_update_slice_p, x, u, *idx)
    if _is_zero(tx) and _is_zero(tu):
        return out, Zero(_aval(out))
    return out, bind(st.dynamic_update_slice_p, instantiate(tx, _aval(x)),
                     instantiate(tu, _aval(u)), *idx)


def _dus_transpose(ct, x, u, *idx):
    if _is_zero(ct):
        return [None] * (2 + len(idx))
    ua = _aval(u)
    cx = bind(st.dynamic_update_slice_p, ct, instantiate(Zero(ua)), *idx) if is_undefined(x) else None
    cu = bind(st.dynamic_slice_p, ct, *idx, slice_sizes=ua.shape) if is_undefined(u) else None
    return [cx, cu] + [None] * len(idx)


jvp_rules[st.dynamic_update_slice_p] = _dus_jvp
deftranspose(st.dynamic_update_slice_p, _dus_transpose)

# ---------------------------------------------------------------- select / clamp


def _select_jvp(primals, tangents):
    which, *cases = primals
    out = bind(st.select_n_p, which, *cases)
    ts = tangents[1:]
    if all(_is_zero(t) for t in ts):
        return out, Zero(_aval(out))
    return out, bind(st.select_n_p, which, *[instantiate(t, _aval(c)) for t, c in zip(ts, cases)])


def _select_transpose(ct, which, *cases):
    if is_undefined(which):
        raise AssertionError("select_n is not linear in its predicate")
    if _is_zero(ct):
        return [None] * (1 + len(cases))
    zeros = lax.full_like(ct, 0)
    out = [None]
    for i, c in enumerate(cases):
        if is_undefined(c):
            out.append(bind(st.select_n_p, which, *[ct if j == i else zeros
                                                    for j in range(len(cases))]))
        else:
            out.append(None)
    return out


jvp_rules[st.select_n_p] = _select_jvp
deftranspose(st.select_n_p, _select_transpose)


def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    tlo, tx, thi = tangents
    out = bind(st.clamp_p, lo, x, hi)
    shape = _aval(out).shape
    if all(_is_zero(t) for t in tangents):
        return out, Zero(_aval(out))
    below = lax.lt(x, _bcast(lo, shape))
    above = lax.gt(x, _bcast(hi, shape))
    t = instantiate(tx, _aval(x))
    t = lax.select(below, _bcast(instantiate(tlo, _aval(lo)), shape), t)
    t = lax.select(above, _bcast(instantiate(thi, _aval(hi)), shape), t)
    return out, t


jvp_rules[st.clamp_p] = _clamp_jvp

# ------------------------------------------------------------------- reductions
nondiff(red.reduce_and_p, red.reduce_or_p, cum.argmax_p, cum.argmin_p)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    if _is_zero(ct):
        return [None]
    shape = x.aval.shape
    axes = tuple(a % len(shape) for a in axes) if shape else ()
    keep = tuple(d for d in range(len(shape)) if d not in axes)
    return [lax.broadcast_in_dim(ct, shape, keep)]


deflinear(red.reduce_sum_p, _reduce_sum_transpose)


def _reduce_chooser_jvp(p):
    def rule(primals, tangents, *, axes, out_sharding=None):
        x, = primals
        t, = tangents
        out = bind(p, x, axes=axes, out_sharding=out_sharding)
        if _is_zero(t):
            return out, Zero(_aval(out))
        shape = _aval(x).shape
        axes_ = tuple(a % len(shape) for a in axes) if shape else ()
        keep = tuple(d for d in range(len(shape)) if d not in axes_)
        loc = lax.eq(x, lax.broadcast_in_dim(out, shape, keep))
        locf = lax.convert_element_type(loc, _aval(x).dtype)
        counts = lax.reduce_sum(locf, axes_)
        return out, lax.div(lax.reduce_sum(lax.mul(t, locf), axes_), counts)
    jvp_rules[p] = rule


_reduce_chooser_jvp(red.reduce_max_p)
_reduce_chooser_jvp(red.reduce_min_p)


def _reduce_prod_jvp(primals, tangents, *, axes, out_sharding=None):
    x, = primals
    t, = tangents
    out = bind(red.reduce_prod_p, x, axes=axes, out_sharding=out_sharding)
    if _is_zero(t):
        return out, Zero(_aval(out))
    shape = _aval(x).shape
    axes_ = tuple(sorted(a % len(shape) for a in axes)) if shape else ()
    keep = tuple(d for d in range(len(shape)) if d not in axes_)
    perm = keep + axes_
    k = int(np.prod([shape[a] for a in axes_], dtype=np.int64))
    kshape = tuple(shape[d] for d in keep)
    xf = lax.reshape(lax.transpose(x, perm), kshape + (k,))
    tf = lax.reshape(lax.transpose(t, perm), kshape + (k,))
    ax = len(kshape)
    # product of all other elements: exclusive prefix * exclusive suffix products
    one = lax.full(kshape + (1,), 1, _aval(x).dtype)
    left = lax.concatenate([one, lax.slice_in_dim(lax.cumprod(xf, ax), 0, k - 1, axis=ax)], ax)
    right = lax.concatenate([lax.slice_in_dim(lax.cumprod(xf, ax, reverse=True), 1, k, axis=ax),
                             one], ax)
    others = lax.mul(left, right)
    return out, lax.reduce_sum(lax.mul(tf, others), (ax,))


jvp_rules[red.reduce_prod_p] = _reduce_prod_jvp

# ------------------------------------------------------------------ dot_general


def _ranges_like(*xs):
    start = 0
    for x in xs:
        x_len = len(x)
        yield range(start, start + x_len)
        start += x_len


def _remaining(original, *removed_lists):
    removed = set()
    for r in removed_lists:
        removed |= set(r)
    return [i for i in original if i not in removed]


def _dot_transpose_lhs(ct, x_aval, y, *, dimension_numbers, preferred_element_type=None,
                       swap_ans=False, **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_ndim = x_aval.ndim
    y_aval = _aval(y)
    x_kept = _remaining(range(x_ndim), x_contract, x_batch)
    y_kept = _remaining(range(y_aval.ndim), y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, y_kept), (ans_batch, y_batch))
    x_contract_sorted_by_y = list(np.take(x_contract, np.argsort(y_contract)))
    unsorted_axes = list(x_batch) + x_kept + x_contract_sorted_by_y
    out_axes = np.argsort(unsorted_axes)
    ct = lax.convert_element_type(ct, y_aval.dtype) if _aval(ct).dtype != y_aval.dtype else ct
    d = lax.dot_general(ct, y, ((tuple(dims[0][0]), tuple(dims[0][1])),
                                (tuple(dims[1][0]), tuple(dims[1][1]))),
                        preferred_element_type=x_aval.dtype)
    return lax.transpose(d, tuple(int(a) for a in out_axes))


def _dot_transpose_rhs(ct, x, y_aval, *, dimension_numbers, preferred_element_type=None,
                       **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = (((tuple(y_contract), tuple(x_contract)), (tuple(y_batch), tuple(x_batch))))
    return _dot_transpose_lhs(ct, y_aval, x, dimension_numbers=swapped,
                              preferred_element_type=preferred_element_type, swap_ans=True)


def _dot_jvp(primals, tangents, **params):
    x, y = primals
    tx, ty = tangents
    out = bind(red.dot_general_p, x, y, **params)
    ts = []
    if not _is_zero(tx):
        ts.append(bind(red.dot_general_p, tx, y, **params))
    if not _is_zero(ty):
        ts.append(bind(red.dot_general_p, x, ty, **params))
    if not ts:
        return out, Zero(_aval(out))
    return out, ts[0] if len(ts) == 1 else add_tangents(ts[0], ts[1])


def _dot_transpose(ct, x, y, **params):
    if _is_zero(ct):
        return [None, None]
    if is_undefined(x) and is_undefined(y):
        raise AssertionError("dot_general of two linear values is not linear")
    if is_undefined(x):
        return [_dot_transpose_lhs(ct, x.aval, y, **params), None]
    return [None, _dot_transpose_rhs(ct, x, y.aval, **params)]


jvp_rules[red.dot_general_p] = _dot_jvp
deftranspose(red.dot_general_p, _dot_transpose)

# ---------------------------------------------------------------- cumulative ops


def _cumsum_transpose(ct, x, *, axis, reverse=False):
    if _is_zero(ct):
        return [None]
    return [bind(cum.cumsum_p, ct, axis=axis, reverse=not reverse)]


deflinear(cum.cumsum_p, _cumsum_transpose)


def _shift(x, axis, reverse, fill):
    """x shifted by one along `axis` (towards the scan direction), `fill` entering."""
    a = _aval(x)
    n = a.shape[axis]
    pad_shape = list(a.shape)
    pad_shape[axis] = 1
    f = lax.full(tuple(pad_shape), fill, a.dtype)
    if n == 0:
        return x
    if not reverse:
        return lax.concatenate([f, lax.slice_in_dim(x, 0, n - 1, axis=axis)], axis)
    return lax.concatenate([lax.slice_in_dim(x, 1, n, axis=axis), f], axis)


def _linear_recurrence(a, b, axis, reverse):
    """c_i = a_i * c_{i-1} + b_i along `axis` (c_{-1} = 0), as a `scan` (linear in b)."""
    from astjax.primitives.scan import scan_raw
    nd = _aval(b).ndim
    perm = (axis,) + tuple(d for d in range(nd) if d != axis)
    inv = tuple(int(i) for i in np.argsort(perm))
    at, bt = lax.transpose(a, perm), lax.transpose(b, perm)
    init = lax.full(_aval(bt).shape[1:], 0, _aval(b).dtype)

    def step(c, xs):
        ai, bi = xs
        c = lax.add(lax.mul(ai, c), bi)
        return c, c
    _, ys = scan_raw(step, init, (at, bt), reverse=reverse)
    return lax.transpose(ys, inv)


def _cum_recurrence_jvp(p, coefs):
    """coefs(x, y, y_prev) -> (a, b_scale, b_from): tangent recurrence
    dy_i = a_i * dy_{i-1} + b_scale_i * t_i."""
    def rule(primals, tangents, *, axis, reverse=False):
        x, = primals
        t, = tangents
        y = bind(p, x, axis=axis, reverse=reverse)
        if _is_zero(t):
            return y, Zero(_aval(y))
        a, s = coefs(x, y, axis, reverse)
        return y, _linear_recurrence(a, lax.mul(s, t), axis, reverse)
    jvp_rules[p] = rule


def _cumprod_coefs(x, y, axis, reverse):
    y_prev = _shift(y, axis, reverse, 1)
    return x, y_prev


def _cumlse_coefs(x, y, axis, reverse):
    y_prev = _shift(y, axis, reverse, -np.inf)
    return lax.exp(lax.sub(y_prev, y)), lax.exp(lax.sub(x, y))


def _cumext_coefs(gt):
    def coefs(x, y, axis, reverse):
        dt = _aval(x).dtype
        y_prev = _shift(y, axis, reverse, -np.inf if gt else np.inf)
        new = lax.gt(x, y_prev) if gt else lax.lt(x, y_prev)
        s = lax.convert_element_type(new, dt)
        return lax.sub(lax.full_like(s, 1), s), s
    return coefs


_cum_recurrence_jvp(cum.cumprod_p, _cumprod_coefs)
_cum_recurrence_jvp(cum.cumlogsumexp_p, _cumlse_coefs)
_cum_recurrence_jvp(cum.cummax_p, _cumext_coefs(True))
_cum_recurrence_jvp(cum.cummin_p, _cumext_coefs(False))

# ------------------------------------------------------------------------- sort


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = _aval(primals[0]).shape
    iota = lax.broadcasted_iota(np.int32, shape, dimension)
    outs = bind(srt.sort_p, *primals, iota, dimension=dimension, is_stable=is_stable,
                num_keys=num_keys)
    perm = outs[-1]
    outs = outs[:-1]
    tout = []
    for t, o in zip(tangents, outs):
        if _is_zero(t):
            tout.append(Zero(_aval(o)))
        else:
            tout.append(_take_along(t, perm, dimension))
    return outs, tout


def _take_along(x, idx, axis):
    """x[..., idx, ...] along `axis` (idx has x's shape) as a gather."""
    a = _aval(x)
    nd = a.ndim
    others = [d for d in range(nd) if d != axis]
    # index vector: one coordinate per dimension, with iotas for the other axes
    coords = []
    for d in range(nd):
        c = idx if d == axis else lax.broadcasted_iota(np.int32, a.shape, d)
        coords.append(lax.reshape(c, a.shape + (1,)))
    indices = lax.concatenate(coords, nd) if nd > 1 else coords[0]
    dn = ix.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=tuple(range(nd)),
                                   start_index_map=tuple(range(nd)))
    del others
    return bind(ix.gather_p, x, indices, dimension_numbers=dn, slice_sizes=(1,) * nd,
                indices_are_sorted=False, unique_indices=True,
                mode=ix.GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)


jvp_rules[srt.sort_p] = _sort_jvp

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

# ------------------------------------------------------------------------- linalg
from astjax.primitives import linalg as la  # noqa: E402


def _ts_jvp(primals, tangents, **params):
    a, b = primals
    ta, tb = tangents
    x = bind(la.triangular_solve_p, a, b, **params)
    ts = []
    if not _is_zero(tb):
        ts.append(bind(la.triangular_solve_p, a, tb, **params))
    if not _is_zero(ta):
        # x = op(A)^-1 b (left) or b op(A)^-1 (right): dx = -op(A)^-1 op(dA) x
        lower = params.get("lower", False)
        unit = params.get("unit_diagonal", False)
        n = _aval(a).shape[-1]
        row = lax.broadcasted_iota(np.int32, (n, n), 0)
        col = lax.broadcasted_iota(np.int32, (n, n), 1)
        keep = lax.ge(row, col) if lower else lax.le(row, col)
        if unit:
            keep = lax.bitwise_and(keep, lax.ne(row, col))
        keep = lax.broadcast_in_dim(keep, _aval(a).shape, (_aval(a).ndim - 2, _aval(a).ndim - 1))
        da = lax.select(keep, ta, lax.full_like(ta, 0))
        if params.get("transpose_a"):
            nd = _aval(a).ndim
            da = lax.transpose(da, tuple(range(nd - 2)) + (nd - 1, nd - 2))
        nb = _aval(a).ndim - 2
        batch = (tuple(range(nb)), tuple(range(nb)))
        if params.get("left_side"):
            prod = lax.dot_general(da, x, (((nb + 1,), (nb,)), batch))
        else:
            prod = lax.dot_general(x, da, (((nb + 1,), (nb,)), batch))
        p2 = dict(params, transpose_a=False, conjugate_a=False)
        if params.get("transpose_a"):
            p2["transpose_a"] = True
        ts.append(lax.neg(bind(la.triangular_solve_p, a, prod, **params)))
    if not ts:
        return x, Zero(_aval(x))
    return x, ts[0] if len(ts) == 1 else add_tangents(ts[0], ts[1])


def _ts_transpose(ct, a, b, **params):
    if is_undefined(a):
        raise AssertionError("triangular_solve is not linear in its matrix")
    if _is_zero(ct):
        return [None, None]
    p = dict(params, transpose_a=not params.get("transpose_a", False))
    return [None, bind(la.triangular_solve_p, a, ct, **p)]


jvp_rules[la.triangular_solve_p] = _ts_jvp
deftranspose(la.triangular_solve_p, _ts_transpose)


def _cholesky_jvp(primals, tangents, *, lower=True):
    a, = primals
    t, = tangents
    L = bind(la.cholesky_p, a, lower=True)
    out = L if lower else lax.transpose(L, tuple(range(_aval(L).ndim - 2)) + (
        _aval(L).ndim - 1, _aval(L).ndim - 2))
    if _is_zero(t):
        return out, Zero(_aval(out))
    nd = _aval(a).ndim
    n = _aval(a).shape[-1]
    # sym(dA) -> phi(L^-1 dA L^-T) ; dL = L phi
    t = lax.mul(lax.add(t, lax.transpose(t, tuple(range(nd - 2)) + (nd - 1, nd - 2))),
                _const(t, 0.5))
    tmp = bind(la.triangular_solve_p, L, t, left_side=False, lower=True, transpose_a=True,
               conjugate_a=False, unit_diagonal=False)
    inner = bind(la.triangular_solve_p, L, tmp, left_side=True, lower=True, transpose_a=False,
                 conjugate_a=False, unit_diagonal=False)
    row = lax.broadcasted_iota(np.int32, (n, n), 0)
    col = lax.broadcasted_iota(np.int32, (n, n), 1)
    scale = lax.select(lax.gt(row, col), lax.full((n, n), 1.0, _aval(a).dtype),
                       lax.select(lax.eq(row, col), lax.full((n, n), 0.5, _aval(a).dtype),
                                  lax.full((n, n), 0.0, _aval(a).dtype)))
    phi = lax.mul(inner, lax.broadcast_in_dim(scale, _aval(a).shape, (nd - 2, nd - 1)))
    nb = nd - 2
    batch = (tuple(range(nb)), tuple(range(nb)))
    dL = lax.dot_general(L, phi, (((nb + 1,), (nb,)), batch))
    if not lower:
        dL = lax.transpose(dL, tuple(range(nb)) + (nd - 1, nd - 2))
    return out, dL


jvp_rules[la.cholesky_p] = _cholesky_jvp
