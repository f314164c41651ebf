"""Which devices a partitioned program (`codegen/spmd.py`) runs on, and which layouts
its results keep, as JAX decides them:

- `mesh_and_devices`: the mesh and device assignment its layouts name (a
  NamedSharding's mesh; several SingleDeviceShardings of one device: a one-device
  program, its results on that device); JAX's ValueError when they disagree;
- `check_placed` / `check_context_devices`: JAX's ValueError for an argument committed
  to other devices than the program's (or `set_mesh`'s), naming it; `check_types_placed`:
  for one on one device whose type names a mesh of several;
- `IncompatibleDevices` (that ValueError) and `RefusedEntry`: a signature staged for
  `jit(f).trace` whose devices disagree -- JAX refuses it at `.lower()`, not before;
- `kept_layouts`: JAX's recovery of the user's layout for results XLA lays out;
  `over_mesh`: an operand's layout over the mesh of a `reshard` XLA lays out.
"""
from __future__ import annotations

import inspect

from astjax import core, tree_util
from astjax import sharding_impls as shd
from astjax.errors import ArgumentValueError, caller_location, function_name
from astjax.primitives.shard_map import shard_map_p

from . import runtime, sharded
from .explicit_types import OneDeviceTyped, typed

__all__ = ["kept_layouts", "over_mesh", "mesh_and_devices", "check_placed", "check_types_placed",
           "check_context_devices", "incompatible_context", "leaf_names",
           "IncompatibleDevices", "RefusedEntry"]


class IncompatibleDevices(ArgumentValueError):
    """JAX's ValueError "Received incompatible devices for jitted computation": the
    layouts or committed arguments of one program name different devices."""


class RefusedEntry:
    """A `jit` signature staged (`jit(f).trace`: its `closed` jaxpr, `out_tree`,
    `in_avals`) whose devices disagree: as JAX, the error is raised when it is lowered,
    compiled or run (`text`, `compile`, `run`, ...), located there; never cached."""
    refused = True

    def __init__(self, closed, out_tree, error):
        self.closed, self.out_tree, self.in_tree = closed, out_tree, None
        self.in_avals = [v.aval for v in closed.jaxpr.invars]
        self._error = error

    def __getattr__(self, name):   # (`text`, `compile`, `run`, `for_platform`, ...)
        if name.startswith("__"):
            raise AttributeError(name)
        e = self._error
        raise type(e)(e.message, hint=e.hint, loc=caller_location())


def kept_layouts(jaxpr, ins, own, outs):
    """Per result of `jaxpr` whose layout XLA chooses (`outs` entry None): the layout
    JAX gives it instead when XLA's is equivalent -- the first laid-out argument's
    NamedSharding (`ins`), for a result of that argument's rank computed from a value
    on that mesh (JAX's types carry the mesh: an argument that is an array laid out
    over it, `own`, not one `in_shardings` lays out; a `shard_map` on it); else None.
    None when no argument has a NamedSharding first."""
    first = next((k for k, s in enumerate(ins) if s is not None), None)
    if first is None or type(ins[first]) is not shd.NamedSharding or \
            type(ins[first].mesh) is not shd.Mesh:
        return None
    orig = ins[first]
    mesh, ndim = orig.mesh.abstract_mesh, jaxpr.invars[first].aval.ndim
    on_mesh = {v for v, s in zip(jaxpr.invars, own) if isinstance(s, shd.NamedSharding)
               and s.mesh.abstract_mesh == mesh}
    for eqn in jaxpr.eqns:
        if "callback" in eqn.params:
            continue    # (a host callback: typed by result_shape_dtypes, no mesh)
        m = eqn.params.get("mesh") if eqn.primitive is shard_map_p else None
        if (m is not None and m.abstract_mesh == mesh) or any(
                isinstance(v, core.Var) and v in on_mesh for v in eqn.invars):
            on_mesh.update(eqn.outvars)
    return [orig if s is None and isinstance(v, core.Var) and v in on_mesh
            and v.aval.ndim == ndim else None for v, s in zip(jaxpr.outvars, outs)]


def over_mesh(layout, target):
    """An operand's `layout` seen over the mesh of layout `target` when both meshes
    are one (the same axes and devices, in order, of any axis types): what a `reshard`
    that leaves the layout to XLA (`is_partial`: over Auto axes) keeps, over its own
    mesh, as JAX's eager `reshard` runs on that mesh; else `layout`."""
    if not (isinstance(layout, shd.NamedSharding) and isinstance(target, shd.NamedSharding)
            and type(target.mesh) is shd.Mesh and layout.mesh.shape == target.mesh.shape
            and _assignment(layout) == _assignment(target)):
        return layout
    return shd.NamedSharding(target.mesh, layout.spec, memory_kind=layout.memory_kind)


def mesh_and_devices(shardings, loc=None):
    """(mesh, device assignment) of a program whose layouts name `shardings`: the
    first NamedSharding's mesh; every sharding must use the same devices."""
    named = [s for s in shardings if isinstance(s, shd.NamedSharding)]
    single = [s for s in shardings if isinstance(s, shd.SingleDeviceSharding)]
    if named:
        first, mesh = named[0], named[0].mesh
    elif single:   # (a one-device program: its results SingleDeviceShardings, as JAX's)
        first, mesh = single[0], None
    else:
        ctx = shd.get_mesh()
        if ctx.empty:
            return None, None
        first = shd.NamedSharding(ctx, shd.PartitionSpec())
        mesh = ctx
    devs = sharded.assignment_of(first)
    for s in shardings:     # (JAX compares device assignments: the same devices in
        # another order are another program)
        if s is not None and _assignment(s) != devs:
            raise IncompatibleDevices(
                "Received incompatible devices for jitted computation: the layouts "
                f"{first!r} and {s!r} use different devices",
                hint="put every argument on the same mesh", loc=loc)
    return mesh, devs


def check_placed(leaves, devs, name, loc, arg_names=None):
    """JAX's ValueError for arguments committed to devices other than the program's
    `devs` (a single-device array beside a sharded one, the same devices in another
    order), or, when `devs` is None, to devices other than the first such argument's:
    never moved silently. `arg_names` (a function giving the leaves' names, JAX's
    `leaf_names`) names them; else `args[i]`."""
    placed = [(i, x, _placed_on(x)) for i, x in enumerate(leaves)
              if isinstance(x, runtime.CommittedArray) or type(x) is sharded.GlobalArray]
    if devs is None and placed:
        devs = placed[0][2]
    bad = next((p for p in placed if p[2] != tuple(devs)), None)
    if bad is None:
        return
    first = next((p for p in placed if p[2] != bad[2]), None)

    names = arg_names() if arg_names is not None else []
    names = names if len(names) == len(leaves) else [f"args[{i}]" for i in range(len(leaves))]

    def arg(p):
        i, x, ds = p
        return (f"argument {names[i]} of {name} with shape {x.dtype.name}"
                f"[{','.join(map(str, x.shape))}] and with device ids {[d.id for d in ds]} "
                f"on platform {ds[0].platform.upper()}")
    pair = (f"{arg(first)} and {arg(bad)}" if first is not None and first[0] < bad[0] else
            f"{arg(bad)} and " + (arg(first) if first is not None else
                                  f"the program's layouts with device ids "
                                  f"{[d.id for d in devs]}"))
    raise IncompatibleDevices(f"Received incompatible devices for jitted computation. Got {pair}",
                             hint="device_put the arguments on the same devices", loc=loc)


def check_types_placed(leaves, loc):
    """JAX's ValueError for an argument `device_put` on one device that kept a type over
    a mesh of several (`explicit_types.OneDeviceTyped`): its one device is not the
    type's mesh."""
    for x in leaves:
        if type(x) is OneDeviceTyped:
            t = typed(x)
            raise ArgumentValueError(
                f"Length of device assignment 1 is not equal to the size of the mesh "
                f"{t.mesh.size} of aval {t.str_short(True, axis_types=True)}. Please enter "
                "your `jit` into a mesh context via `jax.set_mesh`.", loc=loc,
                hint="device_put it on the mesh (a NamedSharding) first")


def check_context_devices(mesh, fun, dyn_args, dyn_kwargs, leaves):
    """Under `set_mesh` (`mesh`, JAX's device context) `jit` runs on the mesh's
    devices: an argument committed to others is JAX's ValueError, naming it."""
    want = tuple(mesh.devices.flat)
    bad = next((i for i, x in enumerate(leaves) if (
        isinstance(x, runtime.CommittedArray) or type(x) is sharded.GlobalArray)
        and _placed_on(x) != want), None)
    if bad is None:
        return
    raise incompatible_context(mesh, fun, dyn_args, dyn_kwargs, leaves, bad,
                               list(_placed_on(leaves[bad])))


def _placed_on(x) -> tuple:
    """The device assignment of a committed array or a GlobalArray (in order)."""
    return (x.device,) if isinstance(x, runtime.CommittedArray) else tuple(x._devices)


def _assignment(s) -> tuple:
    """The device assignment of layout `s` (a GSPMDSharding's own order)."""
    return tuple(s._devices) if isinstance(s, sharded.GSPMDSharding) else \
        sharded.assignment_of(s)


def incompatible_context(mesh, fun, dyn_args, dyn_kwargs, leaves, i, devs):
    """JAX's ValueError for the argument leaf `leaves[i]` laid out on `devs`, which are
    not the devices of the context mesh `mesh`."""
    want, x = list(mesh.devices.flat), leaves[i]
    names = leaf_names(fun, dyn_args, dyn_kwargs)
    name = names[i] if len(names) == len(leaves) else f"args[{i}]"

    def where(ds):
        return f"with device ids {[d.id for d in ds]} on platform {ds[0].platform.upper()}"
    return ArgumentValueError(
        f"Received incompatible devices for jitted computation. Got argument {name} of "
        f"{function_name(fun)} with shape {x.dtype.name}"
        f"[{','.join(map(str, x.shape))}] and "
        f"{where(devs)} and jit's context mesh {where(want)}",
        hint="device_put the argument on the mesh (or leave it uncommitted), or call "
             "outside set_mesh", loc=caller_location())


def leaf_names(fun, dyn_args, dyn_kwargs):
    """JAX's names of the argument leaves: the parameter's name, then the leaf's
    path inside it (`x['a']`); keyword arguments sorted by keyword."""
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    if params and inspect.signature(fun).parameters[params[-1]].kind == \
            inspect.Parameter.VAR_POSITIONAL:   # (`*args`: JAX names `args[0]`, ...)
        star = params.pop()
        params += [f"{star}[{i}]" for i in range(len(dyn_args) - len(params))]
    named = [(params[i] if i < len(params) else f"args[{i}]", a)
             for i, a in enumerate(dyn_args)] + sorted(dyn_kwargs.items())
    return [n + tree_util.keystr(path) for n, a in named
            for path, _ in tree_util.tree_flatten_with_path(a)[0]]
