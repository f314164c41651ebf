"""`jax.memory`: the memory spaces an array can live in (`Space.Device`,
`Space.Host`, `Space.Any`), as `device_put` accepts them.

`device_put(x, memory.Space.Device)` puts `x` in the default device's memory
(committed, as JAX's). astjax's arrays live in device memory only: there is no
pinned-host array kind (JAX's `float32<host>[3]`, whose results stay on the host), so
`Space.Host` -- and a Sharding whose `memory_kind` is 'pinned_host' or
'unpinned_host' -- is refused with a located error naming the alternative, rather
than placed in device memory under a layout that says otherwise; a memory kind the
device does not have is JAX's ValueError; and `Space.Any` -- a placeholder JAX's own
`device_put` does not accept either -- is refused too.
"""
from __future__ import annotations

import enum

from .errors import NotImplementedInAstjaxError, ArgumentValueError, caller_location

__all__ = ["Space", "MemorySpace", "check_placeable", "check_memory_kinds"]


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


def check_placeable(space: MemorySpace) -> None:
    """Raise the located error for a space `device_put` cannot place arrays in."""
    if space is Space.Host:
        raise NotImplementedInAstjaxError(
            "device_put to memory.Space.Host: astjax arrays live in device memory only "
            "(no pinned-host arrays)", hint="use memory.Space.Device or a Device; on the "
            "CPU, device memory is host RAM already", loc=caller_location())
    if space is not Space.Device:
        raise ArgumentValueError(f"device_put cannot place an array in {space!r}",
                                 hint="use memory.Space.Device", loc=caller_location())


_HOST_KINDS = ("pinned_host", "unpinned_host")


def check_memory_kinds(shardings, platform="cpu") -> None:
    """Raise for a sharding among `shardings` (pytree leaves) whose `memory_kind` is
    not device memory: host kinds are refused (see the module docstring), others are
    JAX's ValueError (on the CPU, JAX's devices address device, pinned_host and
    unpinned_host memory)."""
    for s in shardings:
        kind = getattr(s, "memory_kind", None)
        if kind is None or kind == "device":
            continue
        if kind not in _HOST_KINDS:
            raise ArgumentValueError(
                f"Could not find memory addressable by device {platform}. Device {platform} "
                "can address the following memory kinds: device, pinned_host, "
                f"unpinned_host. Got memory kind: {kind}", loc=caller_location())
        raise NotImplementedInAstjaxError(
            f"device_put to memory kind {kind!r}: astjax arrays live in device memory only "
            "(no host-memory arrays)", hint="lay the array out with memory_kind='device' "
            "(on the CPU, device memory is host RAM already)", loc=caller_location())
