"""The byte format of a serialized `Exported`, and the pytree-node registrations it
needs (`register_pytree_node_serialization`, `register_namedtuple_serialization`).

astjax's format (not JAX's flatbuffer; see docs/coming_from_jax.md):

    b"ASTJAXEXPORT" | version: u32 little-endian | header length: u32 | header (JSON,
    UTF-8) | module (the portable VHLO artifact, `mlir_module_serialized`)

The header holds every field of `Exported` except the module: avals as
`[shape, dtype name, weak_type]`, pytree definitions as nested
`{"kind": leaf|none|tuple|list|dict|custom, ...}` (dict keys must be strings, a custom
node is named by its registration and carries its serialized aux data in base64),
and, up to `vjp_order`, the nested serialized VJP in `"vjp"` (base64). A reader of
version N reads every version up to N and refuses a newer one with a clear error.
"""
from __future__ import annotations

import base64
import collections
import json
import struct
from typing import Any

import numpy as np

from .. import dtypes as _dtypes, tree_util
from ..errors import caller_location
from ..ir import ShapedArray
from .lowering import DisabledSafetyCheck, ExportError

__all__ = ["serialize", "read", "register_pytree_node_serialization",
           "register_namedtuple_serialization", "MAGIC", "VERSION"]

MAGIC = b"ASTJAXEXPORT"
VERSION = 1

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

# ------------------------------------------------------------------ pytree definitions
_PLAIN = {tuple: "tuple", list: "list", type(None): "none"}


def _tree_to_json(td) -> dict:
    nt = td.node_type
    children = [_tree_to_json(c) for c in td.children]
    if nt is None:
        return {"kind": "leaf"}
    if nt in _PLAIN:
        return {"kind": _PLAIN[nt], "children": children}
    if nt is dict:
        for k in td.aux:
            if not isinstance(k, str):
                raise ExportError("Serialization is supported only for dictionaries with "
                                  f"string keys. Found key {k!r} of type {type(k)}.")
        return {"kind": "dict", "keys": list(td.aux), "children": children}
    if nt in _serializers:
        name, ser = _serializers[nt]
        aux = ser(td.aux)
        if not isinstance(aux, (bytes, bytearray)):
            raise ExportError("The custom serialization function for `node_type` must "
                              f"return a `bytes` object. It returned a {type(aux)}.")
        return {"kind": "custom", "name": name, "aux": base64.b64encode(aux).decode(),
                "children": children}
    raise ExportError(f"Cannot serialize PyTreeDef containing an unregistered type `{nt}`.",
                      hint="use export.register_pytree_node_serialization or "
                           "export.register_namedtuple_serialization")


def _tree_from_json(d) -> Any:
    """A pytree of Nones of the serialized structure (None for each leaf position is
    replaced by a placeholder leaf object)."""
    kind = d["kind"]
    kids = [_tree_from_json(c) for c in d.get("children", ())]
    if kind == "leaf":
        return _LEAF
    if kind == "none":
        return None
    if kind == "tuple":
        return tuple(kids)
    if kind == "list":
        return kids
    if kind == "dict":
        return dict(zip(d["keys"], kids))
    if kind == "custom":
        if d["name"] not in _deserializers:
            raise ExportError(f"Cannot deserialize a PyTreeDef with a custom node named "
                              f"`{d['name']}` that has no registration",
                              hint="call export.register_pytree_node_serialization (or "
                                   "register_namedtuple_serialization) for it first")
        _, de, build = _deserializers[d["name"]]
        return build(de(base64.b64decode(d["aux"])), kids)
    raise ExportError(f"unknown pytree node kind {kind!r} in a serialized Exported")


class _Leaf:
    """The placeholder leaf of a deserialized pytree definition."""


_LEAF = _Leaf()


def _treedef(d):
    return tree_util.tree_structure(_tree_from_json(d), is_leaf=lambda x: x is _LEAF)

# ------------------------------------------------------------------ avals, effects


def _aval_to_json(a):
    return [list(a.shape), "float0" if a.dtype == _dtypes.float0 else np.dtype(a.dtype).name,
            bool(a.weak_type)]


def _aval_from_json(v):
    shape, dtype, weak = v
    return ShapedArray(shape, _dtypes.float0 if dtype == "float0" else _dtypes.dtype(dtype),
                       weak)


def _header(exp, vjp_order: int) -> dict:
    if exp.ordered_effects or exp.unordered_effects:
        raise ExportError("serialization of an Exported with effects is not supported")
    h = {"fun_name": exp.fun_name, "in_tree": _tree_to_json(exp.in_tree),
         "in_avals": [_aval_to_json(a) for a in exp.in_avals],
         "out_tree": _tree_to_json(exp.out_tree),
         "out_avals": [_aval_to_json(a) for a in exp.out_avals],
         "nr_devices": exp.nr_devices, "platforms": list(exp.platforms),
         "disabled_checks": [str(c) for c in exp.disabled_safety_checks],
         "calling_convention_version": exp.calling_convention_version,
         "module_kept_var_idx": list(exp.module_kept_var_idx),
         "uses_global_constants": bool(exp.uses_global_constants)}
    if vjp_order > 0:
        if not exp.has_vjp():
            raise ExportError("serialization of an Exported that does not have vjps of "
                              "high-enough order", loc=caller_location())
        h["vjp"] = base64.b64encode(serialize(exp.vjp(), vjp_order - 1)).decode()
    return h


def serialize(exp, vjp_order: int = 0) -> bytes:
    """`exp` as bytes (the format in this module's docstring), with `vjp_order`
    orders of its VJP."""
    header = json.dumps(_header(exp, vjp_order), separators=(",", ":")).encode()
    return (MAGIC + struct.pack("<II", VERSION, len(header)) + header
            + bytes(exp.mlir_module_serialized))


def read(blob) -> tuple[dict, bytes | None]:
    """The fields of the `Exported` that `serialize` wrote to `blob` (all but
    `_get_vjp`), and the serialized VJP it carries, or None."""
    blob = bytes(blob)
    if not blob.startswith(MAGIC):
        raise ExportError("not a serialized astjax Exported (the bytes do not start with "
                          f"{MAGIC!r}); JAX's flatbuffer format is not read by astjax",
                          hint="serialize with astjax (Exported.serialize)",
                          loc=caller_location())
    version, size = struct.unpack_from("<II", blob, len(MAGIC))
    if version > VERSION:
        raise ExportError(f"the Exported was serialized with format version {version}; "
                          f"this astjax reads versions up to {VERSION}",
                          hint="upgrade astjax", loc=caller_location())
    start = len(MAGIC) + 8
    h = json.loads(blob[start:start + size].decode())
    in_avals = tuple(_aval_from_json(v) for v in h["in_avals"])
    out_avals = tuple(_aval_from_json(v) for v in h["out_avals"])
    vjp_blob = h.get("vjp")
    fields = dict(
        fun_name=h["fun_name"], in_tree=_treedef(h["in_tree"]), in_avals=in_avals,
        out_tree=_treedef(h["out_tree"]), out_avals=out_avals,
        in_shardings_hlo=(None,) * len(in_avals), out_shardings_hlo=(None,) * len(out_avals),
        nr_devices=h["nr_devices"], platforms=tuple(h["platforms"]), ordered_effects=(),
        unordered_effects=(),
        disabled_safety_checks=tuple(DisabledSafetyCheck(c) for c in h["disabled_checks"]),
        mlir_module_serialized=blob[start + size:],
        calling_convention_version=h["calling_convention_version"],
        module_kept_var_idx=tuple(h["module_kept_var_idx"]),
        uses_global_constants=h["uses_global_constants"])
    return fields, None if vjp_blob is None else base64.b64decode(vjp_blob)
