"""`jax.experimental.colocated_python`: Python functions and objects run on the CPU
devices that sit beside a program's devices. With CPU devices only, the colocated
Python is this process, so a colocated function is called here on its (CPU-resident)
arguments and a colocated class is instantiated here, as JAX 0.10.2's single-process
CPU runtime runs them (results are arrays on the arguments' devices). Arguments must
be arrays (JAX reads each leaf's dtype); a device that is not a CPU is a located
`NotImplementedInAstjaxError` (no accelerator process to sit beside). orbax-checkpoint
imports this package and its `func` / `serialization` modules at module level."""
from __future__ import annotations

import functools

from astjax import tree_util as _tree_util
from astjax.errors import NotImplementedInAstjaxError as _NotImplementedInAstjaxError
from astjax.sharding_impls import Mesh as _Mesh

from . import func, serialization  # noqa: F401  (JAX's submodules, imported by orbax)

__all__ = ["colocated_cpu_devices", "colocated_python", "colocated_python_class"]

_HINT = ("astjax runs no colocated Python programs: call the function directly on "
         "arrays put on CPU devices")


def colocated_cpu_devices(devices_or_mesh):
    """The CPU devices colocated with `devices_or_mesh` (a sequence of devices, or a
    Mesh: a Mesh of them). CPU devices are their own; others raise."""
    if isinstance(devices_or_mesh, _Mesh):
        m = devices_or_mesh
        return _Mesh(m.devices, m.axis_names, axis_types=m.axis_types) if all(
            d.platform == "cpu" for d in m.devices.flat) else _refuse("colocated_cpu_devices")
    devs = tuple(devices_or_mesh)
    if any(d.platform != "cpu" for d in devs):
        _refuse("colocated_cpu_devices of a non-CPU device")
    return devs


def colocated_python(fun):
    """JAX's decorator running `fun` as a colocated Python program: a callable that
    runs `fun` here on its array arguments (on CPU devices), with JAX's `specialize`."""
    return _Colocated(fun, None)


class _Colocated:
    """A colocated function (JAX's specialized callable), optionally bound to devices."""

    def __init__(self, fun, devices):
        self.fun, self.devices = fun, devices
        functools.update_wrapper(self, fun)

    def specialize(self, in_specs=None, out_specs_fn=None, devices=None):
        """The function specialized to input specs / output specs / devices: the specs
        only describe what a call will see, so only `devices` is kept."""
        return _Colocated(self.fun, tuple(devices) if devices is not None else self.devices)

    def __call__(self, *args, **kwargs):
        devs = set(self.devices or ())
        for leaf in _tree_util.tree_leaves((args, kwargs)):
            if not hasattr(leaf, "dtype"):   # JAX reads every argument leaf's dtype
                raise AttributeError(f"'{type(leaf).__name__}' object has no attribute "
                                     "'dtype'")
            devs.update(getattr(leaf, "devices", lambda: ())())
        if any(d.platform != "cpu" for d in devs):
            _refuse("colocated_python of a function on a non-CPU device")
        return self.fun(*args, **kwargs)


def colocated_python_class(cls):
    """JAX's class decorator (objects living in the colocated Python process): the
    colocated process is this one, so the class is used as it is."""
    return cls


def _refuse(what):
    raise _NotImplementedInAstjaxError(f"{what}: jax.experimental.colocated_python is not "
                                      "implemented in astjax", hint=_HINT)
