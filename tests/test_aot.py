"""The ahead-of-time stages (`jit(f).trace` -> `Traced`, `.lower()` -> `Lowered`,
`.compile()` -> `Compiled`) and `ShapeDtypeStruct`, against what JAX 0.10.2 returns
for the same program (values recorded with /work/jaxref, noted beside each check)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import stages
from astjax.errors import AstjaxError


def f(x, y):
    return jnp.sin(x) @ y


X, Y = jnp.ones((3, 4)), jnp.ones((4, 2))


def test_trace_gives_jaxpr_and_output_info():
    t = jax.jit(f).trace(X, Y)
    assert isinstance(t, stages.Traced)
    assert str(t.jaxpr).splitlines()[:2] == [
        "{ lambda ; a:f32[3,4] b:f32[4,2]. let", "    c:f32[3,4] = sin a"]
    assert t.fun_name == "f"
    assert t.out_info == jax.ShapeDtypeStruct((3, 2), jnp.float32)
    assert str(t.in_tree) == "PyTreeDef(((*, *), {}))"
    (a, b), kw = t.args_info
    assert (a.shape, a.dtype, a.donated, b.shape, kw) == ((3, 4), np.float32, False, (4, 2), {})
    low = t.lower()
    assert isinstance(low, stages.Lowered)
    np.testing.assert_allclose(low.compile()(X, Y), np.full((3, 2), 4 * np.sin(1.0)),
                               rtol=1e-6)


def test_trace_of_the_aot_tutorial():
    # JAX: { lambda ; a:i32[] b:i32[]. let c:i32[] = mul 2:i32[] a; d:i32[] = add c b in (d,) }
    def g(x, y):
        return 2 * x + y
    t = jax.jit(g).trace(3, 4)
    assert "mul 2:i32[] a" in str(t.jaxpr) and "add c b" in str(t.jaxpr)
    assert int(t.lower().compile()(3, 4)) == 10


def test_lowered_text_and_compiler_ir():
    low = jax.jit(f).lower(X, Y)
    text = low.as_text()
    assert "stablehlo.sine" in text and text == low.as_text("stablehlo")
    ir = low.compiler_ir()            # an MLIR module object, as JAX's
    assert type(ir).__name__ == "Module" and "stablehlo.sine" in str(ir)
    assert str(low.compiler_ir("stablehlo")) == str(ir)
    hlo = low.compiler_ir(dialect="hlo").as_hlo_text()   # what optax's numerics_test reads
    assert hlo.startswith("HloModule jit_f") and " sine(" in hlo
    assert low.as_text(dialect="hlo") == hlo
    with pytest.raises(ValueError) as e:
        low.as_text("mhlo")
    assert isinstance(e.value, AstjaxError)


def test_compiled_text_costs_memory_and_shardings():
    low = jax.jit(f).lower(X, Y)
    c = low.compile()
    assert isinstance(c, stages.Compiled)
    # optimized HLO (scheduled), not the StableHLO module
    assert c.as_text().startswith("HloModule jit_f, is_scheduled=true")
    # JAX 0.10.2: {'bytes accessed': 200.0, 'flops': 48.0, 'transcendentals': 12.0, ...}
    costs = c.cost_analysis()
    assert isinstance(costs, dict)
    assert (costs["flops"], costs["transcendentals"], costs["bytes accessed"]) == (48., 12., 200.)
    pre = low.cost_analysis()
    assert (pre["flops"], pre["transcendentals"], pre["bytes accessed"]) == (48., 12., 200.)
    # JAX 0.10.2: argument_size_in_bytes=80, output_size_in_bytes=24, temp_size_in_bytes=48
    mem = c.memory_analysis()
    assert (mem.argument_size_in_bytes, mem.output_size_in_bytes) == (80, 24)
    (sa, sb), kw = c.input_shardings
    assert sa.device_set == {jax.devices()[0]} and sb == sa and kw == {}
    assert c.output_shardings.device_set == {jax.devices()[0]}
    assert c.out_info.shape == (3, 2)


def test_compiled_rejects_other_signatures():
    c = jax.jit(f).lower(X, Y).compile()
    with pytest.raises(TypeError):
        c(X, jnp.ones((4, 3)))


def test_lower_with_shape_dtype_structs_and_donation():
    def g(a, b):
        return a * 2 + b
    s = jax.ShapeDtypeStruct((2,), jnp.float32)
    low = jax.jit(g, donate_argnums=0).lower(s, s)
    (a, b), _ = low.args_info
    assert (a.donated, b.donated) == (True, False)
    assert low.donate_argnums == (0,)
    np.testing.assert_allclose(low.compile()(jnp.ones(2), jnp.ones(2)), [3., 3.])


def test_shape_dtype_struct():
    s = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert (s.ndim, s.size, len(s), s.sharding) == (2, 6, 2, None)
    assert repr(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
    w = jax.ShapeDtypeStruct((), jnp.float32, weak_type=True)
    assert repr(w) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    assert w != jax.ShapeDtypeStruct((), jnp.float32)
    assert jax.ShapeDtypeStruct.like(jnp.ones((4,), jnp.int32)) == jax.ShapeDtypeStruct(
        (4,), jnp.int32)
    with pytest.raises(AttributeError):
        s.shape = (1,)
    with pytest.raises(TypeError):
        len(jax.ShapeDtypeStruct((), jnp.float32))
    assert jax.eval_shape(lambda x: x * 2., 1.) == w


@pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices (conftest.py)")
def test_stages_of_a_partitioned_program():
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    s = NamedSharding(mesh, P("x", "y"))
    x = jax.device_put(jnp.ones((4, 4)), s)
    c = jax.jit(lambda a: jnp.sin(a) * 2).lower(x).compile()
    (arg,), _ = c.input_shardings
    assert arg.spec == P("x", "y") and c.output_shardings.spec == P("x", "y")
    # per-device program: f32[2,2] shards
    assert "f32[2,2]" in c.as_text().splitlines()[0]
    assert c.memory_analysis().argument_size_in_bytes == 16
    np.testing.assert_allclose(c(x), np.full((4, 4), 2 * np.sin(1.0)), rtol=1e-6)
