"""Ragged (grouped) matrix products: `lax.ragged_dot`, `lax.ragged_dot_general` and
`RaggedDotDimensionNumbers`.

One lhs dimension is *ragged*: split into consecutive groups of `group_sizes` rows.
Its kind picks one of JAX's three modes:

1. non-contracting (`[m, k] x [g, k, n] -> [m, n]`): rows of group i are multiplied
   by the rhs slice i of its group dimension;
2. contracting (`[m, k] x [k, n] -> [g, m, n]`): group i contracts only its own
   stretch of k, one result per group;
3. batch: an ordinary batched product.

Computed as CPU JAX computes it: the ragged operand is expanded to a dense
`[g, ...]` array in which each copy keeps only its group's entries (zeros
elsewhere), then contracted by `dot_general`. Derivatives and batching follow
from those primitives.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from . import core, dtypes
from .errors import ArgumentTypeError, NotImplementedInAstjaxError
from .primitives import ops as lax

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Where the ragged and group dimensions are: `dot_dimension_numbers` as for
    `dot_general` (((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))),
    the one `lhs_ragged_dimensions` entry and the rhs group dimension (one in the
    non-contracting mode, none otherwise)."""

    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers",
                           tuple(tuple(tuple(int(d) for d in s) for s in pair)
                                 for pair in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def _others(rank, *taken):
    used = {d for group in taken for d in group}
    return [d for d in range(rank) if d not in used]


def _mode(rank, dn):
    """('noncontracting' | 'contracting' | 'batch', ragged dim) of the lhs."""
    if len(dn.lhs_ragged_dimensions) != 1:
        raise ArgumentTypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    ragged = dn.lhs_ragged_dimensions[0]
    if not 0 <= ragged < rank:
        raise ArgumentTypeError(f"ragged_dot_general requires lhs ragged dimension numbers to be "
                                f"nonnegative and less than the number of axes of the lhs "
                                f"value, got {ragged} for lhs of rank {rank}.")
    (contract, _), (batch, _) = dn.dot_dimension_numbers
    if ragged in contract:
        return "contracting", ragged
    if ragged in batch:
        return "batch", ragged
    return "noncontracting", ragged


def _prefix(mode, rank, ragged, batch, contract):
    """The dims of an operand that `group_sizes` carries before its group axis."""
    batch, contract = list(batch), list(contract)
    if mode == "noncontracting":
        free = _others(rank, batch, contract)
        return batch + free[:free.index(ragged)]
    if mode == "contracting":
        return batch + contract[:contract.index(ragged)]
    return batch[:batch.index(ragged)]


def _expand(x, sizes, ragged, prefix):
    """`x` as `[g, *x.shape]`: copy i keeps the entries of group i along `ragged`
    (group i spans [sum(sizes[..., :i]), sum(sizes[..., :i+1])), per prefix index)."""
    shape = core.get_aval(x).shape
    full = (core.get_aval(sizes).shape[-1],) + shape
    ends = lax.cumsum(sizes, axis=core.get_aval(sizes).ndim - 1)
    starts = lax.sub(ends, sizes)
    order = sorted(range(len(prefix)), key=lambda i: prefix[i])
    perm = [len(prefix)] + order  # group axis first, then prefix dims ascending
    dims = (0,) + tuple(1 + prefix[i] for i in order)
    ends, starts = (lax.broadcast_in_dim(lax.transpose(v, perm), full, dims)
                    for v in (ends, starts))
    pos = lax.broadcasted_iota(core.get_aval(sizes).dtype, full, ragged + 1)
    keep = lax.bitwise_and(lax.le(starts, pos), lax.lt(pos, ends))
    wide = lax.broadcast_in_dim(x, full, tuple(range(1, len(full))))
    return lax.select(keep, wide, lax.full_like(wide, 0))


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """`lax.ragged_dot_general`: a `dot_general` with one ragged lhs dimension (see
    the module docstring for the three modes); `group_sizes` is `[g]` or carries
    the lhs prefix dimensions before `g`. The contracting mode adds a leading
    axis of size g to the result."""
    dn = ragged_dot_dimension_numbers
    if group_offset is not None:
        raise NotImplementedInAstjaxError(
            "Unimplemented group_offset support.", hint="as in JAX on CPU; slice "
                                                        "group_sizes to the groups you need")
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    gs = np.asarray(group_sizes) if isinstance(group_sizes, (list, tuple)) else group_sizes
    ga = core.get_aval(gs)
    if not dtypes.issubdtype(ga.dtype, np.integer):
        raise ArgumentTypeError("ragged_dot_general requires that group_sizes.dtype is "
                                "subtype of np.integer.")
    if ga.ndim == 0:
        raise ArgumentTypeError("expected rank of group_sizes to be >=1.")
    mode, ragged = _mode(la.ndim, dn)
    (l_con, r_con), (l_bat, r_bat) = dn.dot_dimension_numbers
    l_pre = _prefix(mode, la.ndim, ragged, l_bat, l_con)
    g = ga.shape[-1]
    if ga.ndim == 1:
        gs = lax.broadcast(gs, [la.shape[d] for d in l_pre])
    elif ga.shape != tuple(la.shape[d] for d in l_pre) + (g,):
        raise ArgumentTypeError(f"expected group_sizes to have shape "
                                f"{tuple(la.shape[d] for d in l_pre) + (g,)}, got {ga.shape}.")
    dot = dict(precision=precision, preferred_element_type=preferred_element_type)
    up = lambda dims: [d + 1 for d in dims]  # noqa: E731  (past the new group axis)
    if mode == "batch":
        if dn.rhs_group_dimensions:
            raise ArgumentTypeError("ragged_dot_general requires zero group dimensions in the "
                                    "rhs when lhs ragged dimension is contracting or batch.")
        return lax.dot_general(lhs, rhs, dn.dot_dimension_numbers, **dot)
    if mode == "noncontracting":
        if len(dn.rhs_group_dimensions) != 1:
            raise ArgumentTypeError("ragged_dot_general requires exactly one rhs group "
                                    "dimension when lhs ragged dimension is noncontracting.")
        r_grp = dn.rhs_group_dimensions[0]
        if not 0 <= r_grp < ra.ndim or r_grp in r_bat or r_grp in r_con:
            raise ArgumentTypeError(f"ragged_dot_general: rhs group dimension {r_grp} must be "
                                    "an axis of rhs distinct from its contracting and batch "
                                    "dimensions.")
        if ra.shape[r_grp] != g:
            raise ArgumentTypeError(f"expected rhs group dimension size to be {g}, got "
                                    f"{ra.shape[r_grp]}.")
        dense = _expand(lhs, gs, ragged, l_pre)
        return lax.dot_general(dense, rhs, ((up(l_con) + [0], list(r_con) + [r_grp]),
                                            (up(l_bat), list(r_bat))), **dot)
    if dn.rhs_group_dimensions:
        raise ArgumentTypeError("ragged_dot_general requires zero group dimensions in the rhs "
                                "when lhs ragged dimension is contracting or batch.")
    r_ragged = r_con[list(l_con).index(ragged)]
    r_pre = _prefix(mode, ra.ndim, r_ragged, r_bat, r_con)
    return lax.dot_general(_expand(lhs, gs, ragged, l_pre), _expand(rhs, gs, r_ragged, r_pre),
                           ((up(l_con), up(r_con)), ([0] + up(l_bat), [0] + up(r_bat))), **dot)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """`lax.ragged_dot`: `[m, k] x [g, k, n] -> [m, n]`, rows of group i (consecutive,
    `group_sizes[i]` of them) multiplied by `rhs[i]`; rows past the last group give
    zeros."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision=precision,
                              preferred_element_type=preferred_element_type,
                              group_offset=group_offset, out_sharding=out_sharding)
