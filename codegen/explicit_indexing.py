"""JAX's sharding rules of `gather` and `scatter` on a mesh of Explicit axes
(`codegen/explicit.py` runs them): the indexed operand dimensions unsharded or taken
whole, the indices unsharded but for batching dimensions; else JAX's "Use
`.at[...]...(out_sharding=)`" ShardingTypeError."""
from __future__ import annotations

from astjax import sharding_impls as shd

from .explicit_types import Typed

__all__ = ["gather_rule", "scatter_rule", "SCATTERS"]


def _err(msg):
    raise shd.ShardingTypeError(msg)


def _shaped(t, aval):
    """How JAX names an operand in its gather / scatter messages."""
    if t is None:
        t = Typed(aval, [None] * aval.ndim, None)
    return f"ShapedArray({t.str_short()})"


def gather_rule(ts, params, avals, out_aval):
    """JAX's gather rule: the indexed operand dimensions are unsharded or taken
    whole, the indices unsharded but for batching dimensions (which agree with the
    operand's); the result takes the operand's offset and the indices' other layouts."""
    op, ix = ts[0], ts[1]
    if op is None:
        return None
    dn, sizes = params["dimension_numbers"], params["slice_sizes"]
    ispec = list(ix.spec) if ix is not None else [None] * avals[1].ndim
    pairs = list(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    ok = (all(sizes[d] == op.aval.shape[d] or op.spec[d] is None for d in dn.start_index_map)
          and all(None in (ispec[i], op.spec[o]) or ispec[i] == op.spec[o] for o, i in pairs)
          and all(e is None for i, e in enumerate(ispec)
                  if i not in dn.start_indices_batching_dims))
    if not ok:
        _err("Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
             "indexing as out sharding could not be resolved unambiguously (or would require "
             f"collectives on inputs). Got operand={_shaped(op, avals[0])}, "
             f"indices={_shaped(ix, avals[1])}")
    for o, i in pairs:
        ispec[i] = ispec[i] or op.spec[o]
    window = iter(d for d in range(op.aval.ndim)
                  if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims)
    queries = iter(ispec)
    return [op.spec[next(window)] if d in dn.offset_dims else next(queries)
            for d in range(out_aval.ndim)]


def scatter_rule(ts, params, avals):
    """JAX's scatter rule, with the updates laid out as jnp's `.at[]` lays them out
    (the operand's layout on whole window dimensions, unsharded elsewhere): the
    operand unsharded where the updates go in part, the indices unsharded but for
    batching dimensions; the result has the operand's layout."""
    op, ix = ts[0], ts[1]
    if op is None:
        return None
    dn = params["dimension_numbers"]
    oshape, ishape, ushape = (a.shape for a in avals[:3])
    ispec = list(ix.spec) if ix is not None else [None] * len(ishape)
    owin = [d for d in range(len(oshape))
            if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    uspec = [None] * len(ushape)
    for u, o in zip(dn.update_window_dims, owin):
        if ushape[u] == oshape[o]:
            uspec[u] = op.spec[o]
    pairs = list(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims))
    ok = (all(op.spec[o] is None or ushape[u] == oshape[o]
              for u, o in zip(dn.update_window_dims, owin))
          and all(op.spec[d] is None for d in dn.inserted_window_dims)
          and all(None in (ispec[i], op.spec[o]) or ispec[i] == op.spec[o] for o, i in pairs)
          and all(e is None for i, e in enumerate(ispec)
                  if i not in dn.scatter_indices_batching_dims))
    if not ok:
        u = Typed(avals[2], uspec, op.mesh)
        _err("Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec "
             "for the scatter update as out sharding could not be resolved unambiguously (or "
             f"would require collectives on inputs). Got operand={_shaped(op, avals[0])}, "
             f"indices={_shaped(ix, avals[1])}, updates={_shaped(u, avals[2])}")
    out = list(op.spec)
    for o, i in pairs:
        out[o] = out[o] or ispec[i]
    return out


SCATTERS = frozenset({"scatter", "scatter-add", "scatter-mul", "scatter-min",
                       "scatter-max"})
