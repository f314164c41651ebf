"""`astjax.interpreters.pxla` (`jax.interpreters.pxla`): what programs still read from
JAX's legacy module of mesh-partitioned programs, each with JAX's deprecation warning
when used:

- `thread_resources`, whose `env.physical_mesh` is the mesh entered with `with mesh:`
  on this thread (an empty `Mesh()` outside one; `set_mesh` does not set it, as in JAX);
- XLA sharding helpers on `xla_client.HloSharding` (`jax.extend.sharding`):
  `is_hlo_sharding_replicated`, `are_hlo_shardings_equal`, `op_sharding_to_indices`
  (the slice of an array each device holds);
- the legacy `ArrayMapping` (mesh axis -> array dimension) and
  `array_mapping_to_axis_resources` (-> `PartitionSpec`); the type names `Index`,
  `MeshAxisName`.

jax 0.10.2 removed the pmap internals this module held (`ShardingSpec`,
`parallel_callable`, ...); astjax has none of them either, nor JAX's compiled-program
classes (`MeshComputation`, `MeshExecutable`, result handlers) or
`create_compile_options` (astjax's compile options live in its runtime).
"""
import collections
import itertools
from typing import Any, NamedTuple, Union

import numpy as np

from .. import sharding_impls as _shd
from ..extend.sharding import xla_client as _xc
from ..user_warnings import warn

__all__ = ["ResourceEnv", "thread_resources", "Index", "MeshAxisName", "ArrayMapping",
           "array_mapping_to_axis_resources", "is_hlo_sharding_replicated",
           "are_hlo_shardings_equal", "op_sharding_to_indices"]

Index = Union[int, slice, tuple[Union[int, slice], ...]]
MeshAxisName = Any
ArrayMapping = collections.OrderedDict[MeshAxisName, int]


def _deprecated(name):
    warn(f"jax.interpreters.pxla.{name} is deprecated as of JAX v0.8.2.", DeprecationWarning)


class ResourceEnv(NamedTuple):
    """The legacy resource environment: the physical mesh and its axes."""
    physical_mesh: _shd.Mesh

    @property
    def physical_resource_axes(self) -> set:
        """The mesh's axis names."""
        return set(self.physical_mesh.axis_names)

    @property
    def resource_axes(self) -> set:
        """The axis names resources are named by (the physical mesh's)."""
        return self.physical_resource_axes

    @property
    def shape(self):
        """The mesh's shape: axis name -> size."""
        return self.physical_mesh.shape


class _ThreadResources:
    """`thread_resources`: `env` is this thread's `ResourceEnv`."""

    @property
    def env(self) -> ResourceEnv:
        """The `ResourceEnv` of the innermost `with mesh:` of this thread."""
        warn("jax.interpreters.pxla.thread_resources is deprecated as of JAX v0.8.2. Please "
             "switch to using `with jax.set_mesh(mesh)` instead of `with mesh:` and then "
             "use `jax.sharding.get_abstract_mesh()` to get the current mesh.",
             DeprecationWarning)
        mesh = _shd.entered_mesh()
        return ResourceEnv(_shd.Mesh(np.empty((), object), ()) if mesh is None else mesh)


thread_resources = _ThreadResources()


def array_mapping_to_axis_resources(array_mapping):
    """The `PartitionSpec` of a legacy `ArrayMapping` {mesh axis: array dimension}:
    dimension d is split over the axes mapped to it, in the mapping's order."""
    _deprecated("array_mapping_to_axis_resources")
    by_dim = collections.defaultdict(list)
    for axis, dim in array_mapping.items():
        by_dim[dim].append(axis)
    entries = [None if not by_dim[d] else by_dim[d][0] if len(by_dim[d]) == 1
               else tuple(by_dim[d]) for d in range(max(by_dim, default=-1) + 1)]
    return _shd.PartitionSpec(*entries)


def _replicated(hs) -> bool:
    return hs.num_devices() == 1 or hs.is_replicated()


def is_hlo_sharding_replicated(hs) -> bool:
    """Whether every device holds the whole array under `hs` (one device counts)."""
    _deprecated("is_hlo_sharding_replicated")
    return _replicated(hs)


def are_hlo_shardings_equal(hs1, hs2) -> bool:
    """Whether two HloShardings lay an array out alike (any two replicated ones do)."""
    _deprecated("are_hlo_shardings_equal")
    return hs1 is hs2 or (_replicated(hs1) and _replicated(hs2)) or hs1 == hs2


def _tiles_and_copies(hs):
    """(shards per array dimension, copies of each shard) of a tiled HloSharding."""
    if hs.is_manual():
        raise NotImplementedError(f"op_sharding_to_indices of a manual sharding: {hs}")
    if hs.is_replicated() or hs.is_unreduced():
        return [], 1
    dims = list(hs.tile_assignment_dimensions())
    kinds = list(hs.subgroup_types())
    T = _xc.OpSharding.Type
    if kinds == [T.UNREDUCED]:
        return dims[:-1], 1
    if sorted(kinds) == sorted([T.REPLICATED, T.UNREDUCED]):
        return dims[:-2], dims[len(dims) - 2 + kinds.index(T.REPLICATED)]
    if kinds == [T.REPLICATED] or hs.replicate_on_last_tile_dim():
        return dims[:-1], dims[-1]
    if kinds:
        raise NotImplementedError(f"Unhandled OpSharding type: {hs}")
    return dims, 1


def op_sharding_to_indices(op_sharding, shape, num_devices):
    """The index (a tuple of slices) of the part of an array of `shape` each of the
    `num_devices` devices holds under the HloSharding `op_sharding`, by device."""
    _deprecated("op_sharding_to_indices")
    if _replicated(op_sharding):
        return ((slice(None),) * len(shape),) * num_devices
    if num_devices != op_sharding.num_devices():
        raise ValueError(f"op_sharding_to_indices: {op_sharding} is over "
                         f"{op_sharding.num_devices()} devices, not {num_devices}")
    tiles, copies = _tiles_and_copies(op_sharding)
    if len(tiles) != len(shape):
        raise ValueError(f"op_sharding_to_indices: {op_sharding} tiles {len(tiles)} "
                         f"dimensions, the shape {tuple(shape)} has {len(shape)}")
    per_dim = []
    for size, n in zip(shape, tiles):
        if size % n:
            raise ValueError(f"op_sharding_to_indices: dimension {size} does not split "
                             f"into {n} shards")
        step = size // n
        per_dim.append([slice(None)] if n == 1 else
                       [slice(i * step, (i + 1) * step) for i in range(n)])
    out = [None] * num_devices
    devices = iter(op_sharding.tile_assignment_devices())
    for index in itertools.product(*per_dim):
        for _ in range(copies):
            out[next(devices)] = index
    return tuple(out)
