"""`jax.experimental.colocated_python`: the import surface of JAX's colocated Python
(running a Python function on the CPU devices that sit beside accelerators, through
IFRT). orbax-checkpoint imports it at module level (its multihost dispatchers), so
`import orbax.checkpoint` needs the names; astjax does not run colocated programs.

`colocated_cpu_devices` maps CPU devices to themselves (a CPU device is its own
colocated CPU device, as in JAX); for any other device, and for calling a function or
class wrapped by `colocated_python` / `colocated_python_class`, a located
`NotImplementedInAstjaxError`."""
from __future__ import annotations

import functools

from astjax.errors import NotImplementedInAstjaxError
from astjax.sharding_impls import Mesh

from . import func, serialization  # noqa: F401  (JAX's submodules, imported by orbax)

__all__ = ["colocated_cpu_devices", "colocated_python", "colocated_python_class"]

_HINT = ("astjax runs no colocated Python programs: call the function directly on "
         "arrays put on CPU devices")


def colocated_cpu_devices(devices_or_mesh):
    """The CPU devices colocated with `devices_or_mesh` (a sequence of devices, or a
    Mesh: a Mesh of them). CPU devices are their own; others raise."""
    if isinstance(devices_or_mesh, Mesh):
        m = devices_or_mesh
        return Mesh(m.devices, m.axis_names, axis_types=m.axis_types) if all(
            d.platform == "cpu" for d in m.devices.flat) else _refuse("colocated_cpu_devices")
    devs = tuple(devices_or_mesh)
    if any(d.platform != "cpu" for d in devs):
        _refuse("colocated_cpu_devices of a non-CPU device")
    return devs


def colocated_python(fun):
    """JAX's decorator running `fun` as a colocated Python program: here, a wrapper
    whose call raises a located `NotImplementedInAstjaxError`."""
    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        _refuse(f"colocated_python({getattr(fun, '__name__', fun)!s:.40})")
    wrapper.specialize = lambda *a, **k: wrapper
    return wrapper


def colocated_python_class(cls):
    """JAX's class decorator (objects living in the colocated Python process): here,
    a class whose construction raises a located `NotImplementedInAstjaxError`."""
    def refuse(*args, **kwargs):
        _refuse(f"colocated_python_class({cls.__name__})")
    return type(cls.__name__, (), {"__init__": refuse, "__doc__": cls.__doc__,
                                   "__module__": cls.__module__})


def _refuse(what):
    raise NotImplementedInAstjaxError(f"{what}: jax.experimental.colocated_python is not "
                                      "implemented in astjax", hint=_HINT)
