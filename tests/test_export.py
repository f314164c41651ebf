"""`astjax.export` (issue 13): export -> serialize -> deserialize -> call equals the
function; the module is StableHLO; calls inside `jit`, under `grad` (the exported
VJP) and in another process; JAX's errors where the contract is broken."""
import collections
import subprocess
import sys

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import export


def f(x, y):
    return {"s": jnp.sin(x) * 2 + y.sum(), "c": jnp.cos(x)}


X = np.arange(3.0, dtype=np.float32)
Y = np.ones(2, np.float32)
EXP = export.export(jax.jit(f))(X, jax.ShapeDtypeStruct((2,), jnp.float32))


def _close(a, b):
    for u, v in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-6)


def test_fields():
    assert EXP.fun_name == "f"
    assert [str(a) for a in EXP.in_avals] == ["float32[3]", "float32[2]"]
    assert [str(a) for a in EXP.out_avals] == ["float32[3]", "float32[3]"]
    assert EXP.in_tree == jax.tree_util.tree_structure(((X, Y), {}))
    assert EXP.out_tree == jax.tree_util.tree_structure({"s": 0, "c": 0})
    assert EXP.platforms == (export.default_export_platform(),) == ("cpu",)
    assert EXP.module_kept_var_idx == (0, 1) and EXP.nr_devices == 1
    assert EXP.calling_convention_version == export.maximum_supported_calling_convention_version
    assert EXP.in_shardings_hlo == (None, None) and not EXP.uses_global_constants
    assert EXP.mlir_module_serialized.startswith(b"ML\xefR")   # MLIR bytecode (VHLO)


def test_module_is_stablehlo():
    text = EXP.mlir_module()
    assert "func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<2xf32>)" in text
    assert "stablehlo.sine" in text and "jax.result_info = \"result['s']\"" in text
    module = EXP.mlir_module(serialized=False)   # jaxlib's MLIR Module
    assert [op.operation.name for op in module.body.operations] == ["func.func"]


def test_round_trip_and_calls():
    want = f(X, Y)
    _close(EXP.call(X, Y), want)
    back = export.deserialize(EXP.serialize())
    assert back.in_avals == EXP.in_avals and back.out_tree == EXP.out_tree
    _close(back.call(X, Y), want)
    _close(jax.jit(lambda a, b: back.call(a, b)["s"] * 3)(X, Y), want["s"] * 3)


def test_grad_through_exported_vjp():
    want = 2 * np.cos(X)
    _close(jax.grad(lambda a: EXP.call(a, Y)["s"].sum())(X), want)
    with_vjp = export.deserialize(EXP.serialize(vjp_order=1))
    _close(jax.jit(jax.grad(lambda a: with_vjp.call(a, Y)["s"].sum()))(X), want)
    no_vjp = export.deserialize(EXP.serialize())
    assert not no_vjp.has_vjp()
    with pytest.raises(ValueError, match="No VJP is available"):
        jax.grad(lambda a: no_vjp.call(a, Y)["s"].sum())(X)


def test_unused_argument_dropped_and_weak_scalar():
    e = export.export(jax.jit(lambda x, unused, z: x + z))(1.0, Y, Y)
    assert e.module_kept_var_idx == (0, 2) and e.in_avals[0].weak_type
    _close(e.call(1.0, np.zeros(2, np.float32), Y), [2.0, 2.0])


def test_multi_platform_module():
    e = export.export(jax.jit(jnp.sin), platforms=("cuda", "cpu"))(X)
    assert e.uses_global_constants and e.platforms == ("cuda", "cpu")
    assert "_platform_index" in e.mlir_module() and "stablehlo.case" in e.mlir_module()
    _close(jax.jit(export.deserialize(e.serialize()).call)(X), np.sin(X))


def test_errors():
    with pytest.raises(ValueError, match="Dtype mismatch for args\\[0\\]"):
        EXP.call(X.astype(np.int32), Y)
    with pytest.raises(ValueError, match="Shape mismatch"):
        EXP.call(np.ones(4, np.float32), Y)
    with pytest.raises(ValueError, match="same pytree structure"):
        EXP.call(X)
    with pytest.raises(ValueError, match="exported for platforms"):
        export.export(jax.jit(jnp.sin), platforms=("tpu",))(X).call(X)
    with pytest.raises(ValueError, match="must be the result of `jit`"):
        export.export(lambda x: x)(X)
    with pytest.raises(NotImplementedError, match="call_exported"):
        jax.vmap(lambda a: EXP.call(a, Y)["c"])(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="not a serialized Exported"):
        export.deserialize(b"garbage")


def _printing(x):
    jax.debug.print("x {}", x)
    return x


def test_host_callback_refused():
    with pytest.raises(ValueError, match="host callbacks"):
        export.export(jax.jit(_printing))(X)


Point = collections.namedtuple("Point", ["x", "y"])


def test_namedtuple_serialization():
    e = export.export(jax.jit(lambda p: Point(p.y, p.x)))(Point(X, Y))
    with pytest.raises(ValueError, match="unregistered type"):
        e.serialize()
    export.register_namedtuple_serialization(Point, serialized_name="test_export.Point")
    back = export.deserialize(e.serialize())
    out = back.call(Point(X, Y))
    assert isinstance(out, Point)
    _close(out, Point(Y, X))
    with pytest.raises(ValueError, match="Duplicate serialization"):
        export.register_namedtuple_serialization(Point, serialized_name="other")


def test_disabled_checks():
    assert str(export.DisabledSafetyCheck.custom_call("foo")) == "custom_call:foo"
    assert export.DisabledSafetyCheck.custom_call("foo").is_custom_call() == "foo"
    assert export.DisabledSafetyCheck.platform().is_custom_call() is None
    e = export.export(jax.jit(jnp.sin), platforms=("tpu",),
                      disabled_checks=[export.DisabledSafetyCheck.platform()])(X)
    _close(e.call(X), np.sin(X))   # (the program is the same StableHLO on CPU)


def test_round_trip_in_another_process(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(EXP.serialize())
    code = ("import numpy as np, astjax\nfrom astjax import export\n"
            f"e = export.deserialize(open({str(path)!r}, 'rb').read())\n"
            "r = e.call(np.arange(3.0, dtype=np.float32), np.ones(2, np.float32))\n"
            "print(repr(np.asarray(r['s']).tolist()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    np.testing.assert_allclose(eval(out), np.asarray(f(X, Y)["s"]), rtol=1e-6)


def _scaled(x, n):
    return x * n, n * 2


def test_integer_arguments_and_results_under_grad():
    # the VJP takes a float0 cotangent for the int result and returns a float0 one
    # for the int argument (typed i1 in the module, as JAX types float0)
    e = export.export(jax.jit(_scaled))(X, np.int32(3))
    vjp = e.vjp()
    assert [str(a.dtype) for a in vjp.out_avals][1] == str(np.dtype(jax.float0))
    assert "tensor<i1>" in vjp.mlir_module()
    for exp in (e, export.deserialize(e.serialize(vjp_order=1))):
        g = jax.jit(jax.grad(lambda a: exp.call(a, np.int32(3))[0].sum()))(X)
        np.testing.assert_allclose(g, [3.0, 3.0, 3.0])


def test_served_as_jax_modules(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("import numpy as np, jax, jax.numpy as jnp\nimport jax.export\n"
                    "from jax import profiler\n"
                    "e = jax.export.export(jax.jit(jnp.cos))(np.zeros(2, np.float32))\n"
                    "print(jax.export.deserialize(e.serialize()).call(np.zeros(2, np.float32)),"
                    " jax.memory.Space.Device, profiler.trace.__module__)\n")
    out = subprocess.run([sys.executable, "-m", "astjax", "run", str(prog)], check=True,
                         capture_output=True, text=True).stdout
    assert out.split() == ["[1.", "1.]", "MemorySpace.Device", "astjax.profiler"]


def test_sharded_functions():
    one = jax.sharding.NamedSharding(jax.make_mesh((1,), ("x",)), jax.sharding.PartitionSpec("x"))
    f = jax.jit(lambda x: jnp.sin(x) * 2, in_shardings=one, out_shardings=one)
    e = export.deserialize(export.export(f)(X).serialize(vjp_order=1))
    _close(e.call(X), np.sin(X) * 2)                  # a one-device mesh: as one device
    _close(jax.grad(lambda a: e.call(a).sum())(X), 2 * np.cos(X))
    # (several devices: tests/test_export_sharded.py)


def _twice_sin(x):
    return SIN.call(x) * 2


SIN = export.export(jnp.sin)(X)


def test_generated_source_round_trips():
    src = jax.source(jax.jit(_twice_sin), X)
    assert "call_exported_p.bind(x, exported=exported)" in src
    fn = jax.source_function(jax.jit(_twice_sin), X)
    _close(jax.jit(fn)(X), np.sin(X) * 2)


def _scale(x, n):
    return x * n


def test_static_arguments_are_not_part_of_the_call():
    # as in JAX: the export is of the dynamic arguments; calling with the static one
    # is a different pytree structure
    e = export.export(jax.jit(_scale, static_argnums=1))(X, 3)
    assert len(e.in_avals) == 1
    _close(e.call(X), X * 3)
    with pytest.raises(ValueError, match="same pytree structure"):
        e.call(X, 3)
