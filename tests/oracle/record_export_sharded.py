"""Multi-device exports by JAX 0.10.2 (`jax.export` of a `jit` with shardings, or of
a `shard_map`), stored for tests/test_export_sharded.py: the serialized artifacts
(which astjax must load and run) and what JAX shows of them.

Each case: a name, a function of `(jax, jnp, mesh)` returning the jitted function,
the mesh (axis sizes and names, over the first devices, Auto axes) and the
arguments. Run with JAX 0.10.2, 4 CPU devices and the `flatbuffers` package:

    XLA_FLAGS=--xla_force_host_platform_device_count=4 PYTHONPATH=<flatbuffers dir> \\
        /work/jaxref/bin/python tests/oracle/record_export_sharded.py

writes export_sharded.json: per case the base64 artifact (`vjp_order=1`),
`nr_devices`, `in_shardings_hlo` of the export and of its deserialization (as
text), `in_shardings_jax(mesh)` / `out_shardings_jax(mesh)` (repr), the module's
`sdy.mesh` line and `@main` signature, the result leaves of `jit(exp.call)` on
arguments laid out by `in_shardings_jax(mesh)` with their shardings' specs (and
those of an eager `exp.call` on them), the
gradient of the first result leaf's sum, and the errors JAX gives for calls on
another number of devices; and under "_spec_sharding" the stored shardings and module
of `spec_sharding_export`.
"""
import base64
import json
import re
import sys
from pathlib import Path

import numpy as np

A8 = (np.arange(8, dtype=np.float32) / 4 - 1).tolist()
M44 = (np.arange(16, dtype=np.float32).reshape(4, 4) / 8 - 1).tolist()
M42 = (np.arange(8, dtype=np.float32).reshape(4, 2) / 3).tolist()

# name -> (mesh axis sizes, mesh axis names, arguments)
CASES = {
    "mesh_1d": ((2,), ("x",), [A8, A8]),
    "mesh_2d": ((2, 2), ("x", "y"), [M44, M44]),
    "partial_replicated": ((2, 2), ("x", "y"), [M42]),
    "pspec_under_mesh": ((4,), ("x",), [A8]),
    "shard_map": ((4,), ("x",), [A8]),
    "explicit_axes": ((2, 2), ("x", "y"), [M44]),
}


def mesh_of(jax, name):
    """The mesh of case `name`: its first devices, Auto axes ("explicit_axes":
    Explicit, as `jax.make_mesh` makes them by default)."""
    sizes, names, _ = CASES[name]
    n = int(np.prod(sizes))
    kind = jax.sharding.AxisType.Explicit if name == "explicit_axes" else \
        jax.sharding.AxisType.Auto
    return jax.sharding.Mesh(np.array(jax.devices()[:n]).reshape(sizes), names,
                             axis_types=(kind,) * len(names))


def replicated(jax, mesh):
    """Where an argument the export leaves unspecified is put: whole on every device
    of the mesh (a one-device array would make the call's program one-device)."""
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())


def functions(jax, jnp, name, mesh):
    """The jitted function of case `name` over `mesh` (`set_mesh` is entered by the
    caller for "pspec_under_mesh")."""
    NS, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    if name == "mesh_1d":
        return jax.jit(lambda x, y: (jnp.sin(x) * y, (x * y).sum()),
                       in_shardings=(NS(mesh, P("x")), NS(mesh, P())),
                       out_shardings=(NS(mesh, P("x")), None))
    if name == "mesh_2d":
        return jax.jit(lambda a, b: jnp.tanh(a @ b) + a,
                       in_shardings=(NS(mesh, P("x", "y")), NS(mesh, P("y", "x"))),
                       out_shardings=NS(mesh, P(None, "y")))
    if name == "partial_replicated":
        return jax.jit(lambda a: {"c": jnp.cos(a) * 3, "s": a.sum(0)},
                       in_shardings=NS(mesh, P("x")))
    if name == "pspec_under_mesh":
        return jax.jit(lambda x: jnp.exp(x) - x, in_shardings=P("x"), out_shardings=P("x"))
    if name == "explicit_axes":   # (the result's layout comes from its type)
        return jax.jit(lambda a: jnp.sin(a) * 2 + 1, in_shardings=NS(mesh, P("x", "y")))
    if name == "shard_map":
        return jax.jit(jax.shard_map(lambda v: jax.lax.psum(jnp.sin(v), "x") * 2, mesh=mesh,
                                     in_specs=P("x"), out_specs=P()))
    raise KeyError(name)


def module_summary(text):
    """The module's `sdy.mesh` declarations and `@main`'s signature line, without
    source locations (JAX prints them) and the copy of each mesh that jaxlib's
    serializer adds as a `stablehlo.mesh` attribute."""
    text = re.sub(r" loc\([^()]*\)", "", text)
    text = re.sub(r" \{stablehlo\.mesh = \{axes = \[[^]]*\]\}\}", "", text)
    meshes = re.findall(r"^\s*(sdy\.mesh @\S+ = .*)$", text, re.M)
    main = re.search(r"func\.func public @main\((.*)$", text, re.M)
    attrs = re.search(r"^module @\S+ attributes \{(.*)\} \{$", text, re.M)
    return {"meshes": meshes, "main": main.group(1) if main else None,
            "module_attrs": attrs.group(1) if attrs else None}


def _spec(s):
    return None if s is None else str(s.spec)


def _error(f):
    try:
        f()
    except Exception as e:   # noqa: BLE001 (recording the class and text JAX raises)
        return [type(e).__name__, str(e).splitlines()[0]]
    return None


def record_case(jax, jnp, export, name):
    sizes, names, args = CASES[name]
    mesh = mesh_of(jax, name)
    xs = [np.asarray(a, np.float32) for a in args]
    with jax.set_mesh(mesh) if name == "pspec_under_mesh" else _nothing():
        exp = export.export(functions(jax, jnp, name, mesh))(*xs)
    blob = exp.serialize(vjp_order=1)
    back = export.deserialize(blob)
    ins = back.in_shardings_jax(mesh)
    placed = [jax.device_put(x, s or replicated(jax, mesh)) for x, s in zip(xs, ins)]
    res = jax.jit(back.call)(*placed)
    leaves = jax.tree_util.tree_leaves(res)

    def loss(a):
        return jax.tree_util.tree_leaves(back.call(a, *placed[1:]))[0].sum()
    grad = jax.jit(jax.grad(loss))(placed[0])
    four = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("z",))
    spread = [jax.device_put(x, jax.sharding.NamedSharding(four, jax.sharding.PartitionSpec()))
              for x in xs]
    return {
        "artifact": base64.b64encode(blob).decode(),
        "nr_devices": exp.nr_devices,
        "in_shardings_hlo": [None if s is None else str(s) for s in exp.in_shardings_hlo],
        "deserialized_in_shardings_hlo": [None if s is None else str(s)
                                          for s in back.in_shardings_hlo],
        "deserialized_out_shardings_hlo": [None if s is None else str(s)
                                           for s in back.out_shardings_hlo],
        "in_shardings_jax": [repr(s) for s in exp.in_shardings_jax(mesh)],
        "out_shardings_jax": [repr(s) for s in exp.out_shardings_jax(mesh)],
        "named_in": [repr(s) for s in exp._in_named_shardings],
        "named_out": [repr(s) for s in exp._out_named_shardings],
        "module": module_summary(exp.mlir_module()),
        "result": [np.asarray(r).tolist() for r in leaves],
        "result_specs": [_spec(r.sharding) for r in leaves],
        "eager_result_specs": [_spec(r.sharding)
                               for r in jax.tree_util.tree_leaves(back.call(*placed))],
        "grad": np.asarray(grad).tolist(),
        "grad_spec": _spec(grad.sharding),
        "eager_numpy_error": _error(lambda: back.call(*xs)),
        "jit_four_devices_error": (None if exp.nr_devices == 4 else
                                   _error(lambda: jax.jit(back.call)(*spread))),
        "vjp_nr_devices": back.vjp().nr_devices,
        "vjp_in_shardings_jax": [repr(s) for s in back.vjp().in_shardings_jax(mesh)],
        "vjp_out_shardings_jax": [repr(s) for s in back.vjp().out_shardings_jax(mesh)],
    }


def spec_sharding_export(jax, export):
    """An export whose first argument is a ShapeDtypeStruct with a sharding (over
    the mesh of "mesh_2d"): JAX lays that argument out by it."""
    mesh = mesh_of(jax, "mesh_2d")
    spec = jax.ShapeDtypeStruct((4, 4), np.float32, sharding=jax.sharding.NamedSharding(
        mesh, jax.sharding.PartitionSpec("x", "y")))
    return export.export(jax.jit(lambda a, b: a @ b))(spec, np.zeros((4, 4), np.float32))


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def main():
    import jax
    import jax.numpy as jnp
    from jax import export
    assert jax.__version__ == "0.10.2", jax.__version__
    assert jax.device_count() >= 4, "run with --xla_force_host_platform_device_count=4"
    out = {name: record_case(jax, jnp, export, name) for name in CASES}
    exp = spec_sharding_export(jax, export)
    out["_spec_sharding"] = {"named_in": [repr(s) for s in exp._in_named_shardings],
                             "named_out": [repr(s) for s in exp._out_named_shardings],
                             "module": module_summary(exp.mlir_module())}
    path = Path(__file__).with_name("export_sharded.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {len(out)} cases")


if __name__ == "__main__":
    sys.exit(main())
