"""`astjax.interpreters.pxla` (`jax.interpreters.pxla`): what programs still read from
JAX's legacy module of mesh-partitioned programs -- `thread_resources`, whose
`env.physical_mesh` is the mesh entered with `with mesh:` on this thread (an empty
`Mesh()` outside one; `set_mesh` does not set it, as in JAX), read through JAX's
deprecation warning. jax 0.10.2 removed the pmap internals this module held
(`ShardingSpec`, `parallel_callable`, ...); astjax has none of them either.
"""
from typing import NamedTuple

import numpy as np

from .. import sharding_impls as _shd
from ..user_warnings import warn

__all__ = ["ResourceEnv", "thread_resources"]


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
