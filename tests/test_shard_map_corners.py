"""shard_map corner cases, each checked against JAX 0.10.2 (its lowered text and
results were read with the real JAX on this machine):

- every manual axis of size 1 (a one-device mesh, or axis_names= a size-1 axis): the
  body is lowered in place, without Shardy's `sdy.manual_computation` or GSPMD's
  full-to-shard custom calls, so a host callback in it compiles and runs (XLA has no
  host rule for `xla.sdy.GlobalToLocalShape`);
- on an all-Explicit mesh, an in_spec naming a size-1 axis must match the argument's
  type as it is (JAX's ValueError) unless `jax_remove_size_one_mesh_axis_from_type`;
- a host callback's results inside a `check_vma` body are typed invariant (no varying
  axes), as JAX types them: a loop carry or cond branch mixing them with varying
  values is JAX's TypeError."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.experimental import io_callback
from astjax.sharding import AxisType, NamedSharding
from astjax.sharding import PartitionSpec as P


def _one_device_mesh(axis_types=(AxisType.Auto,)):
    return astjax.make_mesh((1,), ("x",), devices=astjax.devices()[:1], axis_types=axis_types)


def _doubling_io(calls, ordered):
    def io(x):
        def host(a):
            calls.append(np.asarray(a))
            return np.asarray(a) * 2
        return io_callback(host, astjax.ShapeDtypeStruct(x.shape, x.dtype), x, ordered=ordered)
    return io


@pytest.mark.parametrize("lowering", ["shardy", "gspmd"])
@pytest.mark.parametrize("ordered", [False, True])
def test_callback_in_one_device_shard_map_runs_without_manual_computation(
        ordered, lowering, request):
    if lowering == "gspmd":
        request.getfixturevalue("gspmd")
    calls = []
    f = astjax.jit(astjax.shard_map(_doubling_io(calls, ordered), mesh=_one_device_mesh(),
                                    in_specs=P("x"), out_specs=P("x")))
    text = f.lower(jnp.ones(2)).as_text()
    # JAX's structure: the callback straight in @main (tokens threaded when ordered)
    assert "manual_computation" not in text and "SPMDFullToShardShape" not in text
    assert "xla_ffi_python_cpu_callback" in text
    assert ("!stablehlo.token" in text) == ordered
    out = f(jnp.ones(2))
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])
    assert len(calls) == 1


def test_debug_callback_in_one_device_shard_map_runs():
    seen = []

    def body(x):
        astjax.debug.callback(lambda v: seen.append(np.asarray(v)), x)
        return x + 1
    f = astjax.jit(astjax.shard_map(body, mesh=_one_device_mesh(), in_specs=P("x"),
                                    out_specs=P("x")))
    np.testing.assert_array_equal(np.asarray(f(jnp.arange(2.0))), [1.0, 2.0])
    np.testing.assert_array_equal(seen[0], [0.0, 1.0])


def test_size_one_manual_axis_of_a_larger_mesh_lowered_in_place():
    mesh = astjax.make_mesh((2, 1), ("x", "y"), devices=astjax.devices()[:2],
                            axis_types=(AxisType.Auto,) * 2)

    def body(x):
        return astjax.lax.psum(x, "y") + astjax.lax.axis_index("y")
    f = astjax.jit(astjax.shard_map(body, mesh=mesh, in_specs=P("y"), out_specs=P("y"),
                                    axis_names={"y"}))
    text = f.lower(jnp.arange(4.0)).as_text()
    assert "sdy.manual_computation(%arg0)" not in text   # (JAX: no manual computation)
    np.testing.assert_array_equal(np.asarray(f(jnp.arange(4.0))), [0.0, 1.0, 2.0, 3.0])


def test_explicit_size_one_in_spec_must_match_the_argument_type_as_jax():
    calls = []
    mesh = _one_device_mesh(axis_types=(AxisType.Explicit,))
    f = astjax.jit(astjax.shard_map(_doubling_io(calls, False), mesh=mesh, in_specs=P("x"),
                                    out_specs=P("x")))
    with pytest.raises(ValueError, match=r"in_specs passed to shard_map: P\('x',\) does not "
                                         r"match the specs of the input: P\(None,\)"):
        f(jnp.ones(2))
    placed = astjax.device_put(jnp.ones(2), NamedSharding(mesh, P("x")))
    out = f(placed)
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])
    assert out.sharding.spec == P("x")
    with astjax.remove_size_one_mesh_axis_from_type(True):
        g = astjax.jit(astjax.shard_map(_doubling_io(calls, False), mesh=mesh,
                                        in_specs=P("x"), out_specs=P("x")))
        np.testing.assert_array_equal(np.asarray(g(jnp.ones(2))), [2.0, 2.0])


# ---------------------------------------------------------------- callbacks' types

def _two_device_mesh():
    return astjax.make_mesh((2,), ("x",), devices=astjax.devices()[:2],
                            axis_types=(AxisType.Auto,))


def _same(x):
    return astjax.ShapeDtypeStruct(x.shape, x.dtype)


CALLBACKS = {
    "io_callback": lambda x: io_callback(lambda v: np.asarray(v), _same(x), x),
    "io_callback_ordered": lambda x: io_callback(lambda v: np.asarray(v), _same(x), x,
                                                 ordered=True),
    "pure_callback": lambda x: astjax.pure_callback(lambda v: np.asarray(v), _same(x), x),
    "pure_callback_sequential": lambda x: astjax.pure_callback(
        lambda v: np.asarray(v), _same(x), x, vmap_method="sequential"),
}


@pytest.mark.parametrize("name", sorted(CALLBACKS))
def test_callback_result_typed_invariant_in_a_check_vma_body(name):
    types = {}

    def body(x):
        types["x"], types["r"] = str(astjax.typeof(x)), str(astjax.typeof(CALLBACKS[name](x)))
        return x
    mesh = _two_device_mesh() if name != "io_callback_ordered" else _one_device_mesh()
    astjax.jit(astjax.shard_map(body, mesh=mesh, in_specs=P("x"),
                                out_specs=P("x")))(jnp.ones(4))
    assert types["x"].endswith("{V:x}")
    assert types["r"] == types["x"][:-len("{V:x}")]   # (JAX: f32[...] without {V:x})


def _mixing(kind, x, a):
    lax = astjax.lax
    if kind == "while_loop":
        return lax.while_loop(lambda c: False, lambda c: c + x, a)
    if kind == "scan":
        return lax.scan(lambda c, _: (c + x, None), a, None, length=2)[0]
    if kind == "fori_loop":
        return lax.fori_loop(0, 2, lambda i, c: c + x, a)
    return lax.cond(True, lambda: a, lambda: x)


@pytest.mark.parametrize("kind,message", [
    ("while_loop", "while_loop body function carry input and carry output must have equal "
                   "types"),
    ("scan", "scan body function carry input and carry output must have equal types"),
    ("fori_loop", "scan body function carry input and carry output must have equal types"),
    ("cond", "cond branches must have equal output types")])
@pytest.mark.parametrize("name", ["io_callback", "pure_callback"])
def test_callback_result_mixed_with_varying_values_is_jax_type_error(name, kind, message):
    def body(x):
        return _mixing(kind, x, CALLBACKS[name](x))
    f = astjax.jit(astjax.shard_map(body, mesh=_two_device_mesh(), in_specs=P("x"),
                                    out_specs=P("x")))
    with pytest.raises(TypeError, match=message) as info:
        f(jnp.ones(4))
    assert "float32[2] but the corresponding output" in str(info.value)
    assert "float32[2]{V:x}" in str(info.value)


def test_callback_result_may_be_returned_replicated():
    def body(x):
        return astjax.pure_callback(lambda v: np.asarray(v) * 0 + 3, _same(x), x)
    f = astjax.jit(astjax.shard_map(body, mesh=_two_device_mesh(), in_specs=P("x"),
                                    out_specs=P()))
    np.testing.assert_array_equal(np.asarray(f(jnp.arange(4.0))), [3.0, 3.0])
