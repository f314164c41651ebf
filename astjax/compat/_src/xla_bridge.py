"""`jax._src.xla_bridge`: the process's backends, as libraries read them.

astjax has one PJRT client per process (`codegen.runtime.client`, made at the first
computation). `_backends` is JAX's dict of the backends made so far, keyed by platform:
empty before astjax's client exists, `{platform: client}` after (chex's
`set_n_cpu_devices` reads it to tell whether it is too late to set `XLA_FLAGS`);
`backends()` / `get_backend()` make the client if needed. The device and process
queries are astjax's own (`astjax.devices`, ...)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from astjax.codegen import runtime as _runtime
from astjax.devices_api import (_backend_devices, default_backend, device_count, devices,
                                local_device_count, local_devices, process_count, process_index)

__all__ = ["backends", "backends_are_initialized", "get_backend", "get_device_backend",
           "default_backend", "device_count", "devices", "local_device_count",
           "local_devices", "process_count", "process_index"]


def _made() -> dict:
    c = _runtime._client
    return {} if c is None else {_runtime.platform(): c}


class _Backends(Mapping):
    """JAX's `_backends`, read live: {} until astjax's client exists."""

    def __getitem__(self, platform):
        return _made()[platform]

    def __iter__(self):
        return iter(_made())

    def __len__(self):
        return len(_made())

    def __repr__(self):
        return repr(_made())


_backends = _Backends()


def backends() -> dict:
    """{platform: client} of the process (makes astjax's client if needed)."""
    _runtime.client()
    return _made()


def backends_are_initialized() -> bool:
    """Whether astjax's client exists already."""
    return _runtime._client is not None


def get_backend(platform: Any = None):
    """The client (for `platform`: astjax's one client serves its own platform only;
    another is JAX's RuntimeError, `devices(backend)`'s check)."""
    if platform is not None and not isinstance(platform, str):
        return platform   # a client given is itself (JAX's rule)
    c = _runtime.client()
    _backend_devices(c.local_devices(), platform)
    return c


def get_device_backend(device: Any = None):
    """The client of `device` (default: the process's)."""
    return device.client if device is not None else get_backend()
