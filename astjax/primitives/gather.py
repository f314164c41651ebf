"""Gather: `gather`, and the types every indexing primitive shares
(`GatherScatterMode`, `GatherDimensionNumbers`), with JAX's names and params.

One block: declaration (impl, abstract eval, lowering), jvp/transpose, batch rule,
printed source and the public `lax.gather` wrapper. The transpose of a gather is a
`scatter-add` (the later `scatter` family, imported inside the rule).

Indices always carry their index vector in the last axis (JAX's convention, so
`index_vector_dim = indices.ndim - 1` in StableHLO). Out-of-bounds handling follows
`GatherScatterMode`, as in JAX:

- `CLIP`: start indices are clamped so that the whole window is in bounds;
- `FILL_OR_DROP` (the default of `lax.scatter*` when `mode=None`; `lax.gather`'s
  default is PROMISE_IN_BOUNDS, as in jax 0.10.2): a gather window that is partly
  out of bounds is replaced by `fill_value` (NaN for inexact dtypes, the minimum of
  signed, the maximum of unsigned ints, True for bool); a scatter window that is
  partly out of bounds is dropped;
- `PROMISE_IN_BOUNDS`: no checks; XLA then clamps gathers and drops scatters,
  which is also what the NumPy reference does. `jnp` indexing (`x[idx]`) uses this
  mode for gathers, after wrapping negative indices (so it clamps).
"""
from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import DTypeError, ShapeError
from ..pyast import lax_call, pyconst
from .base import instantiate, is_zero as _is_zero, moveaxis, register, tangent_aval as _aval

__all__ = ["GatherScatterMode", "GatherDimensionNumbers", "gather_p", "default_fill_value"]

Zero = core.Zero


class GatherScatterMode(enum.Enum):
    """How gather/scatter treat out-of-bounds indices: CLIP, FILL_OR_DROP or
    PROMISE_IN_BOUNDS (JAX's names; `from_any` also takes the strings)."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    def __str__(self):
        return f"GatherScatterMode.{self.name}"

    @staticmethod
    def from_any(s) -> "GatherScatterMode":
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{s}"')


class GatherDimensionNumbers(NamedTuple):
    offset_dims: tuple = ()
    collapsed_slice_dims: tuple = ()
    start_index_map: tuple = ()
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


def default_fill_value(dtype):
    """JAX's fill for out-of-bounds FILL_OR_DROP gathers."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return np.nan
    if dtypes.issubdtype(dtype, np.signedinteger):
        return dtypes.iinfo(dtype).min
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return dtypes.iinfo(dtype).max
    return True


def _check_indices(name, indices):
    if not dtypes.is_int(indices.dtype):
        raise DTypeError(f"`{name}` indices must be integers, got {indices.str_short(True)}")
    if indices.ndim < 1:
        raise ShapeError(f"`{name}` indices need a last axis holding the index vector, got "
                         f"shape {indices.shape}")


def _sorted_unique(name, what, dims, bound):
    if list(dims) != sorted(set(dims)) or any(not 0 <= d < bound for d in dims):
        raise ShapeError(f"`{name}`: {what}={tuple(dims)} must be sorted, unique and "
                         f"in [0, {bound})")


def _starts(operand_shape, indices, index_map, op_batch, idx_batch):
    """Per operand dim, the window start of every batch position (int64 arrays of the
    indices' batch shape)."""
    bshape = indices.shape[:-1]
    starts = [np.zeros(bshape, np.int64) for _ in operand_shape]
    for k, d in enumerate(index_map):
        starts[d] = indices[..., k].astype(np.int64)
    for od, idim in zip(op_batch, idx_batch):
        shape = [1] * len(bshape)
        shape[idim] = bshape[idim]
        starts[od] = np.broadcast_to(np.arange(bshape[idim]).reshape(shape), bshape)
    return starts


def _window_index(starts, sizes, nb):
    """Full operand index arrays of shape batch + window for every operand dim."""
    nd = len(sizes)
    out = []
    for d, (s, z) in enumerate(zip(starts, sizes)):
        r = np.arange(z).reshape([1] * nb + [z if i == d else 1 for i in range(nd)])
        out.append(s.reshape(s.shape + (1,) * nd) + r)
    return out

# ------------------------------------------------------------------------- gather


gather_p = core.new_primitive("gather")


def _gather_ae(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted=False,
               unique_indices=False, mode=None, fill_value=None):
    dn = dimension_numbers
    _check_indices("gather", indices)
    nb = indices.ndim - 1
    if len(slice_sizes) != operand.ndim:
        raise ShapeError(f"gather: slice_sizes {tuple(slice_sizes)} must have one entry per "
                         f"operand dimension ({operand.shape})")
    for d, (z, n) in enumerate(zip(slice_sizes, operand.shape)):
        if not 0 <= z <= n:
            raise ShapeError(f"gather: slice size {z} is out of bounds for dimension {d} of "
                             f"operand shape {operand.shape}")
    if len(dn.start_index_map) != indices.shape[-1]:
        raise ShapeError(f"gather: start_index_map {tuple(dn.start_index_map)} needs an index "
                         f"vector of length {len(dn.start_index_map)}, indices have shape "
                         f"{indices.shape}")
    if len(set(dn.start_index_map)) != len(dn.start_index_map) or any(
            not 0 <= d < operand.ndim for d in dn.start_index_map):
        raise ShapeError(f"gather: bad start_index_map {tuple(dn.start_index_map)}")
    _sorted_unique("gather", "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim)
    _sorted_unique("gather", "operand_batching_dims", dn.operand_batching_dims, operand.ndim)
    for d in dn.collapsed_slice_dims:
        if slice_sizes[d] != 1:
            raise ShapeError(f"gather: collapsed dimension {d} needs slice size 1, "
                             f"got {slice_sizes[d]}")
    for d in dn.operand_batching_dims:  # 0 when the batch is empty (JAX's bound 0/1)
        if slice_sizes[d] > 1:
            raise ShapeError(f"gather: batching dimension {d} needs slice size 0 or 1, "
                             f"got {slice_sizes[d]}")
    if set(dn.collapsed_slice_dims) & set(dn.operand_batching_dims):
        raise ShapeError("gather: a dimension cannot be both collapsed and batching")
    if len(dn.operand_batching_dims) != len(dn.start_indices_batching_dims):
        raise ShapeError("gather: operand_batching_dims and start_indices_batching_dims differ "
                         "in length")
    for od, idim in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        if not 0 <= idim < nb or operand.shape[od] != indices.shape[idim]:
            raise ShapeError(f"gather: batching dimension {od} of operand {operand.shape} does "
                             f"not match dimension {idim} of indices {indices.shape}")
    window = [slice_sizes[d] for d in range(operand.ndim)
              if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    rank = nb + len(window)
    if len(dn.offset_dims) != len(window):
        raise ShapeError(f"gather: offset_dims {tuple(dn.offset_dims)} must have one entry per "
                         f"window dimension ({len(window)})")
    _sorted_unique("gather", "offset_dims", dn.offset_dims, rank)
    batch = iter(indices.shape[:-1])
    wins = iter(window)
    shape = [next(wins) if i in dn.offset_dims else next(batch) for i in range(rank)]
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted=False,
                 unique_indices=False, mode=None, fill_value=None):
    dn = dimension_numbers
    op, ind = np.asarray(operand), np.asarray(indices)
    mode = GatherScatterMode.from_any(mode)
    nb = ind.ndim - 1
    bshape = ind.shape[:-1]
    starts = _starts(op.shape, ind, dn.start_index_map, dn.operand_batching_dims,
                     dn.start_indices_batching_dims)
    ok = np.ones(bshape, bool)
    for d in dn.start_index_map:
        ok &= (starts[d] >= 0) & (starts[d] <= op.shape[d] - slice_sizes[d])
    starts = [np.clip(s, 0, n - z) for s, n, z in zip(starts, op.shape, slice_sizes)]
    g = op[tuple(_window_index(starts, slice_sizes, nb))]
    keep = [d for d in range(op.ndim)
            if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    g = g.reshape(bshape + tuple(slice_sizes[d] for d in keep))
    rank = nb + len(keep)
    bpos = [i for i in range(rank) if i not in dn.offset_dims]
    perm = [0] * rank
    for j, p in enumerate(bpos):
        perm[p] = j
    for j, p in enumerate(dn.offset_dims):
        perm[p] = nb + j
    out = np.transpose(g, perm)
    if mode == GatherScatterMode.FILL_OR_DROP:
        fv = default_fill_value(op.dtype) if fill_value is None else fill_value
        mshape = [bshape[bpos.index(i)] if i in bpos else 1 for i in range(rank)]
        out = np.where(ok.reshape(mshape), out, np.asarray(fv).astype(op.dtype))
    return np.array(out, dtype=op.dtype)


def _compare(ctx, x, y, direction, aval):
    ctype = "UNSIGNED" if dtypes.issubdtype(aval.dtype, np.unsignedinteger) else "SIGNED"
    return ctx.op1("stablehlo.compare", [x, y], aval.update(dtype=dtypes.bool_), attrs={
        "comparison_direction": f"#stablehlo<comparison_direction {direction}>",
        "compare_type": f"#stablehlo<comparison_type {ctype}>"})


def _gather_attr(dn, index_vector_dim):
    parts = [("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
             ("operand_batching_dims", dn.operand_batching_dims),
             ("start_indices_batching_dims", dn.start_indices_batching_dims),
             ("start_index_map", dn.start_index_map)]
    return _dims_attr("gather", parts, index_vector_dim)


def _dims_attr(kind, parts, index_vector_dim):
    """`#stablehlo.<kind><...>` from (field, dims) pairs; empty fields are left out."""
    body = [f"{k} = [{', '.join(str(int(d)) for d in v)}]" for k, v in parts if len(v)]
    body.append(f"index_vector_dim = {index_vector_dim}")
    return f"#stablehlo.{kind}<{', '.join(body)}>"


def _bool_attr(b):
    return "true" if b else "false"


def _upper_bounds(ctx, iaval, bounds):
    """A constant of the indices' shape holding `bounds` along the last axis."""
    hi = dtypes.iinfo(iaval.dtype).max
    vec = np.minimum(np.asarray(bounds, np.int64), hi).astype(iaval.dtype)
    c = ctx.constant(vec, iaval.update(shape=(len(bounds),)))
    return ctx.op1("stablehlo.broadcast_in_dim", [c], iaval,
                   {"broadcast_dimensions": ctx.i64([iaval.ndim - 1])})


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                     indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None):
    dn = dimension_numbers
    oaval, iaval = ctx.avals_in
    out = ctx.avals_out[0]
    mode = GatherScatterMode.from_any(mode)
    g = ctx.op1("stablehlo.gather", [operand, indices], attrs={
        "dimension_numbers": _gather_attr(dn, iaval.ndim - 1),
        "slice_sizes": ctx.i64(slice_sizes),
        "indices_are_sorted": _bool_attr(indices_are_sorted)})
    if mode != GatherScatterMode.FILL_OR_DROP or not dn.start_index_map:
        return g
    # FILL_OR_DROP: a window partly out of bounds gives fill_value (JAX's _gather_fill)
    bool_i = iaval.update(dtype=dtypes.bool_)
    zero = ctx.broadcast(ctx.constant(0, iaval.update(shape=())), iaval.update(shape=()), iaval)
    hi = _upper_bounds(ctx, iaval, [oaval.shape[d] - slice_sizes[d] for d in dn.start_index_map])
    ok = ctx.op1("stablehlo.and", [_compare(ctx, indices, zero, "GE", iaval),
                                   _compare(ctx, indices, hi, "LE", iaval)], bool_i)
    scalar_b = ShapedArray((), dtypes.bool_)
    body = ctx.region([scalar_b, scalar_b],
                      lambda a, b: [ctx.mb.op("stablehlo.and", [a, b], [scalar_b])[0]])
    ok = ctx.op1("stablehlo.reduce", [ok, ctx.constant(True, scalar_b)],
                 ShapedArray(iaval.shape[:-1], dtypes.bool_), regions=[body],
                 attrs={"dimensions": ctx.i64([iaval.ndim - 1])})
    bpos = [i for i in range(out.ndim) if i not in dn.offset_dims]
    ok = ctx.op1("stablehlo.broadcast_in_dim", [ok], out.update(dtype=dtypes.bool_),
                 {"broadcast_dimensions": ctx.i64(bpos)})
    fv = default_fill_value(out.dtype) if fill_value is None else fill_value
    fill = ctx.broadcast(ctx.constant(np.asarray(fv).astype(out.dtype), out.update(shape=())),
                         out.update(shape=()), out)
    return ctx.op1("stablehlo.select", [ok, g, fill])


def _gather_jvp(primals, tangents, **params):
    x, idx = primals
    out = bind(gather_p, x, idx, **params)
    if _is_zero(tangents[0]):
        return out, Zero(_aval(out))
    p = dict(params)
    if p.get("fill_value") is not None:
        p["fill_value"] = 0
    return out, bind(gather_p, tangents[0], idx, **p)


def _gather_transpose(ct, x, idx, *, dimension_numbers, slice_sizes, indices_are_sorted=False,
                      unique_indices=False, mode=None, fill_value=None):
    from .scatter import ScatterDimensionNumbers, _bind as _bind_scatter, scatter_add_p
    if _is_zero(ct):
        return [None, None]
    dn = dimension_numbers
    sdn = ScatterDimensionNumbers(
        update_window_dims=tuple(dn.offset_dims),
        inserted_window_dims=tuple(dn.collapsed_slice_dims),
        scatter_dims_to_operand_dims=tuple(dn.start_index_map),
        operand_batching_dims=tuple(dn.operand_batching_dims),
        scatter_indices_batching_dims=tuple(dn.start_indices_batching_dims))
    z = instantiate(Zero(x.aval))
    smode = mode if mode != GatherScatterMode.PROMISE_IN_BOUNDS else mode
    if smode == GatherScatterMode.CLIP:
        smode = GatherScatterMode.CLIP
    out = _bind_scatter(scatter_add_p, z, idx, ct, dimension_numbers=sdn,
               indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
               mode=smode, update_jaxpr=None, update_consts=())
    return [out, None]


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, **params):
    operand, indices = args
    od, idd = dims
    dn = dimension_numbers
    inc = lambda t: tuple(int(v) + 1 for v in t)  # noqa: E731
    if idd is None:
        operand = moveaxis(operand, od, 0)
        size = core.get_aval(operand).shape[0]
        dn2 = GatherDimensionNumbers(
            offset_dims=(0,) + inc(dn.offset_dims), collapsed_slice_dims=inc(dn.collapsed_slice_dims),
            start_index_map=inc(dn.start_index_map),
            operand_batching_dims=inc(dn.operand_batching_dims),
            start_indices_batching_dims=tuple(dn.start_indices_batching_dims))
        sizes = (size,) + tuple(slice_sizes)
    elif od is None:
        indices = moveaxis(indices, idd, 0)
        dn2 = GatherDimensionNumbers(
            offset_dims=inc(dn.offset_dims), collapsed_slice_dims=tuple(dn.collapsed_slice_dims),
            start_index_map=tuple(dn.start_index_map),
            operand_batching_dims=tuple(dn.operand_batching_dims),
            start_indices_batching_dims=inc(dn.start_indices_batching_dims))
        sizes = tuple(slice_sizes)
    else:
        operand, indices = moveaxis(operand, od, 0), moveaxis(indices, idd, 0)
        dn2 = GatherDimensionNumbers(
            offset_dims=inc(dn.offset_dims), collapsed_slice_dims=inc(dn.collapsed_slice_dims),
            start_index_map=inc(dn.start_index_map),
            operand_batching_dims=(0,) + inc(dn.operand_batching_dims),
            start_indices_batching_dims=(0,) + inc(dn.start_indices_batching_dims))
        # one slice per batch element, none when the batch is empty (as JAX)
        sizes = (min(core.get_aval(operand).shape[0], 1),) + tuple(slice_sizes)
    return bind(gather_p, operand, indices, dimension_numbers=dn2, slice_sizes=sizes,
                **params), 0


def _gather_source(gen, eqn):
    p = eqn.params
    kw = {k: gen.value(p[k]) for k in ("dimension_numbers", "slice_sizes")}
    for k in ("indices_are_sorted", "unique_indices"):
        if p.get(k):
            kw[k] = pyconst(True)
    kw["mode"] = gen.value(p["mode"])
    if p.get("fill_value") is not None:
        kw["fill_value"] = gen.value(p["fill_value"])
    return lax_call("gather", gen, eqn, **kw)


register(gather_p, impl=_gather_impl, abstract_eval=_gather_ae, lowering=_gather_lowering,
         jvp=_gather_jvp, transpose=_gather_transpose, batch=_gather_batch,
         source=_gather_source)


def _tuple(xs):
    return tuple(int(x) for x in xs)


def _operand(x):
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtypes.canonicalize(np.asarray(x).dtype))
    return x


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """`lax.gather`: windows of `operand` at `start_indices` (see the module doc for
    `mode`; `mode=None` is PROMISE_IN_BOUNDS, as in jax 0.10.2)."""
    dn = dimension_numbers
    dn = GatherDimensionNumbers(_tuple(dn.offset_dims), _tuple(dn.collapsed_slice_dims),
                                _tuple(dn.start_index_map),
                                _tuple(getattr(dn, "operand_batching_dims", ())),
                                _tuple(getattr(dn, "start_indices_batching_dims", ())))
    mode = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    operand = _operand(operand)
    if mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = default_fill_value(core.get_aval(operand).dtype)
    else:
        fill_value = None
    return bind(gather_p, operand, _operand(start_indices), dimension_numbers=dn,
                slice_sizes=_tuple(slice_sizes), indices_are_sorted=bool(indices_are_sorted),
                unique_indices=bool(unique_indices), mode=mode, fill_value=fill_value)
