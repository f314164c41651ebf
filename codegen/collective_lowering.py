"""StableHLO lowerings of the collective primitives (`astjax.primitives.collectives`)
for `pmap`: a program compiled with `mhlo.num_replicas = N` runs once per device,
and a collective over the pmap axis is a cross-replica op over replica group
[0 .. N-1] (replica i runs on the pmap's i-th device):

  psum / pmax / pmin -> stablehlo.all_reduce (add / max / min region)
  all_gather         -> stablehlo.all_gather
  ppermute           -> stablehlo.collective_permute
  all_to_all         -> stablehlo.all_to_all
  axis_index         -> stablehlo.replica_id

The named axes a module may use are set by `pmap_axes(...)` around
`stablehlo.lower_module`; a collective over any other name (a vmap axis is batched
away before lowering) is an AxisNameError at its source line.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

from astjax import core, dtypes
from astjax.core import ShapedArray
from astjax.errors import AxisNameError
from astjax.primitives import collectives as coll


class _Axes(threading.local):
    def __init__(self):
        self.frames: list = []   # (name, size)


_axes = _Axes()


@contextmanager
def pmap_axes(name, size):
    """Lower collectives over `name` as cross-replica ops over `size` replicas."""
    _axes.frames.append((name, int(size)))
    try:
        yield
    finally:
        _axes.frames.pop()


def _groups(axes, axis_index_groups=None):
    """replica_groups attribute text for a collective over `axes`."""
    names = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
    bound = dict(_axes.frames)
    for n in names:
        if n not in bound:
            raise AxisNameError(
                f"collective over axis {n!r}, which is not a pmap axis of this program"
                + (f" (pmap axes: {list(bound)})" if bound else ""))
    if len(names) != 1:
        raise AxisNameError(f"a collective over several pmap axes {names} is not supported")
    n = bound[names[0]]
    groups = ([list(g) for g in axis_index_groups] if axis_index_groups
              else [list(range(n))])
    k, m = len(groups), len(groups[0])
    body = ", ".join("[" + ", ".join(str(int(i)) for i in g) + "]" for g in groups)
    return f"dense<[{body}]> : tensor<{k}x{m}xi64>", m


def _reducer_op(kind, dtype):
    if dtype == dtypes.bool_:
        return {"sum": "stablehlo.or", "max": "stablehlo.or", "min": "stablehlo.and"}[kind]
    return {"sum": "stablehlo.add", "max": "stablehlo.maximum",
            "min": "stablehlo.minimum"}[kind]


def _all_reduce(kind):
    def rule(ctx, x, *, axes, axis_index_groups=None):
        groups, _ = _groups(axes, axis_index_groups)
        aval = ctx.avals_in[0]
        scalar = ShapedArray((), aval.dtype)
        op = _reducer_op(kind, aval.dtype)
        body = ctx.region([scalar, scalar], lambda a, b: [ctx.mb.op(op, [a, b], [scalar])[0]])
        return ctx.op1("stablehlo.all_reduce", [x], regions=[body],
                       attrs={"replica_groups": groups})
    return rule


def _axis_index(ctx, *, axis_name):
    _groups((axis_name,))
    rid = ctx.op1("stablehlo.replica_id", [], ShapedArray((), np.uint32))
    return ctx.op1("stablehlo.convert", [rid])


def _all_gather(ctx, x, *, all_gather_dimension, axis_name, axis_index_groups=None,
                axis_size, tiled=False):
    groups, _ = _groups((axis_name,) if not isinstance(axis_name, tuple) else axis_name,
                        axis_index_groups)
    aval = ctx.avals_in[0]
    d = all_gather_dimension
    if not tiled:  # gather along a new unit axis
        shape = list(aval.shape)
        shape.insert(d, 1)
        x = ctx.op1("stablehlo.reshape", [x], aval.update(shape=tuple(shape)))
    return ctx.op1("stablehlo.all_gather", [x],
                   attrs={"all_gather_dim": f"{d} : i64", "replica_groups": groups})


def _ppermute(ctx, x, *, axis_name, perm):
    _groups((axis_name,) if not isinstance(axis_name, tuple) else axis_name)
    out = ctx.avals_out[0]
    if not perm:
        return ctx.broadcast(ctx.constant(np.zeros((), out.dtype), out.update(shape=())),
                             out.update(shape=()), out)
    pairs = ", ".join(f"[{int(s)}, {int(t)}]" for s, t in perm)
    return ctx.op1("stablehlo.collective_permute", [x], attrs={
        "source_target_pairs": f"dense<[{pairs}]> : tensor<{len(perm)}x2xi64>"})


def _all_to_all(ctx, x, *, axis_name, split_axis, concat_axis, axis_size,
                axis_index_groups=None, tiled=False):
    groups, m = _groups((axis_name,) if not isinstance(axis_name, tuple) else axis_name,
                        axis_index_groups)
    return ctx.op1("stablehlo.all_to_all", [x], attrs={
        "split_dimension": f"{int(split_axis)} : i64",
        "concat_dimension": f"{int(concat_axis)} : i64",
        "split_count": f"{int(m)} : i64",
        "replica_groups": groups})


core.lowering_rules[coll.psum_p] = _all_reduce("sum")
core.lowering_rules[coll.pmax_p] = _all_reduce("max")
core.lowering_rules[coll.pmin_p] = _all_reduce("min")
core.lowering_rules[coll.axis_index_p] = _axis_index
core.lowering_rules[coll.all_gather_p] = _all_gather
core.lowering_rules[coll.ppermute_p] = _ppermute
core.lowering_rules[coll.all_to_all_p] = _all_to_all
for _p in coll.COLLECTIVES:
    core.unsupported["lowering"].pop(_p, None)
