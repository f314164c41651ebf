"""`jax.shard_map`, the public face of the `shard_map` primitive
(`primitives/spmd.py`), with what needs layouts known only above the primitive
layer: on a mesh whose axes are all **Explicit** (`jax.make_mesh`'s default) an
argument's layout is part of its type (`codegen/explicit.py`), so, as in JAX,

- `in_specs` must match each argument's layout (JAX's ValueError otherwise: an
  argument laid out as `P('x', 'y')` given `in_specs=P('x')`, or a host array,
  whose type shards nothing, given a sharded spec); `jax.reshard` the argument
  first to change its layout;
- without `in_specs` they are read from the arguments' types, staged values
  inside `jit` included.

A staged value whose layout the rules do not know is not checked (no check can
fail on it wrongly). Auto meshes and partially manual maps (`axis_names`) are
not checked, as in JAX. The older `jax.experimental.shard_map.shard_map`
(`compat/experimental/shard_map.py`) reaches the same function.
"""
from __future__ import annotations

from .codegen import explicit
from .primitives import spmd

__all__ = ["shard_map"]


def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """`jax.shard_map(f, mesh=, in_specs=, out_specs=, axis_names=, check_vma=)`: run
    `f` once per device of `mesh` on that device's shard of each argument, the mesh
    axes bound as named axes for the collectives; on an Explicit mesh the arguments'
    layouts must be their in_specs (see the module docstring)."""
    return spmd.shard_map(f, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                          axis_names=axis_names, check_vma=check_vma,
                          layout_of=explicit.layout_of)
