"""Multi-device exports (`jax.export` of a `jit` with shardings over a 1-D or 2-D
mesh, of PartitionSpecs under `set_mesh`, of a `shard_map`), against what JAX 0.10.2
shows and computes (tests/oracle/export_sharded.json, recorded by
tests/oracle/record_export_sharded.py):

- astjax's export has JAX's `nr_devices`, stored shardings (NamedShardings over the
  AbstractMesh), `in_shardings_jax(mesh)` / `out_shardings_jax(mesh)`,
  `in_shardings_hlo` (None, and XLA's HloShardings once deserialized) and the
  module's `sdy.mesh` and `@main` sharding attributes;
- JAX's serialized artifacts load with the same fields and run under an astjax
  `jit` on a mesh of as many devices with JAX's values and result layouts, also
  under `grad` through the stored VJP; astjax's own artifacts, reloaded, run the same;
- a call on another number of devices is JAX's ValueError, with JAX's text."""
import base64
import contextlib
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import export
from astjax.export import serialization
from astjax.export.flatbuffer import Table, TableView, build

from oracle import record_export_sharded as rec

ORACLE = json.loads((Path(__file__).parent / "oracle" / "export_sharded.json").read_text())
NAMES = sorted(rec.CASES)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def _args(name):
    return [np.asarray(a, np.float32) for a in rec.CASES[name][2]]


def _texts(xs):
    return [None if x is None else str(x) for x in xs]


@pytest.fixture(scope="module")
def ours():
    """name -> (mesh, astjax's export of the case, that export serialized and read back)."""
    out = {}
    for name in NAMES:
        mesh = rec.mesh_of(jax, name)
        ctx = jax.set_mesh(mesh) if name == "pspec_under_mesh" else contextlib.nullcontext()
        with ctx:
            exp = export.export(rec.functions(jax, jnp, name, mesh))(*_args(name))
        out[name] = mesh, exp, export.deserialize(exp.serialize(vjp_order=1))
    return out


@pytest.fixture(scope="module")
def theirs():
    """name -> JAX's artifact of the case, deserialized."""
    return {name: export.deserialize(base64.b64decode(ORACLE[name]["artifact"]))
            for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_fields_as_jax(ours, name):
    want = ORACLE[name]
    mesh, exp, back = ours[name]
    assert exp.nr_devices == back.nr_devices == want["nr_devices"]
    assert _texts(exp.in_shardings_hlo) == want["in_shardings_hlo"]
    assert [repr(s) for s in exp._in_named_shardings] == want["named_in"]
    assert [repr(s) for s in exp._out_named_shardings] == want["named_out"]
    assert [repr(s) for s in exp.in_shardings_jax(mesh)] == want["in_shardings_jax"]
    assert [repr(s) for s in exp.out_shardings_jax(mesh)] == want["out_shardings_jax"]
    # the round trip keeps the stored shardings; XLA's view appears as in JAX
    assert (back._in_named_shardings, back._out_named_shardings) == (
        exp._in_named_shardings, exp._out_named_shardings)
    assert _texts(back.in_shardings_hlo) == want["deserialized_in_shardings_hlo"]
    assert _texts(back.out_shardings_hlo) == want["deserialized_out_shardings_hlo"]


@pytest.mark.parametrize("name", NAMES)
def test_vjp_layouts_as_jax(ours, name):
    mesh, exp, back = ours[name]
    want = ORACLE[name]
    for vjp in (exp.vjp(), back.vjp()):
        assert vjp.nr_devices == want["vjp_nr_devices"]
        assert [repr(s) for s in vjp.out_shardings_jax(mesh)] == want["vjp_out_shardings_jax"]
        assert [repr(s) for s in vjp.in_shardings_jax(mesh)] == want["vjp_in_shardings_jax"]


@pytest.mark.parametrize("name", NAMES)
def test_module_sharding_attributes_as_jax(ours, name):
    got = rec.module_summary(ours[name][1].mlir_module())
    want = ORACLE[name]["module"]
    assert got["meshes"] == want["meshes"]
    assert got["main"] == want["main"]
    assert got["module_attrs"] == want["module_attrs"]


@pytest.mark.parametrize("name", NAMES)
def test_jax_artifact_fields(theirs, name):
    want, exp = ORACLE[name], theirs[name]
    mesh = rec.mesh_of(jax, name)
    assert exp.nr_devices == want["nr_devices"]
    assert _texts(exp.in_shardings_hlo) == want["deserialized_in_shardings_hlo"]
    assert _texts(exp.out_shardings_hlo) == want["deserialized_out_shardings_hlo"]
    assert [repr(s) for s in exp.in_shardings_jax(mesh)] == want["in_shardings_jax"]
    assert [repr(s) for s in exp.out_shardings_jax(mesh)] == want["out_shardings_jax"]
    assert [repr(s) for s in exp.vjp().in_shardings_jax(mesh)] == want["vjp_in_shardings_jax"]
    assert [repr(s) for s in exp.vjp().out_shardings_jax(mesh)] == want["vjp_out_shardings_jax"]
    assert exp.vjp().nr_devices == want["vjp_nr_devices"]


def _placed(exp, name):
    """The case's arguments laid out by `exp.in_shardings_jax(mesh)` (whole on every
    device where unspecified), as the recorder lays them out."""
    mesh = rec.mesh_of(jax, name)
    return [jax.device_put(x, s or rec.replicated(jax, mesh))
            for x, s in zip(_args(name), exp.in_shardings_jax(mesh))]


def _check_results(leaves, want, specs_key="result_specs"):
    assert len(leaves) == len(want["result"])
    for got, w in zip(leaves, want["result"]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(w), rtol=2e-6, atol=2e-6)
    assert [str(r.sharding.spec) for r in leaves] == want[specs_key]


def _check_run(exp, name, grad=True):
    """`jit(exp.call)` -- and with `grad`, the gradient of its first result leaf's sum
    through the exported VJP -- on the case's arguments placed by `_placed`: JAX's
    values and layouts."""
    want, placed = ORACLE[name], _placed(exp, name)
    _check_results(jax.tree_util.tree_leaves(jax.jit(exp.call)(*placed)), want)
    if grad:
        def loss(a):
            return jax.tree_util.tree_leaves(exp.call(a, *placed[1:]))[0].sum()
        g = jax.jit(jax.grad(loss))(placed[0])
        np.testing.assert_allclose(np.asarray(g), np.asarray(want["grad"]), rtol=1e-5,
                                   atol=1e-6)
        assert str(g.sharding.spec) == want["grad_spec"]


@pytest.mark.parametrize("name", NAMES)
def test_jax_artifact_runs(theirs, name):
    _check_run(theirs[name], name)


# (JAX's artifacts above, under `grad` too; astjax's own, reloaded: the values and
# layouts, and the gradient of one)
@pytest.mark.parametrize("name", NAMES)
def test_astjax_artifact_runs(ours, name):
    _check_run(ours[name][2], name, grad=name == "mesh_2d")


@pytest.mark.parametrize("name", ["mesh_2d", "shard_map"])
def test_eager_call_on_arrays_over_the_mesh(theirs, name):
    exp = theirs[name]
    _check_results(jax.tree_util.tree_leaves(exp.call(*_placed(exp, name))), ORACLE[name],
                   "eager_result_specs")


@pytest.mark.parametrize("name", NAMES)
def test_called_on_another_number_of_devices(theirs, name):
    exp, want = theirs[name], ORACLE[name]
    cls, text = want["eager_numpy_error"]
    with pytest.raises(ValueError) as info:
        exp.call(*_args(name))
    assert cls == "ValueError" and info.value.message == text
    if want["jit_four_devices_error"] is not None:
        four = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("z",))
        spread = [jax.device_put(x, jax.sharding.NamedSharding(four, jax.sharding.PartitionSpec()))
                  for x in _args(name)]
        cls, text = want["jit_four_devices_error"]
        with pytest.raises(ValueError) as info:
            jax.jit(exp.call)(*spread)
        assert cls == "ValueError" and info.value.message == text


def test_a_mesh_of_other_axes_is_refused(ours):
    mesh, exp, _ = ours["mesh_1d"]
    other = jax.sharding.Mesh(mesh.devices, ("y",))
    with pytest.raises(ValueError, match="does not match the mesh used for export"):
        exp.in_shardings_jax(other)


def test_hlo_shardings_of_older_artifacts(ours):
    """JAX's artifacts from before it stored named shardings carry HloSharding protos
    only: read as jaxlib's HloShardings, put on a mesh as JAX puts them; an Exported
    without named shardings is not serialized again (JAX's error)."""
    mesh, exp, back = ours["mesh_2d"]
    older = dataclasses.replace(back, _has_named_shardings=False,
                                _in_named_shardings=(None, None), _out_named_shardings=(None,))
    assert older.in_shardings_jax(mesh) == exp.in_shardings_jax(mesh)
    assert older.out_shardings_jax(mesh) == exp.out_shardings_jax(mesh)
    hlo = back.in_shardings_hlo[1]
    table = TableView.root(build(Table({1: hlo.to_proto().SerializeToString()})))
    assert str(serialization._sharding(table, [])) == str(hlo) == "{devices=[2,2]<=[2,2]T(1,0)}"
    with pytest.raises(ValueError, match="must have named shardings"):
        older.serialize()


def test_gspmd_exports_and_calls(ours, gspmd):
    """Under GSPMD the module carries `mhlo.sharding` attributes and runs the same; a
    module with Shardy meshes is refused there (JAX's error)."""
    name = "mesh_2d"
    mesh = rec.mesh_of(jax, name)
    exp = export.export(rec.functions(jax, jnp, name, mesh))(*_args(name))
    text = exp.mlir_module()
    assert "sdy." not in text and 'mhlo.sharding = "{devices=[2,2]0,2,1,3}"' in text
    _check_run(export.deserialize(exp.serialize()), name, grad=False)
    with pytest.raises(ValueError, match="exported with shardy enabled but you are calling it "
                                         "with Shardy disabled"):
        _check_run(ours[name][1], name, grad=False)


def test_shape_dtype_structs_with_a_sharding():
    """An argument given as a ShapeDtypeStruct with a sharding is laid out by it."""
    want = ORACLE["_spec_sharding"]
    exp = rec.spec_sharding_export(jax, export)
    assert [repr(s) for s in exp._in_named_shardings] == want["named_in"]
    assert [repr(s) for s in exp._out_named_shardings] == want["named_out"]
    assert rec.module_summary(exp.mlir_module()) == want["module"]
