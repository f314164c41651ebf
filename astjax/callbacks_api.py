"""`pure_callback` and `io_callback`: call a Python function (on host Arrays) from
inside a staged program. Outside any transformation the function simply runs."""
from __future__ import annotations

import traceback

import numpy as np

from . import core, dtypes, tree_util
from .codegen import runtime, sharded
from .codegen.runtime import device_put
from .errors import ArgumentTypeError, JaxRuntimeError
from .ir import ShapedArray
from .sharding_impls import NamedSharding, PartitionSpec, context_mesh, context_meshes
from .primitives import effects
from .primitives.callbacks import HostCall, io_callback_p, pure_callback_p

__all__ = ["pure_callback", "io_callback", "flat_host_call", "effects_barrier"]


def _result_avals(result_shape_dtypes):
    leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise ArgumentTypeError(
                f"result_shape_dtypes must be a pytree of objects with .shape and .dtype "
                f"(e.g. ShapeDtypeStruct), got {leaf!r}")
        avals.append(ShapedArray(leaf.shape, dtypes.canonicalize(leaf.dtype)))
    return avals, tree


def flat_host_call(callback, args, kwargs, result_avals, result_tree):
    """A `HostCall` running `callback(*args, **kwargs)` on the flat NumPy leaves of
    (args, kwargs) and returning the flat leaves of its result (checked against
    `result_tree` when one is given)."""
    leaves, in_tree = tree_util.flatten_for_staging((args, kwargs))

    def flat(*np_leaves):
        # (the callback sees arrays on the host's CPU device, as JAX's `device_put` of
        # its operands hands them over, not the NumPy values the runtime passes)
        a, k = tree_util.tree_unflatten(in_tree, [_on_host(x) for x in np_leaves])
        out = callback(*a, **k)
        if result_tree is None:
            return []
        out_leaves, out_tree = tree_util.flatten_for_staging(out)
        if out_tree != result_tree:
            raise TypeError(f"the callback returned a value of structure {out_tree}, "
                            f"where result_shape_dtypes has structure {result_tree}")
        return out_leaves
    return leaves, HostCall(flat, result_avals)


# (the one place `core.host_array` is set: docs/architecture.md's hooks)
core.host_array = lambda x: device_put(x, runtime.default_device())


def _on_host(x):
    """A callback operand as a device Array (a float0 one stays a NumPy array, as
    JAX's)."""
    if isinstance(x, np.ndarray) and x.dtype != dtypes.float0:
        return core.host_array(x)
    return x


def _callback(prim, callback, result_shape_dtypes, args, kwargs, **params):
    if not callable(callback):
        raise ArgumentTypeError(f"the callback must be callable, got {callback!r}")
    if result_shape_dtypes is None:
        avals, tree = [], None
    else:
        avals, tree = _result_avals(result_shape_dtypes)
    leaves, host = flat_host_call(callback, args, kwargs, avals, tree)
    if core.current_builder() is None:  # nothing staged: run it here
        if params.get("ordered"):   # (after the programs dispatched before: their token)
            effects.wait("io")
        outs = [_place(o, leaves) for o in _run_eagerly(host, leaves)]
    else:
        outs = prim.bind(*leaves, callback=host, **params)
    return None if tree is None else tree_util.tree_unflatten(tree, outs)


def _run_eagerly(host, leaves):
    """The callback run now, outside any transformation. JAX runs it as a one-operation
    program there too, so an exception it raises (or a result of the wrong shape)
    reaches the caller as XLA's JaxRuntimeError, its traceback in the message."""
    try:
        return host(*[np.asarray(x) for x in leaves])
    except Exception as e:   # noqa: BLE001  (any exception: XLA wraps each one)
        text = "".join(traceback.format_exception(e))
        raise JaxRuntimeError(f"INTERNAL: CpuCallback error calling callback: {text}") from e


def _place(value, operands):
    """An eager callback's result, where JAX's one-operation program on the operands'
    devices puts it: on the default device (uncommitted) when no operand is committed;
    on a committed operand's device; for one laid out over several devices (or under
    `set_mesh`, on its mesh's) in XLA's maximal layout (`GSPMDSharding`: the value on
    the first device, zeros on the others), over a one-device mesh replicated on it."""
    mesh = context_mesh() if context_meshes[0] else None
    if mesh is not None:
        return sharded.maximal_array(np.asarray(value), tuple(mesh.devices.flat))
    placed = next((x for x in operands if isinstance(x, (runtime.CommittedArray,
                                                          sharded.GlobalArray))), None)
    if placed is None:
        return device_put(value)
    if isinstance(placed, runtime.CommittedArray):
        return device_put(value, placed.device)
    if len(placed._devices) > 1:
        return sharded.maximal_array(np.asarray(value), placed._devices)
    return sharded.put(value, NamedSharding(placed.sharding.mesh, PartitionSpec()))


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """Call `callback(*args, **kwargs)` (host Arrays in, a pytree like
    `result_shape_dtypes` out) from staged code. It must have no side effects: it may
    be skipped when its result is unused, or called again. Under `vmap`,
    `vmap_method` says how to call it ('sequential', 'expand_dims', 'broadcast_all')."""
    return _callback(pure_callback_p, callback, result_shape_dtypes, args, kwargs,
                     vmap_method=vmap_method)


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """Call `callback(*args, **kwargs)` for its side effect (and its result, a pytree
    like `result_shape_dtypes`, or None) from staged code: never removed or merged."""
    return _callback(io_callback_p, callback, result_shape_dtypes, args, kwargs,
                     ordered=bool(ordered))


def effects_barrier():
    """Wait until every program dispatched so far has finished, so that the host
    callbacks (`io_callback`, `jax.debug.print`) they make have all run (JAX's
    `jax.effects_barrier`). Dispatch is asynchronous: a program's outputs are the
    arrays it has not yet finished writing, so waiting on every live array of the
    client waits on every pending program that returns something."""
    for arr in runtime.client().live_arrays():
        arr.block_until_ready()
