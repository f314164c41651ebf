"""Arrays in host memory, and the one-device programs that read and write them.

A CPU device addresses three memories (`astjax.memory`): `device`, `pinned_host` and
`unpinned_host`. An array in a host memory is a `HostMemoryArray`, a committed Array
whose jaxlib buffer was put there (its `.sharding.memory_kind` says which); one in
pinned host memory is typed `f32<host>[...]` (`ir.HostShapedArray`), one in unpinned
host memory keeps the device type, as in JAX.

A program whose arguments or results live in host memory (`jit` of such arrays,
`jit(in_shardings=/out_shardings=)` naming a memory kind, a `device_put` to a memory
kind inside, and every eager operation on a `HostMemoryArray`) is a `MemoryEntry`,
lowered as JAX 0.10.2 lowers it once some memory kind is not `device`:

- every argument whose layout is known (an `in_shardings` entry, or a committed
  Array) carries `mhlo.memory_kind` and a replicated `sdy.sharding` over the empty
  mesh; every result carries `mhlo.memory_kind`: its `out_shardings` entry's, else
  its type's (`pinned_host` for a `<host>` value, else `device`);
- a result with an `out_shardings` entry also carries that `sdy.sharding` and is
  placed by the `annotate_device_placement` custom call (`_xla_buffer_placement`);
- the executable's results are made in those memories (jaxlib result handlers of
  those memory kinds), committed to the device.

`in_shardings` naming another memory kind than an Array argument's is JAX's
ValueError. When every memory kind is `device` nothing is annotated: the program is
the plain one-device program (a `jit` whose shardings are all SingleDeviceShardings
comes here too).
"""
from __future__ import annotations

from astjax import core, tree_util
from astjax.errors import ArgumentValueError
from astjax.ir import in_memory_space, memory_space_rule
from astjax.memory import MEMORY_KINDS, MemorySpace, check_placeable, kind_to_space
from astjax.primitives.spmd import is_layout, layouts_per_leaf, resolve_sharding
from astjax.sharding_impls import SingleDeviceSharding

from . import runtime, sharded, stablehlo
from .host_sharded import check_arg_kind, jaxpr_memory_kinds, placements
from .spmd import _flat_in, needs_spmd
from .runtime import xc

__all__ = ["HostMemoryArray", "destination", "put", "put_tree", "names_host", "kind_of", "kinds_key", "MemoryEntry", "involved", "eager_apply",
           "jaxpr_memory_kinds"]


class HostMemoryArray(runtime.CommittedArray):
    """A committed one-device Array in a host memory (`pinned_host` or
    `unpinned_host`): `.sharding.memory_kind` names it."""
    __slots__ = ()

    @property
    def sharding(self):
        """The whole array on its device, in its memory kind."""
        return SingleDeviceSharding(self.device, memory_kind=self._buf._sharding._memory_kind)


def kind_of(x):
    """The memory kind of argument leaf `x` when its layout is known (a committed
    Array: JAX's specified argument sharding), else None."""
    if type(x) is HostMemoryArray:
        return x._buf._sharding._memory_kind
    if isinstance(x, runtime.CommittedArray):
        return "device"
    return None


def put(x, device, kind):
    """`device_put` of one leaf to `device`'s memory `kind` (a HostMemoryArray unless
    `kind` is `device`); the value and weak type are kept."""
    if kind not in MEMORY_KINDS:
        raise ArgumentValueError(f"unknown memory kind {kind!r}",
                                 hint=f"use one of {', '.join(MEMORY_KINDS)}")
    if kind == "device":
        return runtime.device_put(x._value() if type(x) is HostMemoryArray else x, device,
                                  weak_type=getattr(x, "weak_type", None))
    if type(x) is HostMemoryArray and x.device == device and kind_of(x) == kind:
        return x
    aval = runtime._aval_of_host(x)
    value = x._value() if isinstance(x, runtime.Array) else x
    aval = runtime.intern_aval(in_memory_space(aval, kind_to_space(kind)))
    return HostMemoryArray(runtime.put_host(value, aval, device, kind), aval)


def destination(device, staged):
    """`device_put`'s destination `device` with a `memory.Space` resolved: outside
    staging, the default device (`Space.Device`) or its pinned host memory (a
    SingleDeviceSharding); staged, the space itself (JAX's equation names it)."""
    if not isinstance(device, MemorySpace):
        return device
    kind = check_placeable(device)
    if staged:
        return device
    dev = runtime.default_device()
    return dev if kind == "device" else SingleDeviceSharding(dev, memory_kind=kind)


def names_host(layouts, x=()) -> bool:
    """Whether one of the Shardings `layouts` names a host memory kind, or a leaf of
    `x` is in host memory (`put_tree` puts it)."""
    return (any(getattr(s, "memory_kind", None) not in (None, "device") for s in layouts)
            or any(type(v) is HostMemoryArray for v in tree_util.tree_leaves(x)))


def put_tree(x, shardings, loc=None):
    """`device_put(x, shardings)` when a sharding names a host memory kind: each leaf
    put in its sharding's memory (over several devices: `sharded.put`)."""
    leaves, tree = tree_util.flatten_for_staging(x)
    out = []
    for v, s in zip(leaves, layouts_per_leaf(shardings, x, "device_put: the shardings", loc)):
        s = None if s is None else resolve_sharding(s, "device_put", loc)
        if s is None:
            out.append(runtime.device_put(v))
        elif isinstance(s, SingleDeviceSharding):
            out.append(put(v, s._device, s.memory_kind))
        else:   # (over several devices, in its memory: codegen/host_sharded.py)
            out.append(sharded.put(v, s))
    return tree_util.tree_unflatten(tree, out)


def _result(buf, aval, kind):
    return (HostMemoryArray if kind != "device" or aval.memory_space is MemorySpace.Host
            else runtime.CommittedArray)(buf, aval)

# ------------------------------------------------------------------------ programs


def kinds_key(leaves, shardings=None) -> tuple:
    """The part of `jit`'s cache key that says which argument leaves are Arrays in
    which memory (what `jit_entry` checks and lowers, and a sharded `jit` naming a host
    memory kind checks): () when no leaf is in host memory and `jit` names no
    shardings, or only device memory over several devices."""
    if ((shardings is None or not (_one_device(shardings) or _names_host_kind(shardings)))
            and not any(type(x) is HostMemoryArray for x in leaves)):
        return ()
    return (tuple(kind_of(x) or isinstance(x, runtime.Array) for x in leaves),)


def _one_device(tree) -> bool:
    leaves = tree_util.tree_leaves(tree, is_leaf=is_layout)
    return all(s is None or isinstance(s, SingleDeviceSharding) for s in leaves)


def _names_host_kind(tree) -> bool:
    return names_host(tree_util.tree_leaves(tree, is_leaf=is_layout))


def involved(shardings, leaves, closed) -> bool:
    """Whether `jit` with `shardings` (its (in, out) pair or None) on `leaves`,
    staged as `closed`, is a MemoryEntry: every sharding is a SingleDeviceSharding,
    and there is one, or an argument in host memory, or a `<host>` value, or a
    `device_put` to a memory kind inside. (Layouts over several devices, or arrays laid
    out over them: a partitioned program, `codegen/host_sharded.py`.)"""
    if shardings is not None:
        return _one_device(shardings)
    jaxpr = closed.jaxpr
    if any(type(x) is sharded.GlobalArray for x in leaves) or needs_spmd(jaxpr):
        return False
    return (any(type(x) is HostMemoryArray for x in leaves)
            or any(v.aval.memory_space is MemorySpace.Host for v in (*jaxpr.invars,
                                                                       *jaxpr.outvars))
            or bool(jaxpr_memory_kinds(jaxpr)))


def _replicated(ndim):
    return f"sdy.sharding = #sdy.sharding<@empty_mesh, [{', '.join(['{}'] * ndim)}]>"


_MESH = ("sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}",)


class MemoryEntry:
    """One compiled signature of a one-device program with memory kinds (see the
    module docstring): `text`, `closed`, `out_tree`, `compile()`, `run(leaves)`.
    `in_kinds` (per argument leaf: the kind its layout names, or None) and
    `out_kinds` (per result: an `out_shardings` entry's kind, or None)."""

    def __init__(self, closed, out_tree, name, in_kinds, out_kinds, device, donated=(),
                 compiler_options=(), transfers=()):
        self.closed, self.out_tree, self.in_tree = closed, out_tree, None
        # (closed-over values: constants of the module, as JAX's)
        self.program, embedded = stablehlo.embedded_constants(closed, runtime.ONE_DEVICE)
        jaxpr = self.program.jaxpr
        self.in_avals = [v.aval for v in jaxpr.invars]
        out_avals = [v.aval for v in jaxpr.outvars]
        self.device, self.compiler_options = device, tuple(compiler_options)
        self.in_kinds = list(in_kinds)
        nconst = len(jaxpr.constvars)
        active = any(k not in (None, "device") for k in (*in_kinds, *out_kinds, *transfers))
        if active:
            own = [k if k is not None else ("pinned_host" if a.memory_space is MemorySpace.Host
                                            else "device")
                   for k, a in zip(out_kinds, out_avals)]
        else:
            own = ["device"] * len(out_avals)
        self.out_kinds = own
        args = [None] * nconst + [
            f'mhlo.memory_kind = "{k}", {_replicated(a.ndim)}' if active and k is not None
            else None for k, a in zip(in_kinds, self.in_avals)]
        results = [(f'mhlo.memory_kind = "{k}"' + (f", {_replicated(a.ndim)}" if s else ""))
                   if active else None for k, s, a in zip(own, out_kinds, out_avals)]
        sdy = active and any(k is not None for k in (*in_kinds, *out_kinds))
        self.text = stablehlo.lower_module(
            jaxpr, name=f"jit_{name}", donated={i + nconst for i in donated},
            arg_shardings=args, result_shardings=results,
            preamble=(lambda: _MESH) if sdy else None,
            result_names=stablehlo.result_names(out_tree),
            result_hook=placements(out_avals, out_kinds) if active else None,
            embedded=embedded)
        self.consts = list(self.program.consts)
        self.executable = None
        self._out_avals = [runtime.intern_aval(a) for a in out_avals]

    def compile(self):
        """Compile (once), with result handlers making each result in its memory."""
        if self.executable is None:
            j = self.program.jaxpr
            ex = runtime.Executable(self.text, [v.aval for v in (*j.constvars, *j.invars)],
                                    self._out_avals, self.device,
                                    compiler_options=self.compiler_options)
            ex.handlers = [xc.array_result_handler(a, runtime.sharding_for(self.device, k),
                                                   committed=True, _skip_checks=True)
                           for a, k in zip(self._out_avals, self.out_kinds)]
            self.executable = ex
            dev = self.device   # (the consts put on the device once)
            self._const_bufs = [c._buf if isinstance(c, runtime.Array) and c.device == dev
                                else runtime.device_put(c, dev)._buf for c in self.consts]
        return self

    def run(self, leaves):
        """Run on flat argument leaves: each put in the memory its layout names."""
        self.compile()
        dev = self.device
        bufs = list(self._const_bufs)
        for x, a, k in zip(leaves, self.in_avals, self.in_kinds):
            k = k or "device"
            if kind_of(x) == k and x.device == dev:
                bufs.append(x._buf)
            else:
                bufs.append(put(x, dev, k)._buf)
        ex = self.executable
        outs = ex.exe.execute_sharded(bufs).consume_with_handlers(ex.handlers)
        return tree_util.tree_unflatten(self.out_tree, [
            _result(o, a, k) for o, a, k in zip(outs, self._out_avals, self.out_kinds)])


def _leaf_kinds(spec, tree, what, loc):
    out = []
    for s in layouts_per_leaf(spec, tree, what, loc):
        if s is not None:
            s = resolve_sharding(s, what, loc)
        out.append(s)
    return out


def jit_entry(closed, out_tree, name, shardings, dyn_args, leaves, donated, loc,
              compiler_options=()):
    """The MemoryEntry of a `jit` call (`involved` said so): the kinds of its
    in_shardings / out_shardings entries and of its committed arguments, checked as
    JAX checks them."""
    in_spec, out_spec = shardings or (None, None)
    ins = _flat_in(in_spec, dyn_args, len(closed.jaxpr.invars), loc)   # (as spmd.py's)
    outs = ([None] * len(closed.jaxpr.outvars) if out_spec is None else _leaf_kinds(
        out_spec, tree_util.tree_unflatten(out_tree, closed.jaxpr.outvars),
        "jit out_shardings", loc))
    devices = {s._device for s in (*ins, *outs) if s is not None}
    devices |= {x.device for x in leaves if kind_of(x) is not None}
    if len(devices) > 1:
        raise ArgumentValueError("Received incompatible devices for jitted computation: "
                                 f"{sorted(d.id for d in devices)}", loc=loc,
                                 hint="put every argument on one device")
    device = devices.pop() if devices else runtime.default_device()
    in_kinds = []
    for s, x, v in zip(ins, leaves, closed.jaxpr.invars):
        have = kind_of(x) if isinstance(x, runtime.Array) else None
        have = have or ("device" if isinstance(x, runtime.Array) else None)
        if s is not None:
            check_arg_kind(s, have, v.aval, loc)
        in_kinds.append(s.memory_kind if s is not None else kind_of(x))
    return MemoryEntry(closed, out_tree, name, in_kinds,
                       [s.memory_kind if s is not None else None for s in outs], device,
                       donated, compiler_options, jaxpr_memory_kinds(closed.jaxpr))

# ------------------------------------------------------------------ eager operations


_eager: dict = {}


def eager_apply(prim, args, params):
    """One primitive on arguments among which is a HostMemoryArray: run as a program
    with memory kinds (as JAX runs it), results typed by JAX's memory-space rule
    (pinned-host operands: pinned-host results)."""
    avals = [a.aval if isinstance(a, runtime.Array) else runtime._aval_of_host(a)
             for a in args]
    kinds = [kind_of(a) for a in args]
    devs = {a.device for a in args if kind_of(a) is not None}
    if len(devs) > 1:
        raise ArgumentValueError(f"{prim.name}: arguments committed to different devices "
                                 f"{sorted(d.id for d in devs)}",
                                 hint="device_put them on one device")
    dev = devs.pop()
    key = (prim, tuple(sorted((k, runtime._hashable(v)) for k, v in params.items())),
           tuple(avals), tuple(kinds), dev)
    try:
        entry = _eager.get(key)
    except TypeError:
        key, entry = None, None
    if entry is None:
        out = memory_space_rule(prim, avals, prim.abstract_eval(*avals, **params))
        out_avals = out if prim.multiple_results else [out]
        invars = [core.Var(a) for a in avals]
        outvars = [core.Var(a) for a in out_avals]
        jaxpr = core.Jaxpr([], invars, outvars, [core.Eqn(prim, invars, outvars, params)])
        _, tree = tree_util.tree_flatten(list(range(len(outvars))))
        entry = MemoryEntry(core.ClosedJaxpr(jaxpr, []), tree, prim.name, kinds,
                            [None] * len(outvars), dev).compile()
        if key is not None:
            _eager[key] = entry
    outs = entry.run(list(args))
    return outs if prim.multiple_results else outs[0]


runtime.memory_rule[:] = [eager_apply, HostMemoryArray]   # (runtime.eager_apply's hook)
