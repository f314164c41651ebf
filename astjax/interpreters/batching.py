"""`astjax.interpreters.batching` (JAX's `jax.interpreters.batching`): the batching
rule tables, with JAX's signatures:

- `primitive_batchers[p] = rule(args, dims, **params) -> (out, out_dim)`, where a
  dim is an int or `not_mapped` (None);
- `fancy_primitive_batchers[p] = rule(axis_data, args, dims, **params)`, also given
  the mapped axis' `AxisData` (`name`, `size`);
- `axis_primitive_batchers[p] = rule(axis_size, axis_name, trace_type, args, dims,
  **params)`: JAX 0.10.2's backwards-compatible form of the same (`trace_type` None),
  which equinox's `create_vprim` registers.
"""
from __future__ import annotations

import dataclasses

from .. import core, lax
from ..transforms.batching import register_vmappable, unregister_vmappable  # noqa: F401
from ._views import RuleView

__all__ = ["primitive_batchers", "axis_primitive_batchers", "fancy_primitive_batchers",
           "not_mapped", "AxisData",
           "moveaxis", "bdim_at_front", "broadcast", "register_vmappable",
           "unregister_vmappable"]

not_mapped = None

primitive_batchers = RuleView("batch")


@dataclasses.dataclass(frozen=True)
class AxisData:
    """The mapped axis a batching rule runs under."""
    name: object
    size: int
    spmd_name: object = None
    explicit_mesh_axis: object = None


def _axis_size(args, dims):
    for a, d in zip(args, dims):
        if d is not not_mapped:
            return core.get_aval(a).shape[d]
    raise ValueError("a batching rule ran with no mapped operand")


class _AxisRules(RuleView):
    """Rules that also take the axis (an `AxisData`; with `legacy`, its size and name
    and a trace type, JAX's older signature): stored as ordinary batch rules that
    pass it."""

    def __init__(self, kind, legacy=False):
        super().__init__(kind)
        self.legacy = legacy

    def __setitem__(self, p, rule):
        legacy = self.legacy

        def batch(args, dims, **params):
            axis = AxisData(core.innermost_axis_name(), _axis_size(args, dims))
            if legacy:
                return rule(axis.size, axis.name, None, args, dims, **params)
            return rule(axis, args, dims, **params)
        batch.axis_rule, batch.legacy = rule, legacy
        super().__setitem__(p, batch)

    def __getitem__(self, p):
        r = super().__getitem__(p)
        if getattr(r, "legacy", None) is not self.legacy:
            raise KeyError(p)
        return r.axis_rule


fancy_primitive_batchers = _AxisRules("batch")
axis_primitive_batchers = _AxisRules("batch", legacy=True)


def moveaxis(x, src, dst):
    """`x` with dimension `src` moved to `dst` (None: `x` unchanged)."""
    if src is not_mapped or src == dst:
        return x
    nd = core.get_aval(x).ndim
    src, dst = src % nd, dst % nd
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def bdim_at_front(x, bdim, size):
    """`x` with its batch dimension first (broadcast to `size` if unmapped)."""
    if bdim is not_mapped:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


def broadcast(x, size, axis):
    """`x` with a new dimension of `size` at `axis`."""
    aval = core.get_aval(x)
    shape = aval.shape[:axis] + (size,) + aval.shape[axis:]
    dims = tuple(i for i in range(len(shape)) if i != axis)
    return lax.broadcast_in_dim(x, shape, dims)
