"""The shardings of a multi-device export, as JAX 0.10.2 keeps them.

An `Exported` of a function partitioned over a mesh stores one sharding per flat
argument and result (None where the layout was left to XLA) as a `NamedSharding`
over the mesh's `AbstractMesh` -- axis sizes, names and types, no devices -- so
the artifact runs on any devices of the same shape (`named_for_export`). The
caller supplies them: `for_mesh` puts a stored sharding on a concrete mesh
(`Exported.in_shardings_jax(mesh)`), after JAX's check that the mesh has the same
axes. `hlo_of` is XLA's view of a stored sharding, the `HloSharding` (jaxlib's own
class, so `str()` is JAX's text, e.g. `{devices=[2,1]<=[2]}`) that JAX shows as
`in_shardings_hlo` of a deserialized export; artifacts written before JAX stored
named shardings carry only those, and `named_from_hlo` reads one back onto a mesh.
`result_types` gives the layouts JAX's types of a program's results carry, which its
exported VJP lays the cotangents out by where the primal leaves a result unspecified.
"""
from __future__ import annotations

import numpy as np

from .. import core
from .. import sharding_impls as shd
from ..codegen.runtime import xc
from ..primitives.shard_map import shard_map_p
from ..errors import JAXValueError

__all__ = ["named_for_export", "for_mesh", "hlo_of", "named_from_hlo", "result_types"]


def named_for_export(s, ndim):
    """The sharding an export stores for a value of rank `ndim` laid out as `s`
    (a concrete NamedSharding, a SingleDeviceSharding or None: unspecified)."""
    if s is None:
        return None
    whole = shd.PartitionSpec(*[None] * ndim)
    if isinstance(s, shd.SingleDeviceSharding):
        return shd.NamedSharding(shd.AbstractMesh((), ()), whole, memory_kind=s.memory_kind)
    mesh = s.mesh if isinstance(s.mesh, shd.AbstractMesh) else s.mesh.abstract_mesh
    # (a mesh without axes lays every dimension out whole, spelled out)
    return shd.NamedSharding(mesh, whole if mesh.empty else s.spec, memory_kind=s.memory_kind)


def for_mesh(s, mesh):
    """The stored sharding `s` (None: unspecified) on `mesh` (a Mesh or an
    AbstractMesh of the export's axes; None keeps the stored one)."""
    if s is None or mesh is None:
        return s
    want = s.mesh
    got = mesh if isinstance(mesh, shd.AbstractMesh) else mesh.abstract_mesh
    if (got.axis_sizes, got.axis_names, got.axis_types) != (
            want.axis_sizes, want.axis_names, want.axis_types):
        raise JAXValueError(f"NamedSharding new mesh {mesh} does not match the mesh used for "
                            f"export {want}.")
    return shd.NamedSharding(mesh, s.spec, memory_kind=s.memory_kind)


def hlo_of(s, ndim):
    """The `HloSharding` of the stored sharding `s` for a rank-`ndim` value (None
    stays None): the mesh's devices in order, size-1 axes dropped, each dimension
    tiled by its axes, the other axes a trailing replicated (or unreduced, or
    manual) group."""
    if s is None:
        return None
    mesh, spec = s.mesh, s.spec
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    names = [n for n in mesh.axis_names if sizes[n] != 1]
    placed = {}                      # mesh axis -> the dimension it tiles
    for dim, entry in enumerate(spec._normalized(ndim)):
        for a in shd.PartitionSpec._axes(entry):
            if sizes[a] != 1:
                placed[a] = dim
    special = {a: xc.OpSharding.Type.UNREDUCED for a in spec.unreduced}
    special.update({a: xc.OpSharding.Type.MANUAL for a, t in zip(mesh.axis_names,
                                                                  mesh.axis_types)
                    if t == shd.AxisType.Manual})
    rest = [a for a in names if a not in placed]
    if len(rest) == len(names) and not any(a in special for a in names):
        return xc.HloSharding.replicate()
    dims = [1] * ndim
    perm = []   # (mesh axes by the dimension they tile: the spec's order)
    for a in placed:
        dims[placed[a]] *= sizes[a]
        perm.append(names.index(a))
    groups: dict = {}
    for a in rest:
        groups.setdefault(special.get(a, xc.OpSharding.Type.REPLICATED), []).append(a)
    kinds = []
    for kind, axes in sorted(groups.items(), key=lambda kv: kv[0].value):
        kinds.append(kind)
        dims.append(int(np.prod([sizes[a] for a in axes])))
        perm += [names.index(a) for a in axes]
    return xc.HloSharding.iota_tile(dims, [sizes[a] for a in names], perm, kinds)


def named_from_hlo(h, ndim, mesh):
    """The NamedSharding over `mesh` that the HloSharding `h` of an older artifact
    describes for a rank-`ndim` value (the mesh's devices numbered in order)."""
    if h is None:
        return None
    if h.is_replicated():
        return shd.NamedSharding(mesh, shd.PartitionSpec())
    devices = list(mesh.devices.flat)
    out = shd.named_from_tiles(mesh, ndim, h.tile_assignment_dimensions(),
                               h.tile_assignment_devices(), h.replicate_on_last_tile_dim(),
                               devices)
    if out is None:
        raise JAXValueError(f"the sharding {h} of the exported function is not a "
                            f"PartitionSpec over the mesh {mesh}")
    return out


def result_types(jaxpr):
    """Per result of `jaxpr`, the layout JAX's type of it carries: a `shard_map`'s
    result is typed `NamedSharding(mesh, out_spec)` (one entry per dimension); None
    for the others (astjax's avals carry no layout over Auto axes). JAX's exported
    VJP lays a cotangent out by it when the primal leaves the result unspecified."""
    made = {}
    for eqn in jaxpr.eqns:
        if eqn.primitive is shard_map_p:
            for v, spec in zip(eqn.outvars, eqn.params["out_specs"]):
                made[v] = shd.NamedSharding(eqn.params["mesh"], shd.PartitionSpec(
                    *spec._normalized(v.aval.ndim), unreduced=spec.unreduced))
    return [made.get(v) if isinstance(v, core.Var) else None for v in jaxpr.outvars]
