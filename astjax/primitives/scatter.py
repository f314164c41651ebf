"""Scatter: `scatter`, `scatter-add`, `scatter-mul`, `scatter-min`, `scatter-max`,
with JAX's names and params (`ScatterDimensionNumbers`; modes and index conventions
as in `gather`, whose module documents them).

The five primitives are declared by one family (abstract eval, NumPy reference,
lowering with a combiner region); each block then sets its jvp/transpose, batch
rule, printed source and the public `lax.scatter*` wrapper. `lax.scatter_apply`
(gather, apply, scatter) closes the module. Defaults are jax 0.10.2's: `mode=None`
is FILL_OR_DROP for the scatters (out-of-bounds windows are dropped).
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import DerivativeNotImplementedError, DTypeError, ShapeError
from ..pyast import lax_call, pyconst
from .comparisons import ge, le
from .base import (lax_ops, add_tangents, instantiate, is_zero as _is_zero, matchaxis, moveaxis,
                   register, tangent_aval as _aval)
from .gather import (GatherDimensionNumbers, GatherScatterMode, _bool_attr, _check_indices,
                     _dims_attr, _operand, _sorted_unique, _starts, _tuple, _upper_bounds,
                     _window_index, gather, gather_p)

__all__ = ["ScatterDimensionNumbers", "scatter_p", "scatter_add_p", "scatter_sub_p",
           "scatter_mul_p", "scatter_min_p", "scatter_max_p"]

Zero, is_undefined = core.Zero, core.is_undefined


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: tuple = ()
    inserted_window_dims: tuple = ()
    scatter_dims_to_operand_dims: tuple = ()
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()



def _scatter_attr(dn, index_vector_dim):
    parts = [("update_window_dims", dn.update_window_dims),
             ("inserted_window_dims", dn.inserted_window_dims),
             ("input_batching_dims", dn.operand_batching_dims),
             ("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
             ("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)]
    return _dims_attr("scatter", parts, index_vector_dim)


# ---- the family: abstract eval, NumPy reference, lowering


def _scatter_ae_for(name):
    def abstract_eval(operand, indices, updates, *, dimension_numbers, indices_are_sorted=False,
                      unique_indices=False, mode=None, update_jaxpr=None, update_consts=()):
        dn = dimension_numbers
        _check_indices(name, indices)
        if updates.dtype != operand.dtype:
            raise DTypeError(f"`{name}`: updates {updates.str_short(True)} must have the operand's "
                             f"dtype {operand.str_short(True)}")
        nb = indices.ndim - 1
        _sorted_unique(name, "update_window_dims", dn.update_window_dims, updates.ndim)
        _sorted_unique(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
        _sorted_unique(name, "operand_batching_dims", dn.operand_batching_dims, operand.ndim)
        if set(dn.inserted_window_dims) & set(dn.operand_batching_dims):
            raise ShapeError(f"`{name}`: a dimension cannot be both inserted and batching")
        if updates.ndim != nb + len(dn.update_window_dims):
            raise ShapeError(f"`{name}`: updates of shape {updates.shape} need rank "
                             f"{nb + len(dn.update_window_dims)} (indices batch "
                             f"{indices.shape[:-1]} plus {len(dn.update_window_dims)} window "
                             "dims)")
        wdims = [d for d in range(operand.ndim)
                 if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
        if len(wdims) != len(dn.update_window_dims):
            raise ShapeError(f"`{name}`: update_window_dims {tuple(dn.update_window_dims)} must "
                             f"have one entry per window dimension of the operand ({len(wdims)})")
        for d, u in zip(wdims, dn.update_window_dims):
            if updates.shape[u] > operand.shape[d]:
                raise ShapeError(f"`{name}`: update window of size {updates.shape[u]} is larger "
                                 f"than operand dimension {d} of shape {operand.shape}")
        sdims = [updates.shape[d] for d in range(updates.ndim) if d not in dn.update_window_dims]
        if tuple(sdims) != indices.shape[:-1]:
            raise ShapeError(f"`{name}`: updates' scatter dims {tuple(sdims)} do not match the "
                             f"indices' batch shape {indices.shape[:-1]}")
        m = dn.scatter_dims_to_operand_dims
        if len(m) != indices.shape[-1] or len(set(m)) != len(m) or any(
                not 0 <= d < operand.ndim for d in m):
            raise ShapeError(f"`{name}`: scatter_dims_to_operand_dims {tuple(m)} does not fit an "
                             f"index vector of length {indices.shape[-1]} into rank {operand.ndim}")
        if len(dn.operand_batching_dims) != len(dn.scatter_indices_batching_dims):
            raise ShapeError(f"`{name}`: operand and indices batching dims differ in length")
        for od, idim in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
            if not 0 <= idim < nb or operand.shape[od] != indices.shape[idim]:
                raise ShapeError(f"`{name}`: batching dimension {od} of operand {operand.shape} "
                                 f"does not match dimension {idim} of indices {indices.shape}")
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)
    return abstract_eval


def _set(out, idx, vals):
    out[idx] = vals


def _scatter_impl_for(apply):
    def impl(operand, indices, updates, *, dimension_numbers, indices_are_sorted=False,
             unique_indices=False, mode=None, update_jaxpr=None, update_consts=()):
        dn = dimension_numbers
        out = np.array(operand)
        ind, upd = np.asarray(indices), np.asarray(updates)
        mode = GatherScatterMode.from_any(mode)
        nb = ind.ndim - 1
        bshape = ind.shape[:-1]
        sdims = [d for d in range(upd.ndim) if d not in dn.update_window_dims]
        u = np.transpose(upd, sdims + list(dn.update_window_dims))
        wdims = [d for d in range(out.ndim)
                 if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
        full = [1] * out.ndim
        for d, ud in zip(wdims, dn.update_window_dims):
            full[d] = upd.shape[ud]
        u = u.reshape(bshape + tuple(full))
        starts = _starts(out.shape, ind, dn.scatter_dims_to_operand_dims,
                         dn.operand_batching_dims, dn.scatter_indices_batching_dims)
        if mode == GatherScatterMode.CLIP:
            starts = [np.clip(s, 0, n - z) for s, n, z in zip(starts, out.shape, full)]
        ok = np.ones(bshape, bool)
        for s, n, z in zip(starts, out.shape, full):
            ok &= (s >= 0) & (s <= n - z)
        idx = [np.broadcast_to(i, u.shape) for i in _window_index(starts, full, nb)]
        mask = np.broadcast_to(ok.reshape(bshape + (1,) * out.ndim), u.shape)
        with np.errstate(all="ignore"):
            apply(out, tuple(i[mask] for i in idx), u[mask])
        return out
    return impl


def _scatter_lowering_for(combine):
    def lowering(ctx, operand, indices, updates, *, dimension_numbers, indices_are_sorted=False,
                 unique_indices=False, mode=None, update_jaxpr=None, update_consts=()):
        dn = dimension_numbers
        oaval, iaval, uaval = ctx.avals_in
        if GatherScatterMode.from_any(mode) == GatherScatterMode.CLIP:
            full = [1] * oaval.ndim
            wdims = [d for d in range(oaval.ndim)
                     if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
            for d, ud in zip(wdims, dn.update_window_dims):
                full[d] = uaval.shape[ud]
            hi = _upper_bounds(ctx, iaval, [oaval.shape[d] - full[d]
                                            for d in dn.scatter_dims_to_operand_dims])
            zero = ctx.broadcast(ctx.constant(0, iaval.update(shape=())),
                                 iaval.update(shape=()), iaval)
            indices = ctx.op1("stablehlo.clamp", [zero, indices, hi], iaval)
        scalar = ShapedArray((), oaval.dtype)
        body = ctx.region([scalar, scalar], lambda a, b: [combine(ctx, a, b, scalar)])
        return ctx.op1("stablehlo.scatter", [operand, indices, updates], regions=[body], attrs={
            "scatter_dimension_numbers": _scatter_attr(dn, iaval.ndim - 1),
            "indices_are_sorted": _bool_attr(indices_are_sorted),
            "unique_indices": _bool_attr(unique_indices)})
    return lowering


def _hlo_combiner(op, bool_op):
    def combine(ctx, a, b, scalar):
        name = bool_op if scalar.dtype == dtypes.bool_ else op
        return ctx.mb.op(name, [a, b], [scalar])[0]
    return combine


def _np_bool_safe(uf, bool_uf):
    def apply(out, idx, vals):
        (bool_uf if out.dtype == np.bool_ else uf).at(out, idx, vals)
    return apply


def _no_bool_ae(name, op):
    """`name`'s abstract eval, refusing boolean operands as JAX does (its combiner `op`
    takes no booleans: JAX's TypeError, where a logical or / and would answer)."""
    check = _scatter_ae_for(name)

    def abstract_eval(operand, indices, updates, **params):
        if operand.dtype == dtypes.bool_:
            raise DTypeError(f"{op} does not accept dtype bool at position 0. Accepted dtypes "
                             "at position 0 are subtypes of integer, floating, "
                             "complexfloating.", hint="cast to an integer dtype first")
        return check(operand, indices, updates, **params)
    return abstract_eval


# ---- shared by the five blocks: AD helpers, batch rule, printed source, wrapper

_COMBINERS = {"scatter-add": "add", "scatter-sub": "sub", "scatter-mul": "mul",
              "scatter-min": "min", "scatter-max": "max"}

_NO_BOOL = ("scatter-add", "scatter-sub", "scatter-mul")


@functools.lru_cache(maxsize=None)
def combiner_jaxpr(name, dtype):
    """JAX's `update_jaxpr` of the `name` scatter on `dtype`: the scalar combiner
    `{ lambda ; a b. let c = add a b in (c,) }`, one object per (scatter, dtype) as
    JAX's cached one (printed once as `let jaxpr = ...` when used twice)."""
    op = getattr(lax_ops(), _COMBINERS[name])
    aval = ShapedArray((), dtype)
    return core.stage_open(lambda a, b: [op(a, b)], [aval, aval])[0]


def _bind(p, operand, indices, updates, **params):
    """`bind(p, ...)` for the scatters, a combining one's `update_jaxpr` its combiner
    on the operand's dtype (whatever params it was handed: a rule binding another
    scatter with them). Booleans have none for add / sub / mul: their abstract eval
    raises JAX's TypeError."""
    dtype = core.get_aval(operand).dtype
    if p.name in _COMBINERS and not (dtype == dtypes.bool_ and p.name in _NO_BOOL):
        params["update_jaxpr"] = combiner_jaxpr(p.name, dtype)
    return bind(p, operand, indices, updates, **params)



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
    gdn = GatherDimensionNumbers(
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
    fill = 0 if mode == GatherScatterMode.FILL_OR_DROP else None
    return bind(gather_p, x, idx, dimension_numbers=gdn, slice_sizes=sizes,
                indices_are_sorted=params.get("indices_are_sorted", False),
                unique_indices=params.get("unique_indices", False), mode=mode, fill_value=fill)


def _scatter_linear_jvp(p):
    def rule(primals, tangents, **params):
        x, idx, u = primals
        tx, _, tu = tangents
        out = _bind(p, x, idx, u, **params)
        if _is_zero(tx) and _is_zero(tu):
            return out, Zero(_aval(out))
        return out, _bind(p, instantiate(tx, _aval(x)), idx, instantiate(tu, _aval(u)), **params)
    return rule


def _scatter_batch(p):
    def rule(args, dims, *, dimension_numbers, **params):
        operand, indices, updates = args
        od, idd, ud = dims
        size = core.axis_size()
        dn = dimension_numbers
        inc = lambda t: tuple(int(v) + 1 for v in t)  # noqa: E731
        operand = matchaxis(operand, od, 0, size)
        updates = matchaxis(updates, ud, 0, size)
        if idd is None:
            dn2 = ScatterDimensionNumbers(
                update_window_dims=(0,) + inc(dn.update_window_dims),
                inserted_window_dims=inc(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=inc(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=inc(dn.operand_batching_dims),
                scatter_indices_batching_dims=tuple(dn.scatter_indices_batching_dims))
        else:
            indices = moveaxis(indices, idd, 0)
            dn2 = ScatterDimensionNumbers(
                update_window_dims=inc(dn.update_window_dims),
                inserted_window_dims=inc(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=inc(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=(0,) + inc(dn.operand_batching_dims),
                scatter_indices_batching_dims=(0,) + inc(dn.scatter_indices_batching_dims))
        return _bind(p, operand, indices, updates, dimension_numbers=dn2, **params), 0
    return rule


def _scatter_source(name):
    fname = name.replace("-", "_")

    def rule(gen, eqn):
        p = eqn.params
        if p.get("update_jaxpr") is not None and eqn.primitive.name not in _COMBINERS:
            return gen.generic(eqn)
        kw = {"dimension_numbers": gen.value(p["dimension_numbers"])}
        for k in ("indices_are_sorted", "unique_indices"):
            if p.get(k):
                kw[k] = pyconst(True)
        kw["mode"] = gen.value(p["mode"])
        return lax_call(fname, gen, eqn, **kw)
    return rule


def _like(x, dtype):
    """A Python scalar (or list) as a value of `dtype`; arrays pass through."""
    if dtypes.is_weak_scalar(x) or isinstance(x, (list, tuple, bool)):
        return np.asarray(x, dtype)
    return x


def _scatter(p):
    def f(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
          unique_indices=False, mode=None):
        dn = dimension_numbers
        dn = ScatterDimensionNumbers(_tuple(dn.update_window_dims),
                                     _tuple(dn.inserted_window_dims),
                                     _tuple(dn.scatter_dims_to_operand_dims),
                                     _tuple(getattr(dn, "operand_batching_dims", ())),
                                     _tuple(getattr(dn, "scatter_indices_batching_dims", ())))
        operand = _operand(operand)
        updates = _like(updates, core.get_aval(operand).dtype)
        return _bind(p, operand, _operand(scatter_indices), updates, dimension_numbers=dn,
                    indices_are_sorted=bool(indices_are_sorted),
                    unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode),
                    update_jaxpr=None, update_consts=())
    f.__name__ = p.name.replace("-", "_")
    f.__doc__ = f"`lax.{f.__name__}`: the `{p.name}` primitive on windows at `scatter_indices`."
    return f

# ---- scatter ----------------------------------------------------------------------


def _scatter_jvp(primals, tangents, **params):
    x, idx, u = primals
    tx, _, tu = tangents
    if _is_zero(tx) and _is_zero(tu):
        out = _bind(scatter_p, x, idx, u, **params)
        return out, Zero(_aval(out))
    xa, ua = _aval(x), _aval(u)
    tx, tu = instantiate(tx, xa), instantiate(tu, ua)
    if params.get("unique_indices"):   # (the promise: no element is written twice)
        return _bind(scatter_p, x, idx, u, **params), _bind(scatter_p, tx, idx, tu, **params)
    # Where indices repeat, one update wins (XLA's choice) and the others leave no trace,
    # so their derivative is zero, as JAX's rule gives: number the updates 1, 2, ... (one
    # number per window), scatter the numbers as the values are scattered, read back
    # which number landed, and add only the winners into the operand's unwritten
    # elements. A scatter-add: linear, its transpose hands a cotangent to the winner
    # alone. The read-back clamps as XLA's gather does: a dropped window's number is
    # nowhere in `landed`, so what it reads is never its own.
    L = lax_ops()
    dn = params["dimension_numbers"]
    ids_shape = tuple(1 if d in dn.update_window_dims else n for d, n in enumerate(ua.shape))
    n_ids = math.prod(ids_shape)   # (a symbolic dimension of an export stays one)
    id_dt = np.dtype(np.uint64 if isinstance(n_ids, int) and n_ids > np.iinfo(np.uint32).max
                     else np.uint32)
    ids = L.broadcast_in_dim(L.add(L.reshape(L.iota(id_dt, n_ids), ids_shape),
                                   L.full(ids_shape, 1, id_dt)), ua.shape, tuple(range(ua.ndim)))
    landed = _bind(scatter_p, L.full(xa.shape, 0, id_dt), idx, ids, **params)
    back = _gather_for_scatter(landed, idx, dict(params, mode=GatherScatterMode.CLIP), ua)
    kept, won = L.eq(landed, L.full(xa.shape, 0, id_dt)), L.eq(ids, back)

    def add_winners(a, v):
        return _bind(scatter_add_p, L.select(kept, a, L.full_like(a, 0)), idx,
                    L.select(won, v, L.full_like(v, 0)), **params)
    return add_winners(x, u), add_winners(tx, tu)


def _scatter_transpose(ct, x, idx, u, **params):
    if not params.get("unique_indices"):
        # (the JVP above never leaves such a scatter in a linear program)
        raise DerivativeNotImplementedError(
            "scatter transpose is only implemented where unique_indices=True (as in JAX)",
            hint="differentiate through jvp / grad (which handle repeated indices), or "
                 "pass unique_indices=True when no index repeats")
    if _is_zero(ct):
        return [None, None, None]
    ua = _aval(u)
    cx = _bind(scatter_p, ct, idx, instantiate(Zero(ua)), **params) if is_undefined(x) else None
    cu = _gather_for_scatter(ct, idx, params, ua) if is_undefined(u) else None
    return [cx, None, cu]


scatter_p = core.new_primitive("scatter")
register(scatter_p, impl=_scatter_impl_for(_set), abstract_eval=_scatter_ae_for("scatter"),
         lowering=_scatter_lowering_for(lambda ctx, a, b, scalar: b),
         jvp=_scatter_jvp, transpose=_scatter_transpose,
         batch=_scatter_batch(scatter_p), source=_scatter_source("scatter"))
scatter = _scatter(scatter_p)

# ---- scatter-add ------------------------------------------------------------------


def _scatter_add_transpose(ct, x, idx, u, **params):
    if _is_zero(ct):
        return [None, None, None]
    cx = ct if is_undefined(x) else None
    cu = _gather_for_scatter(ct, idx, params, _aval(u)) if is_undefined(u) else None
    return [cx, None, cu]


scatter_add_p = core.new_primitive("scatter-add")
register(scatter_add_p, impl=_scatter_impl_for(lambda out, idx, vals: np.add.at(out, idx, vals)),
         abstract_eval=_no_bool_ae("scatter-add", "add"),
         lowering=_scatter_lowering_for(_hlo_combiner("stablehlo.add", None)),
         jvp=_scatter_linear_jvp(scatter_add_p), transpose=_scatter_add_transpose,
         batch=_scatter_batch(scatter_add_p), source=_scatter_source("scatter-add"))
scatter_add = _scatter(scatter_add_p)

# ---- scatter-sub ------------------------------------------------------------------


def _scatter_sub_transpose(ct, x, idx, u, **params):
    if _is_zero(ct):
        return [None, None, None]
    cx = ct if is_undefined(x) else None
    cu = (lax_ops().neg(_gather_for_scatter(ct, idx, params, _aval(u))) if is_undefined(u)
          else None)
    return [cx, None, cu]


scatter_sub_p = core.new_primitive("scatter-sub")
register(scatter_sub_p, impl=_scatter_impl_for(lambda out, idx, vals: np.subtract.at(
             out, idx, vals)),
         abstract_eval=_no_bool_ae("scatter-sub", "sub"),
         lowering=_scatter_lowering_for(_hlo_combiner("stablehlo.subtract", None)),
         jvp=_scatter_linear_jvp(scatter_sub_p), transpose=_scatter_sub_transpose,
         batch=_scatter_batch(scatter_sub_p), source=_scatter_source("scatter-sub"))
scatter_sub = _scatter(scatter_sub_p)
scatter_sub.__doc__ = ("`lax.scatter_sub`: like `scatter_add`, subtracting each update from "
                       "the operand entry it lands on (integers wrap as in two's-complement "
                       "subtraction).")

# ---- scatter-mul ------------------------------------------------------------------


def _scatter_mul_jvp(primals, tangents, **params):
    x, idx, u = primals
    tx, _, tu = tangents
    out = _bind(scatter_mul_p, x, idx, u, **params)
    ts = []
    if not _is_zero(tx):
        ts.append(_bind(scatter_mul_p, tx, idx, u, **params))
    if not _is_zero(tu):
        if not params.get("unique_indices"):
            raise DerivativeNotImplementedError(
                "scatter_mul gradients with respect to the updates are only implemented "
                "if `unique_indices=True` (as in JAX)")
        # (the operand times the tangents scattered: as JAX's rule, an inf or NaN operand
        # element no index names gives a NaN tangent there)
        z = instantiate(Zero(_aval(x)))
        ts.append(lax_ops().mul(x, _bind(scatter_add_p, z, idx, tu, **params)))
    if not ts:
        return out, Zero(_aval(out))
    return out, ts[0] if len(ts) == 1 else add_tangents(ts[0], ts[1])


def _scatter_mul_transpose(ct, x, idx, u, **params):
    if is_undefined(u) and not params.get("unique_indices"):
        raise DerivativeNotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True` (as in JAX)")
    if _is_zero(ct):
        return [None, None, None]
    cx = _bind(scatter_mul_p, ct, idx, u, **params) if is_undefined(x) else None
    # (updates undefined, the operand known: JAX's rule, the cotangent times the operand
    # read back at the indices)
    cu = (_gather_for_scatter(lax_ops().mul(ct, x), idx, params, _aval(u)) if is_undefined(u)
          else None)
    return [cx, None, cu]


scatter_mul_p = core.new_primitive("scatter-mul")
register(scatter_mul_p, impl=_scatter_impl_for(lambda out, idx, vals: np.multiply.at(
             out, idx, vals)),
         abstract_eval=_no_bool_ae("scatter-mul", "mul"),
         lowering=_scatter_lowering_for(_hlo_combiner("stablehlo.multiply", None)),
         jvp=_scatter_mul_jvp, transpose=_scatter_mul_transpose,
         batch=_scatter_batch(scatter_mul_p), source=_scatter_source("scatter-mul"))
scatter_mul = _scatter(scatter_mul_p)

# ---- scatter-min / scatter-max ----------------------------------------------------


def _scatter_ext_jvp(p, wins, worst):
    # Balanced, like reduce_max: every value equal to the output at an element (the
    # operand's, the updates') gets an equal share of that element's tangent, as JAX's
    # rule gives. XLA may compute an operand or an update twice, in the scatter's fusion
    # and in a comparison's, rounded differently (a `sin` inlined twice; fuzz seeds
    # 810010, 880022), so no winner is found by comparing a value with the scatter's
    # output (`x == out` fails when x clearly won). Each value is compared instead with
    # what it competes against -- the operand with `m`, the best of the updates at its
    # element; an update with the operand there and, where several updates meet, with
    # `m` -- which a rounding difference flips only at a near-tie. `wins(a, b)`: a beats
    # or ties b (`ge` for max, `le` for min); `worst` loses to every value.
    def rule(primals, tangents, **params):
        lax = lax_ops()
        x, idx, u = primals
        tx, _, tu = tangents
        out = _bind(p, x, idx, u, **params)
        if _is_zero(tx) and _is_zero(tu):
            return out, Zero(_aval(out))
        dt, ua = _aval(x).dtype, _aval(u)
        z = instantiate(Zero(_aval(x)))
        m = _bind(p, lax.full_like(x, worst, dt), idx, u, **params)
        refs = _bind(scatter_add_p, z, idx, lax.full_like(u, 1, dt), **params)
        # an element no update reaches keeps its tangent (also where the operand is NaN)
        x_wins = lax.convert_element_type(
            lax.select(lax.gt(refs, z), wins(x, m), lax.full_like(x, True, np.bool_)), dt)
        alone = lax.eq(_gather_for_scatter(refs, idx, params, ua), lax.full_like(u, 1, dt))
        u_wins = lax.convert_element_type(lax.bitwise_and(
            wins(u, _gather_for_scatter(x, idx, params, ua)),
            lax.bitwise_or(alone, wins(u, _gather_for_scatter(m, idx, params, ua)))), dt)
        count = lax.add(x_wins, _bind(scatter_add_p, z, idx, u_wins, **params))
        num = lax.add(lax.mul(instantiate(tx, _aval(x)), x_wins),
                      _bind(scatter_add_p, z, idx, lax.mul(instantiate(tu, ua), u_wins),
                           **params))
        # no winner where the output is NaN (a NaN update, or a NaN operand reached by
        # updates) or at a near-tie rounded both ways: a zero tangent, as JAX's gives
        return out, lax.div(num, lax.max(count, lax.full_like(count, 1, dt)))
    return rule


scatter_min_p = core.new_primitive("scatter-min")
register(scatter_min_p, impl=_scatter_impl_for(_np_bool_safe(np.minimum, np.logical_and)),
         abstract_eval=_scatter_ae_for("scatter-min"),
         lowering=_scatter_lowering_for(_hlo_combiner("stablehlo.minimum", "stablehlo.and")),
         jvp=_scatter_ext_jvp(scatter_min_p, le, np.inf), batch=_scatter_batch(scatter_min_p),
         source=_scatter_source("scatter-min"))
scatter_min = _scatter(scatter_min_p)

scatter_max_p = core.new_primitive("scatter-max")
register(scatter_max_p, impl=_scatter_impl_for(_np_bool_safe(np.maximum, np.logical_or)),
         abstract_eval=_scatter_ae_for("scatter-max"),
         lowering=_scatter_lowering_for(_hlo_combiner("stablehlo.maximum", "stablehlo.or")),
         jvp=_scatter_ext_jvp(scatter_max_p, ge, -np.inf), batch=_scatter_batch(scatter_max_p),
         source=_scatter_source("scatter-max"))
scatter_max = _scatter(scatter_max_p)

# ---- scatter_apply ----------------------------------------------------------------


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """`lax.scatter_apply`: `func` applied at the scattered positions once per time
    an index names them (XLA's scatter with `func` as its combiner, as JAX: an element
    named k times is func(...func(x)...), k deep). `update_shape`: the updates' shape
    (scatter dims, then the window dims), as JAX's."""
    L = lax_ops()
    dn = dimension_numbers
    shape = core.get_aval(operand).shape
    # how often each element is named (out-of-bounds windows as the scatter treats them)
    times = scatter_add(L.full(shape, 0, np.int32), scatter_indices,
                        L.full(tuple(update_shape), 1, np.int32), dn, mode=mode,
                        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    return apply_times(operand, times, func)


def apply_times(x, times, func):
    """`x` with `func` applied `times[i]` times to each element `x[i]` (a loop of
    max(times) rounds, each applying `func` where `times` is still larger; no scatter,
    so its derivative is func's chained). `func` maps `x`'s aval to itself: its callers
    pass `lax_extras._each_element`, which checks the scatter region's type."""
    L = lax_ops()
    shape = core.get_aval(x).shape
    rounds = L.reduce_max(times, tuple(range(len(shape))))

    def body(carry):
        i, y = carry
        more = L.gt(times, L.broadcast_in_dim(i, shape, ()))
        return L.add(i, np.int32(1)), L.select(more, func(y), y)
    return L.while_loop(core.RawFunction(lambda c: L.lt(c[0], rounds)),
                        core.RawFunction(body), (np.int32(0), x))[1]
