"""`AxisType`, how each axis of a mesh is partitioned, and the queries JAX's meshes
answer about their axes' types (`are_all_axes_explicit`, `auto_axes`, ...), shared by
`sharding_impls.Mesh` and `AbstractMesh` (flax's `core.spmd` asks them before it lays
a variable out: `reshard` on an all-Explicit mesh, `with_sharding_constraint` on an
all-Auto one). Layer L0; `sharding_impls` re-exports `AxisType`."""
from __future__ import annotations

import enum

__all__ = ["AxisType", "AxisTypeQueries"]


class AxisType(enum.Enum):
    """How a mesh axis is partitioned: by XLA (`Auto`), visibly in types
    (`Explicit`), or by hand inside `shard_map` (`Manual`)."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


class AxisTypeQueries:
    """JAX's queries of a mesh's `axis_types` (with `axis_names`): each `are_all_*` is
    False for a mesh without axes, as JAX's; `*_axes` name the axes of one type."""

    def _all(self, t):
        return bool(self.axis_types) and all(a == t for a in self.axis_types)

    def _named(self, t):
        return tuple(n for n, a in zip(self.axis_names, self.axis_types) if a == t)

    are_all_axes_auto = property(lambda self: self._all(AxisType.Auto))
    are_all_axes_explicit = property(lambda self: self._all(AxisType.Explicit))
    are_all_axes_manual = property(lambda self: self._all(AxisType.Manual))
    auto_axes = property(lambda self: self._named(AxisType.Auto))
    explicit_axes = property(lambda self: self._named(AxisType.Explicit))
    manual_axes = property(lambda self: self._named(AxisType.Manual))
