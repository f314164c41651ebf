"""Memory kinds in programs: which arguments and results of a program live in which
memory (`mhlo.memory_kind`), and the arrays in host memory laid out over several
devices (issue 13).

A `NamedSharding(mesh, spec, memory_kind='pinned_host')` lays an array out over the
mesh's devices with every device's part in that device's pinned host memory: a
`GlobalArray` whose jaxlib buffers were put there (`sharded.put`), typed
`f32<host>[...]` as JAX types it (one in `unpinned_host` keeps the device type). A
partitioned program (`codegen/spmd.py`) reading or writing such arrays is lowered as
JAX 0.10.2 lowers a program once some memory kind is not `device` (`kinds_of`):

- an argument with a layout (an `in_shardings` entry, or a GlobalArray's own) carries
  `mhlo.memory_kind` next to its `sdy.sharding` / `mhlo.sharding`;
- every result carries `mhlo.memory_kind`: its `out_shardings` entry's, else its
  type's (`pinned_host` for a `<host>` value, else `device`);
- a result with an `out_shardings` entry is placed there by the
  `annotate_device_placement` custom call (`placements`);
- the executable's results are made in those memories (jaxlib result handlers of
  those memory kinds) and carry them in their `.sharding`.

The one-device programs with memory kinds are `codegen/host_memory.py`'s; both read
the memory kinds a program's `device_put`s name with `jaxpr_memory_kinds`.
"""
from __future__ import annotations

import copy
import re
from typing import NamedTuple

from astjax import core
from astjax.errors import ArgumentValueError
from astjax.ir import in_memory_space
from astjax.memory import MemorySpace, kind_to_space
from astjax.primitives.compute_on import compute_on_p
from astjax.primitives.device_put import device_put_p
from astjax.sharding_impls import Sharding

from . import runtime

__all__ = ["Kinds", "kinds_of", "jaxpr_memory_kinds", "placements", "with_kind",
           "result_avals", "is_host", "check_arg_kind", "arg_kind", "committed_view",
           "committed_annotated"]


def is_host(kind) -> bool:
    """Whether memory kind `kind` is a host memory (not None, not `device`)."""
    return kind not in (None, "device")


def _destination_kind(d):
    """The memory kind a `device_put` destination names (None: none)."""
    if isinstance(d, MemorySpace):
        return "pinned_host" if d is MemorySpace.Host else "device"
    if isinstance(d, Sharding):
        return d.memory_kind
    return None


def jaxpr_memory_kinds(jaxpr) -> list:
    """The memory kinds the `device_put`s and `compute_on`s of `jaxpr` (nested too)
    name (JAX's transfer memory kinds)."""
    out = []
    for eqn in core.all_eqns(jaxpr):
        if eqn.primitive is device_put_p:
            out += [k for k in map(_destination_kind, eqn.params["devices"]) if k is not None]
        elif eqn.primitive is compute_on_p:
            out += [_destination_kind(s) for s in eqn.params["out_memory_spaces"]]
    return out


def placements(out_avals, placed):
    """`lower_module`'s result hook: each result with a memory kind in `placed`
    (None: none) put there by the `annotate_device_placement` custom call."""
    def hook(mb, outs):
        new = []
        for o, a, k in zip(outs, out_avals, placed):
            if k is not None:
                attrs = {"call_target_name": '"annotate_device_placement"',
                         "has_side_effect": "true", "backend_config": '""',
                         "mhlo.frontend_attributes": f'{{_xla_buffer_placement = "{k}"}}'}
                o = mb.op("stablehlo.custom_call", [o], [a], attrs)[0]
            new.append(o)
        return new
    return hook


def arg_kind(x):
    """The memory kind of `jit` argument leaf `x` when it is an Array (even an
    uncommitted one: JAX's check below reads it), else None."""
    return x.sharding.memory_kind if isinstance(x, runtime.Array) else None


def check_arg_kind(sharding, have, aval, loc):
    """JAX's ValueError when `jit`'s `in_shardings` entry `sharding` names another
    memory kind than its argument's (`have`; None: a host value, put where asked)."""
    if have is not None and sharding.memory_kind != have:
        raise ArgumentValueError(
            "Memory kinds passed to jax.jit does not match memory kind on the "
            f"respective arg. Got jit memory kind: {sharding.memory_kind}, arg memory kind: "
            f"{have} for arg type: {aval._long()}", loc=loc,
            hint="device_put the argument to the jit's memory kind first, or drop its "
                 "in_shardings entry")


def with_kind(attr, kind):
    """A parameter's or result's attribute text `attr` (None: none) with
    `mhlo.memory_kind = kind` before it (MLIR's order; `kind` None: unchanged)."""
    if kind is None:
        return attr
    return f'mhlo.memory_kind = "{kind}"' + (f", {attr}" if attr else "")


class Kinds(NamedTuple):
    """The memory kinds of a partitioned program: `args` (per parameter, constants
    first: the kind its attribute names, or None), `results` (per result: its kind)
    and `placed` (per result: its `out_shardings` entry's kind, placed by the
    custom call, or None)."""
    args: list
    results: list
    placed: list

    def hook(self, out_avals):
        """The result hook placing the `placed` results."""
        return placements(out_avals, self.placed)


def kinds_of(param_shardings, out_shardings, out_avals, jaxpr) -> Kinds | None:
    """The memory kinds of a partitioned program with these layouts (None where XLA
    chooses) computing `jaxpr`: None -- no attribute at all, as JAX -- when every
    layout and every `device_put` inside names device memory (or none)."""
    named = [s.memory_kind for s in (*param_shardings, *out_shardings) if s is not None]
    if not any(map(is_host, named + jaxpr_memory_kinds(jaxpr))):
        return None
    return Kinds(
        [s.memory_kind if s is not None else None for s in param_shardings],
        [s.memory_kind if s is not None else
         ("pinned_host" if a.memory_space is MemorySpace.Host else "device")
         for s, a in zip(out_shardings, out_avals)],
        [s.memory_kind if s is not None else None for s in out_shardings])


def result_avals(avals, kinds):
    """Each result's abstract value in the memory space of its kind (a result put in
    pinned host memory by `out_shardings` is typed `<host>`, as in JAX)."""
    return [a if k is None else in_memory_space(a, kind_to_space(k))
            for a, k in zip(avals, kinds)]


def committed_view(entry, leaves, entry_type):
    """A one-device `jit` entry (of `entry_type`) lowered for argument `leaves` some of
    which are committed to their device: a copy whose text JAX's annotations
    (`committed_annotated`); otherwise `entry` itself."""
    committed = [type(x) is runtime.CommittedArray for x in leaves]
    if not isinstance(entry, entry_type) or not any(committed) or entry.float0_in:
        return entry
    view = copy.copy(entry)   # (an entry with ordered effects takes their tokens first)
    nfirst = len(entry.program.jaxpr.constvars) + len(getattr(entry, "effects", ()))
    view._text = committed_annotated(entry.text, committed, nfirst)
    return view


def committed_annotated(text, committed, nconst):
    """The module `text` of a one-device `jit` as JAX 0.10.2 prints it when argument
    leaves are committed to their device (`committed`: per leaf; `nconst` parameters
    come first): each such `@main` parameter replicated over the empty mesh
    (`sdy.sharding = #sdy.sharding<@empty_mesh, [{}, {}]>`), the mesh declared once.
    Unchanged when none is, or a parameter there already has attributes."""
    lines = text.split("\n")
    at = next((i for i, l in enumerate(lines) if "func.func public @main(" in l), None)
    # (a host callback's maximal mesh is declared after the empty one, as in JAX)
    if at is None or not any(committed) or re.search(r"sdy\.mesh @(?!maximal_mesh_)", text):
        return text
    main = lines[at]
    for i, c in enumerate(committed):
        m = re.search(rf"%arg{i + nconst}: tensor<([^>]*)>(.)", main) if c else None
        if m is None:
            continue
        if m.group(2) not in ",)":
            return text
        ndim = m.group(1).count("x")
        attr = f" {{sdy.sharding = #sdy.sharding<@empty_mesh, [{', '.join(['{}'] * ndim)}]>}}"
        main = main[:m.end(1) + 1] + attr + main[m.end(1) + 1:]
    lines[at] = main
    return "\n".join(lines[:1] + ["  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}"]
                     + lines[1:])
