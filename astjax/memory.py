"""`jax.memory`: the memory spaces an array can live in (`Space.Device`,
`Space.Host`, `Space.Any`), as `device_put` accepts them, and the memory kinds
(`'device'`, `'pinned_host'`, `'unpinned_host'`) a Sharding names.

On the CPU, as in JAX, a device addresses three memories: `device` (the default),
`pinned_host` and `unpinned_host`. An array in pinned host memory has the memory space
`Space.Host` in its type (`f32<host>[3]`, `ir.HostShapedArray`); one in unpinned host
memory keeps the device type and differs only in its sharding's `memory_kind`
(JAX's `mem_kind_to_space`). `device_put(x, memory.Space.Host)` is
`device_put(x, SingleDeviceSharding(device, memory_kind='pinned_host'))`;
`Space.Any` -- a placeholder JAX's own `device_put` does not accept either -- is
refused; a memory kind the device does not have is JAX's ValueError. The arrays,
programs and lowering are `codegen/host_memory.py`.
"""
from __future__ import annotations

import enum

from .errors import ArgumentValueError, caller_location

__all__ = ["Space", "MemorySpace", "check_placeable", "check_memory_kinds",
           "kind_to_space", "space_to_kind", "MEMORY_KINDS"]


class MemorySpace(enum.Enum):
    """A memory space: `Device` (the accelerator's memory; on the CPU, host RAM
    used as device memory), `Host` (pinned host memory), `Any`."""
    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self):
        return f"MemorySpace.{self.name}"

    # members compare and hash by identity (an Enum hashes its name string)
    __hash__ = object.__hash__


Space = MemorySpace   # (JAX's public name for its MemorySpace enum)

MEMORY_KINDS = ("device", "pinned_host", "unpinned_host")   # what a CPU device addresses


def kind_to_space(kind: str | None) -> MemorySpace:
    """The memory space of an array in memory kind `kind` (JAX's rule: only pinned
    host memory is `Host` in the type)."""
    return MemorySpace.Host if kind == "pinned_host" else MemorySpace.Device


def space_to_kind(space: MemorySpace) -> str:
    """The memory kind `device_put` to memory space `space` puts an array in."""
    return "pinned_host" if space is MemorySpace.Host else "device"


def check_placeable(space: MemorySpace) -> str:
    """The memory kind `device_put(x, space)` places an array in; `Space.Any`: the
    located error."""
    if space is Space.Any:
        raise ArgumentValueError(f"device_put cannot place an array in {space!r}",
                                 hint="use memory.Space.Device or memory.Space.Host",
                                 loc=caller_location())
    return space_to_kind(space)


def check_memory_kinds(shardings, platform="cpu") -> None:
    """Raise JAX's ValueError for a sharding among `shardings` whose `memory_kind`
    the device does not address (on the CPU: device, pinned_host, unpinned_host)."""
    for s in shardings:
        kind = getattr(s, "memory_kind", None)
        if kind is not None and kind not in MEMORY_KINDS:
            raise ArgumentValueError(
                f"Could not find memory addressable by device {platform}. Device {platform} "
                f"can address the following memory kinds: {', '.join(MEMORY_KINDS)}. "
                f"Got memory kind: {kind}", loc=caller_location())
