"""The byte format of a serialized `Exported` -- JAX's: the FlatBuffers schema of
`jax/_src/export/serialization.fbs` (JAX 0.10.2, serialization version 11, written
with the compatibility version 3 in its header as JAX writes it) -- and the
pytree-node registrations it needs (`register_pytree_node_serialization`,
`register_namedtuple_serialization`).

So an artifact serialized by JAX loads and runs in astjax and one serialized by
astjax loads and runs in JAX. What the format carries: the function name, the
`(args, kwargs)` and result pytree definitions (tuples, lists, None, dicts with
string keys, and registered custom nodes by name with their serialized aux data),
the flat avals (shape as strings, dtype as JAX's enum, memory space; weak types are
not stored, as in JAX), shardings (per flat argument and result a NamedSharding over
an AbstractMesh, or unspecified; older JAX artifacts' HloSharding protos are read as
jaxlib's HloShardings), platforms, effects (none in astjax's),
disabled checks, the portable module, the calling convention, the kept arguments,
and up to `vjp_order` nested VJPs. Symbolic (shape-polymorphic) dimensions are
stored as their text (`2*b`), in one scope per artifact, without its constraints
(as JAX); effects in a JAX artifact are refused with a located error.
"""
from __future__ import annotations

import collections
import json
from typing import Any

import ml_dtypes
import numpy as np

from .. import dtypes as _dtypes, sharding_impls as shd, tree_util
from ..codegen.runtime import xc
from ..errors import caller_location
from ..ir import ShapedArray
from ..shape_poly import SymbolicScope, symbolic_shape
from .flatbuffer import Scalar, Table, TableView, Vector, build
from .lowering import DisabledSafetyCheck, ExportError
from .shardings import hlo_of

__all__ = ["serialize", "read", "register_pytree_node_serialization",
           "register_namedtuple_serialization"]

# node type -> (serialized name, serialize_auxdata); name -> (type, deserialize, build)
_serializers: dict[type, tuple[str, Any]] = {}
_deserializers: dict[str, tuple[type, Any, Any]] = {}


def register_pytree_node_serialization(nodetype, *, serialized_name: str,
                                       serialize_auxdata, deserialize_auxdata,
                                       from_children=None):
    """Let pytree nodes of `nodetype` appear in a serialized `Exported`'s
    `in_tree`/`out_tree`: `serialize_auxdata(aux) -> bytes` and
    `deserialize_auxdata(bytes) -> aux` carry the node's aux data under
    `serialized_name`; `from_children(aux, children)` (default: the type's
    registered unflatten) rebuilds a node. Returns `nodetype` (a class decorator)."""
    if nodetype in _serializers:
        raise ExportError(f"Duplicate serialization registration for type `{nodetype}`. "
                          f"Previous registration was with serialized_name "
                          f"`{_serializers[nodetype][0]}`.", loc=caller_location())
    if serialized_name in _deserializers:
        raise ExportError("Duplicate serialization registration for serialized_name "
                          f"`{serialized_name}`. Previous registration was for type "
                          f"`{_deserializers[serialized_name][0]}`.", loc=caller_location())
    if from_children is None:
        node = tree_util._registry.get(nodetype)
        if node is None:
            raise ExportError("If `from_children` is not present, you must call first "
                              f"`jax.tree_util.register_pytree_node` for `{nodetype}`",
                              loc=caller_location())
        from_children = node.unflatten
    _serializers[nodetype] = (serialized_name, serialize_auxdata)
    _deserializers[serialized_name] = (nodetype, deserialize_auxdata, from_children)
    return nodetype


def register_namedtuple_serialization(nodetype, *, serialized_name: str):
    """Let the namedtuple class `nodetype` appear in a serialized `Exported`'s
    pytrees, under `serialized_name` (its field names are checked on loading)."""
    if not (isinstance(nodetype, type) and issubclass(nodetype, tuple)
            and hasattr(nodetype, "_fields")):
        raise ExportError("Use `jax.export.register_pytree_node_serialization` for types "
                          "other than `collections.namedtuple`.", loc=caller_location())

    def from_children(fields, children):
        return nodetype(**dict(zip(fields, children)))
    return register_pytree_node_serialization(
        nodetype, serialized_name=serialized_name,
        serialize_auxdata=lambda _: json.dumps(list(nodetype._fields)).encode(),
        deserialize_auxdata=lambda b: json.loads(b.decode()), from_children=from_children)


def _ordered_keys(keys):
    if not all(isinstance(k, str) for k in keys):
        raise ExportError("Serialization of collections.OrderedDict is supported only "
                          f"when the keys are strings. Found keys: {list(keys)}.")
    return json.dumps(list(keys)).encode()


register_pytree_node_serialization(
    collections.OrderedDict, serialized_name="collections.OrderedDict",
    serialize_auxdata=_ordered_keys, deserialize_auxdata=lambda b: json.loads(b.decode()))

# ------------------------------------------------------------------ the schema
# JAX's slot numbers (serialization_generated.py); enums as JAX numbers them
_KIND = {"leaf": 0, "none": 1, "tuple": 2, "list": 3, "dict": 4, "custom": 5}
_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "float16", "float32", "float64", "complex64", "complex128",
           "bfloat16", "int4", "uint4", "float8_e4m3b11fnuz", "float8_e4m3fn",
           "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float0", "float8_e4m3",
           "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn"]
_MEMORY_DEVICE = 1
_CHECK_PLATFORM, _CHECK_CUSTOM_CALL = 0, 1


def _dtype_code(dtype) -> int:
    name = "float0" if dtype == _dtypes.float0 else np.dtype(dtype).name
    if name not in _DTYPES:
        raise ExportError(f"cannot serialize an Exported with dtype {name}")
    return _DTYPES.index(name)


def _dtype(code: int):
    if not 0 <= code < len(_DTYPES):
        raise ExportError(f"cannot deserialize dtype number {code} (typed PRNG keys and "
                          "newer dtypes are not supported by astjax)")
    name = _DTYPES[code]
    if name == "float0":
        return _dtypes.float0
    return np.dtype(getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else name)


def _tree_table(td) -> Table:
    nt = td.node_type
    children = Vector([_tree_table(c) for c in td.children]) if td.children else None
    if nt is None:
        return Table({0: Scalar("b", _KIND["leaf"])})
    if nt in (tuple, list, type(None)):
        kind = {tuple: "tuple", list: "list", type(None): "none"}[nt]
        return Table({0: Scalar("b", _KIND[kind]), 1: children})
    if nt is dict:
        for k in td.aux:
            if not isinstance(k, str):
                raise ExportError("Serialization is supported only for dictionaries with "
                                  f"string keys. Found key {k!r} of type {type(k)}.")
        return Table({0: Scalar("b", _KIND["dict"]), 1: children,
                      2: Vector(list(td.aux))})
    if nt in _serializers:
        name, ser = _serializers[nt]
        aux = ser(td.aux)
        if not isinstance(aux, (bytes, bytearray)):
            raise ExportError("The custom serialization function for `node_type` must "
                              f"return a `bytes` object. It returned a {type(aux)}.")
        return Table({0: Scalar("b", _KIND["custom"]), 1: children, 3: name,
                      4: bytes(aux)})
    raise ExportError(f"Cannot serialize PyTreeDef containing an unregistered type `{nt}`. "
                      "Use `export.register_pytree_node_serialization` or "
                      "`export.register_namedtuple_serialization`.")


class _Leaf:
    """The placeholder leaf of a deserialized pytree definition."""


_LEAF = _Leaf()


def _tree_value(t: TableView) -> Any:
    """A pytree of the serialized structure with `_LEAF` leaves."""
    kind = t.scalar(0, "b")
    kids = [_tree_value(c) for c in t.tables(1)]
    if kind == _KIND["leaf"]:
        return _LEAF
    if kind == _KIND["none"]:
        return None
    if kind == _KIND["tuple"]:
        return tuple(kids)
    if kind == _KIND["list"]:
        return kids
    if kind == _KIND["dict"]:
        return dict(zip(t.strings(2), kids))
    if kind == _KIND["custom"]:
        name = t.string(3)
        if name not in _deserializers:
            raise ExportError(f"Cannot deserialize a PyTreeDef containing an unregistered "
                              f"type `{name}`. Use `export.register_pytree_node_serialization` "
                              "or `export.register_namedtuple_serialization`.")
        _, de, build_node = _deserializers[name]
        return build_node(de(t.bytes(4) or b""), kids)
    raise ExportError(f"Cannot deserialize PyTreeDef with unknown kind: {kind}")


def _treedef(t: TableView):
    return tree_util.tree_structure(_tree_value(t), is_leaf=lambda x: x is _LEAF)


def _aval_table(a) -> Table:
    return Table({0: Scalar("b", 0), 1: Vector([str(d) for d in a.shape]),
                  2: Scalar("b", _dtype_code(a.dtype)), 3: Scalar("b", _MEMORY_DEVICE)})


def _aval(t: TableView, scope: SymbolicScope) -> ShapedArray:
    if t.scalar(0, "b") != 0:
        raise ExportError("cannot deserialize an abstract token argument or result")
    # symbolic dimensions are stored as their text; the scope's constraints are not
    # stored (neither does JAX)
    dims = symbolic_shape(",".join(t.strings(1)), scope=scope)
    if t.scalar(3, "b") not in (0, _MEMORY_DEVICE):
        raise ExportError("the Exported has arguments or results in host memory, which "
                          "astjax arrays cannot live in", loc=caller_location())
    return ShapedArray(dims, _dtype(t.scalar(2, "b")))


def _check_table(c: DisabledSafetyCheck) -> Table:
    target = c.is_custom_call()
    if target is not None:
        return Table({0: Scalar("b", _CHECK_CUSTOM_CALL), 1: target})
    if c == DisabledSafetyCheck.platform():
        return Table({0: Scalar("b", _CHECK_PLATFORM)})
    raise ExportError(f"serializing DisabledSafetyCheck: {c}")


def _check(t: TableView) -> DisabledSafetyCheck:
    kind = t.scalar(0, "b")
    if kind == _CHECK_CUSTOM_CALL:
        return DisabledSafetyCheck.custom_call(t.string(1))
    if kind == _CHECK_PLATFORM:
        return DisabledSafetyCheck.platform()
    raise ExportError(f"Cannot deserialize DisabledSafetyCheck with unknown kind: {kind}")


# ------------------------------------------------------------------ shardings
# A stored sharding is a NamedSharding over an AbstractMesh (astjax/export/shardings.py);
# the tables: AbstractMesh {0: axis sizes (u32), 1: names, 2: types (u8, JAX's enum),
# 3: AbstractDevice {0: kind, 1: cores (u32), 2: platform}}, PartitionSpec {0: one
# {0: axis names} per dimension, 1: reduced, 2: unreduced}, NamedSharding {0: mesh,
# 1: spec, 2: memory kind, 3: the mesh's index among the unique ones}, and per
# argument / result a Sharding {1: an HloSharding proto (older artifacts), 2: a
# NamedSharding} (empty: unspecified).
_AXIS_TYPES = {shd.AxisType.Auto: 1, shd.AxisType.Explicit: 2, shd.AxisType.Manual: 3}


def _mesh_table(m) -> Table:
    d = m.abstract_device
    device = None if d is None else Table({
        0: d.device_kind, 1: None if d.num_cores is None else Scalar("I", d.num_cores),
        2: d.platform})
    return Table({0: Vector(list(m.axis_sizes), "I"), 1: Vector(list(m.axis_names)),
                  2: Vector([_AXIS_TYPES[t] for t in m.axis_types], "B"), 3: device})


def _mesh(t: TableView):
    types = {v: k for k, v in _AXIS_TYPES.items()}
    d = t.table(3)
    device = None if d is None else shd.AbstractDevice(
        d.string(0), d.scalar(1, "I", None), d.string(2) or _platform_of(d.string(0)))
    return shd.AbstractMesh(tuple(t.scalars(0, "I")), tuple(t.strings(1)),
                            tuple(types[k] for k in t.scalars(2, "B")), abstract_device=device)


def _platform_of(device_kind):
    """The platform of an AbstractDevice written without one (older artifacts)."""
    kind = device_kind.lower()
    for platform, marks in (("cpu", ("cpu",)), ("tpu", ("tpu",)),
                            ("gpu", ("nvidia", "tesla", "amd"))):
        if any(m in kind for m in marks):
            return platform
    raise ExportError(f"Got unexpected device_kind={device_kind!r}")


def _spec_table(spec) -> Table:
    def axes(entry):
        return [] if entry is None else [entry] if isinstance(entry, str) else list(entry)
    return Table({0: Vector([Table({0: Vector(axes(e))}) for e in spec]),
                  1: Vector(sorted(spec.reduced)), 2: Vector(sorted(spec.unreduced))})


def _spec(t: TableView):
    def entry(axes):
        return None if not axes else axes[0] if len(axes) == 1 else tuple(axes)
    return shd.PartitionSpec(*[entry(p.strings(0)) for p in t.tables(0)],
                             reduced=frozenset(t.strings(1)),
                             unreduced=frozenset(t.strings(2)))


def _named_table(s, meshes) -> Table:
    return Table({0: _mesh_table(s.mesh), 1: _spec_table(s.spec), 2: s.memory_kind,
                  3: Scalar("I", meshes.index(s.mesh))})


def _named(t: TableView, meshes):
    mesh = meshes[t.scalar(3, "I")] if meshes else _mesh(t.table(0))
    return shd.NamedSharding(mesh, _spec(t.table(1)), memory_kind=t.string(2))


def _sharding(t: TableView, meshes):
    """A per-argument Sharding table: a NamedSharding, an HloSharding or None."""
    named = t.table(2)
    if named is not None:
        return _named(named, meshes)
    proto = t.bytes(1)
    if proto is None:
        return None
    op = xc.OpSharding()
    op.ParseFromString(proto)
    return xc.HloSharding.from_proto(op)


def _shardings_tables(exp):
    """(unique meshes, unique named shardings, and per flat argument / result the
    Sharding tables and 1-based indices into the unique ones, 0 for None)."""
    shardings = [*exp._in_named_shardings, *exp._out_named_shardings]
    uniques = list(dict.fromkeys(s for s in shardings if s is not None))
    meshes = list(dict.fromkeys(s.mesh for s in uniques))
    tables = [Table({}) if s is None else Table({2: _named_table(s, meshes)})
              for s in shardings]
    idxs = [0 if s is None else 1 + uniques.index(s) for s in shardings]
    return meshes, uniques, tables, idxs


def _read_shardings(t: TableView, in_avals, out_avals):
    """(has named shardings, named in, named out, hlo in, hlo out) as JAX reads them."""
    meshes = [_mesh(m) for m in t.tables(20)]
    uniques = [_named(s, meshes) for s in t.tables(21)]

    def side(idx_slot, slot):
        if t.has(idx_slot):
            return [None if i == 0 else uniques[i - 1] for i in t.scalars(idx_slot, "I")]
        return [_sharding(s, meshes) for s in t.tables(slot)]
    ins, outs = side(24, 7), side(25, 8)
    ins += [None] * (len(in_avals) - len(ins))
    outs += [None] * (len(out_avals) - len(outs))
    if any(isinstance(s, xc.HloSharding) for s in (*ins, *outs)):   # (before 1/2026)
        return False, (None,) * len(ins), (None,) * len(outs), tuple(ins), tuple(outs)
    return (True, tuple(ins), tuple(outs),
            tuple(hlo_of(s, len(a.shape)) for s, a in zip(ins, in_avals)),
            tuple(hlo_of(s, len(a.shape)) for s, a in zip(outs, out_avals)))


def _exported_table(exp, vjp_order: int) -> Table:
    if exp.ordered_effects or exp.unordered_effects:
        raise ExportError("serialization of an Exported with effects is not supported")
    if not exp._has_named_shardings:
        raise ExportError("Exported being serialized must have named shardings after "
                          "3/17/2026.", loc=caller_location())
    uniques: dict = {}
    for a in (*exp.in_avals, *exp.out_avals):
        uniques.setdefault((a.shape, np.dtype(a.dtype)), a)
    index = {k: i for i, k in enumerate(uniques)}
    vjp = None
    if vjp_order > 0:
        if not exp.has_vjp():
            raise ExportError("serialization of an Exported that does not have vjps of "
                              "high-enough order", loc=caller_location())
        vjp = _exported_table(exp.vjp(), vjp_order - 1)
    n_in = len(exp.in_avals)
    meshes, named, tables, idxs = _shardings_tables(exp)
    return Table({
        0: Scalar("H", 3),    # (JAX writes 3: older readers accept only 2 or 3)
        1: exp.fun_name, 2: _tree_table(exp.in_tree),
        3: Vector([_aval_table(a) for a in exp.in_avals]),
        4: _tree_table(exp.out_tree),
        5: Vector([_aval_table(a) for a in exp.out_avals]),
        7: Vector(tables[:n_in]), 8: Vector(tables[n_in:]),
        9: Vector(list(exp.platforms)), 10: Vector([]), 11: Vector([]),
        12: Vector([_check_table(c) for c in exp.disabled_safety_checks]),
        13: bytes(exp.mlir_module_serialized),
        14: Scalar("H", exp.calling_convention_version),
        15: Vector(list(exp.module_kept_var_idx), "H"),
        16: Scalar("?", bool(exp.uses_global_constants)), 17: vjp,
        18: Scalar("I", exp.nr_devices),
        19: Vector([_aval_table(a) for a in uniques.values()]),
        20: Vector([_mesh_table(m) for m in meshes]),
        21: Vector([_named_table(s, meshes) for s in named]),
        22: Vector([index[(a.shape, np.dtype(a.dtype))] for a in exp.in_avals], "I"),
        23: Vector([index[(a.shape, np.dtype(a.dtype))] for a in exp.out_avals], "I"),
        24: Vector(idxs[:n_in], "I"), 25: Vector(idxs[n_in:], "I")})


def serialize(exp, vjp_order: int = 0) -> bytes:
    """`exp` as JAX serializes it, with `vjp_order` orders of its VJP."""
    return build(_exported_table(exp, vjp_order))


def _avals(t: TableView, idx_slot: int, old_slot: int, uniques, scope):
    if t.has(idx_slot):
        return tuple(uniques[i] for i in t.scalars(idx_slot, "I"))
    return tuple(_aval(a, scope) for a in t.tables(old_slot))


def read(t: TableView) -> tuple[dict, TableView | None]:
    """The fields of the `Exported` whose table is `t` (all but `_get_vjp`), and the
    table of its VJP, or None."""
    if t.tables(10) or t.tables(11):
        raise ExportError("the Exported has effects, which astjax cannot call",
                          loc=caller_location())
    scope = SymbolicScope(())
    uniques = [_aval(a, scope) for a in t.tables(19)]
    in_avals = _avals(t, 22, 3, uniques, scope)
    out_avals = _avals(t, 23, 5, uniques, scope)
    named, named_in, named_out, hlo_in, hlo_out = _read_shardings(t, in_avals, out_avals)
    fields = dict(
        fun_name=t.string(1) or "", in_tree=_treedef(t.table(2)), in_avals=in_avals,
        out_tree=_treedef(t.table(4)), out_avals=out_avals,
        in_shardings_hlo=hlo_in, out_shardings_hlo=hlo_out, _has_named_shardings=named,
        _in_named_shardings=named_in, _out_named_shardings=named_out,
        nr_devices=t.scalar(18, "I") or t.scalar(6, "h"), platforms=tuple(t.strings(9)),
        ordered_effects=(), unordered_effects=(),
        disabled_safety_checks=tuple(_check(c) for c in t.tables(12)),
        mlir_module_serialized=t.bytes(13) or b"",
        calling_convention_version=t.scalar(14, "H"),
        module_kept_var_idx=tuple(t.scalars(15, "H")),
        uses_global_constants=bool(t.scalar(16, "?")))
    return fields, t.table(17)
