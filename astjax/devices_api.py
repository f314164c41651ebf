"""The runtime entry points: `device_put` (to a device, a layout over a mesh, or a
memory space; inside a staged function JAX's `device_put_p`), `device_get`,
`block_until_ready`, the device and process queries (`devices`, `local_devices`,
`device_count`, `process_index`, ...), `make_mesh` and `default_backend`. `api`
re-exports them."""
from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np

from . import core, tree_util
from . import memory as _memory
from . import sharding_impls as _sharding
from .codegen import host_memory as _host_memory, runtime, sharded as _sharded
from .codegen.explicit_types import keep_type as _keep_type
from .errors import ArgumentValueError, caller_location
from .primitives import device_put as _dp
from .primitives.ops import _format_sharding

__all__ = ["device_put", "device_get", "block_until_ready", "devices", "local_devices",
           "device_count", "local_device_count", "process_index", "process_count",
           "make_mesh", "default_backend"]

_T = TypeVar("_T")


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: bool = False,
               may_alias: bool | None = None) -> Any:
    """Put every leaf of `x` on `device`: a Device from `astjax.devices()`, None for
    the default one, or a Sharding (`NamedSharding`: the leaf laid out over the
    mesh's devices, one buffer per device) -- one for every leaf, or a pytree of
    them matching `x`; or a `memory.Space` (the default device's memory, or its pinned
    host memory: `codegen/host_memory.py`, as a Sharding's `memory_kind` says too); or
    a `jax.experimental.layout.Format` of the default (row-major) layout: its sharding."""
    staged = core.current_builder() is not None
    if device is not None and not hasattr(device, "platform"):   # a Format: its sharding
        device = tree_util.tree_map(lambda s: _format_sharding(s, "device_put"), device,
                                    is_leaf=_is_layout)
    device = _host_memory.destination(device, staged)   # (a memory.Space)
    if device is not None and not hasattr(device, "platform") and not (
            staged and isinstance(device, (_memory.Space, _sharding.Sharding))):
        layouts = tree_util.tree_leaves(device, is_leaf=_is_layout)
        if layouts and all(_is_layout(s) for s in layouts):
            _memory.check_memory_kinds(layouts, runtime.platform())   # (memory.py)
            host = _host_memory.names_host(layouts, x)   # (a host memory kind)
            return (_host_memory if host else _sharded).put_tree(x, device, caller_location())
        raise ArgumentValueError(f"device_put only accepts None or a Device, got "
                                 f"{type(device).__name__} {device!r:.40}",
                                 hint="pick one from astjax.devices(), e.g. "
                                      "astjax.devices()[0]", loc=caller_location())
    # (a typed key array goes as its key data: flatten_for_staging's leaves)
    leaves, tree = tree_util.flatten_for_staging(x)
    if staged and leaves:   # staged: JAX's device_put_p
        n = len(leaves)
        sems = tuple(_dp.copy_semantics(donate, may_alias) for _ in leaves)
        srcs = (src if src is None or hasattr(src, "platform") else None,) * n
        return tree_util.tree_unflatten(tree, _dp.device_put_p.bind(
            *leaves, devices=(device,) * n, srcs=srcs, copy_semantics=sems))
    return tree_util.tree_unflatten(tree, [   # (an Explicit-typed array keeps its type)
        _keep_type(a, device, runtime.device_put) for a in leaves])


def _is_layout(s):
    return isinstance(s, (_sharding.Sharding, _sharding.PartitionSpec))


def _backend_devices(found, backend):
    """`found` (devices), or those of the platform `backend` names (a platform name
    or a Device's client); JAX's RuntimeError when there are none."""
    if backend is None:
        return found
    name = getattr(backend, "platform", backend)
    name = {"gpu": "cuda"}.get(name, name) if isinstance(name, str) else name
    out = [d for d in found if d.platform == name or (name == "cuda" and d.platform == "gpu")]
    if not out:
        raise RuntimeError(f"Unknown backend: '{backend}' requested, but no platforms that "
                           f"are instances of {backend} are present. Platforms present are: "
                           + ",".join(sorted({d.platform for d in found})))
    return out


def devices(backend: Any = None) -> list[runtime.Device]:
    """Every device of the job (all processes, `astjax.distributed`), or those of the
    platform `backend` (`'cpu'`, `'gpu'`, ...)."""
    return _backend_devices(runtime.global_devices(), backend)


def device_get(x: Any) -> Any:
    """Copy every array leaf of pytree `x` to the host: NumPy arrays (other leaves as
    they are)."""
    return runtime.device_get(x)


def block_until_ready(x: _T) -> _T:
    """Wait until every array leaf of pytree `x` is computed; return `x` itself."""
    return runtime.block_until_ready(x)


def local_devices(process_index: int | None = None,
                  backend: Any = None) -> list[runtime.Device]:
    """This process's devices (of the platform `backend` if given)."""
    found = runtime.devices() if process_index is None else [
        d for d in runtime.global_devices() if d.process_index == process_index]
    return _backend_devices(found, backend)


def device_count(backend: Any = None) -> int:
    """The number of devices of the job (all processes)."""
    return len(devices(backend))


def local_device_count(backend: Any = None) -> int:
    """The number of this process's devices."""
    return len(local_devices(backend=backend))


def process_index() -> int:
    """This process's index in a multi-process job (0 alone)."""
    return runtime.client().process_index()


def process_count() -> int:
    """The number of processes of the job."""
    return len({d.process_index for d in runtime.global_devices()})


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A `sharding.Mesh` of `axis_shapes` over the first devices of `devices` (default:
    all devices), its axes `Explicit` unless `axis_types` says otherwise (JAX 0.10's
    default)."""
    axis_shapes = tuple(int(s) for s in axis_shapes)
    if isinstance(axis_names, str):
        axis_names = (axis_names,)
    devices = list(runtime.global_devices() if devices is None else devices)
    size = math.prod(axis_shapes)
    if size > len(devices):
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                         f"mesh_shape {axis_shapes}")
    devices = devices[:size]
    if axis_types is None:
        axis_types = (_sharding.AxisType.Explicit,) * len(axis_shapes)
    grid = np.empty(len(devices), dtype=object)
    grid[:] = devices
    return _sharding.Mesh(grid.reshape(axis_shapes), tuple(axis_names), axis_types)


def default_backend() -> str:
    """Name of the platform of the default device (e.g. ``"cpu"``).

    Example:
        >>> import astjax
        >>> astjax.default_backend()
        'cpu'
    """
    return runtime.default_device().platform
