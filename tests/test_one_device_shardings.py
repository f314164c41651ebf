"""One-device shardings as JAX 0.10.2 gives them (recorded with real JAX on 8 CPU
devices; the expected values below are JAX's):

- a `with_sharding_constraint` to a `SingleDeviceSharding` runs on that device, eagerly
  or under `jit`, and its result is committed there;
- a `NamedSharding` over a one-device mesh stays a `NamedSharding` (device_put, eager
  operations, `jit`, `shard_map`), its spec as JAX writes it (`P(None,)`);
- a result whose layout XLA chooses keeps the first argument's layout when equivalent;
- an eager callback's result is placed on its operands' devices (`GSPMDSharding`
  maximal on several devices).
"""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.callbacks_api import io_callback
from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding
from astjax import shard_map

pytestmark = pytest.mark.skipif(len(jax.devices()) < 2, reason="needs 2 devices")


def _mesh(n):
    return Mesh(np.array(jax.devices()[:n]), ("model",))


def _spec(a):
    return repr(a.sharding.spec)


def _constrain(a):
    return lax.with_sharding_constraint(a * 2, SingleDeviceSharding(jax.devices()[1]))


def _constrain0(a):
    return lax.with_sharding_constraint(a, SingleDeviceSharding(jax.devices()[0]))


@pytest.mark.parametrize("dev", [0, 1])
def test_single_device_constraint_eager(dev):
    """JAX: the value, SingleDeviceSharding(device dev), committed."""
    x = jnp.ones((2, 2))
    r = lax.with_sharding_constraint(x, SingleDeviceSharding(jax.devices()[dev]))
    assert r.sharding == SingleDeviceSharding(jax.devices()[dev])
    assert r.committed
    np.testing.assert_array_equal(np.asarray(r), np.ones((2, 2)))


def test_single_device_constraint_in_jit():
    """JAX: the program runs on the constraint's device (an uncommitted argument
    moves there)."""
    x = jnp.ones((2, 2))
    r = jax.jit(_constrain)(x)
    assert r.sharding == SingleDeviceSharding(jax.devices()[1])
    np.testing.assert_array_equal(np.asarray(r), 2 * np.ones((2, 2)))
    r0 = jax.jit(_constrain0)(x)
    assert r0.sharding == SingleDeviceSharding(jax.devices()[0])
    assert "sharding_constraint" in jax.jit(_constrain0).lower(x).as_text()


def test_one_device_mesh_put_keeps_named_sharding():
    mesh = _mesh(1)
    x = jnp.arange(8.).reshape(4, 2)
    for spec, want in [(P(None), "P(None,)"), (P(), "P()"), (P("model"), "P('model',)")]:
        a = jax.device_put(x, NamedSharding(mesh, spec))
        assert isinstance(a.sharding, NamedSharding) and _spec(a) == want
        assert a.committed and a.is_fully_replicated
        assert a.device == jax.devices()[0]
        np.testing.assert_array_equal(np.asarray(a), np.asarray(x))


def _double(a):
    return a * 2


def _two(a, b):
    return a + b, b * 2


@pytest.mark.parametrize("n", [1, 2])
def test_results_keep_the_arguments_layout(n):
    """JAX keeps the first laid-out argument's sharding object for a result of its
    rank computed from it (P(None,), not XLA's P())."""
    mesh = _mesh(n)
    x = jnp.arange(8.).reshape(4, 2)
    xs = jax.device_put(x, NamedSharding(mesh, P(None)))
    assert _spec(xs + 1) == "P(None,)"
    assert _spec(jnp.sin(xs)) == "P(None,)"
    assert _spec(jax.jit(_double)(xs)) == "P(None,)"
    a, b = jax.jit(_two)(xs, x)
    assert (_spec(a), _spec(b)) == ("P(None,)", "P()")
    # laid out by in_shardings (not the argument's own): XLA's layout, as JAX
    assert _spec(jax.jit(_double, in_shardings=NamedSharding(mesh, P(None)))(x)) == "P()"
    np.testing.assert_array_equal(np.asarray(a), 2 * np.asarray(x))


def test_one_device_mesh_jit_out_shardings_and_shard_map():
    mesh = _mesh(1)
    x = jnp.arange(8.).reshape(4, 2)
    r = jax.jit(_double, out_shardings=NamedSharding(mesh, P("model", None)))(x)
    assert _spec(r) == "P('model', None)"
    assert _spec(shard_map(_double, mesh=mesh, in_specs=P(None), out_specs=P(None))(x)) \
        == "P(None,)"
    sm = shard_map(_double, mesh=mesh, in_specs=P("model", None), out_specs=P("model", None))
    r = sm(x)
    assert isinstance(r.sharding, NamedSharding) and _spec(r) == "P('model', None)"
    np.testing.assert_array_equal(np.asarray(r), 2 * np.asarray(x))
    assert _spec(jax.jit(sm)(x)) == "P()"
    xs = jax.device_put(x, NamedSharding(mesh, P(None)))
    assert _spec(jax.jit(sm)(xs)) == "P(None,)"


def test_eager_shard_map_results_laid_out_as_out_specs():
    mesh = _mesh(2)
    x = jnp.arange(8.).reshape(4, 2)
    sm = shard_map(_double, mesh=mesh, in_specs=P("model", None), out_specs=P("model", None))
    assert _spec(sm(x)) == "P('model', None)"
    assert _spec(shard_map(_double, mesh=mesh, in_specs=P(None), out_specs=P(None))(x)) \
        == "P(None,)"


def _times2(a):
    return np.asarray(a) * 2


_OUT = jax.ShapeDtypeStruct((8,), jnp.float32)


def test_eager_callback_on_sharded_operand():
    """JAX: GSPMDSharding({maximal device=0}) over the operand's devices, committed."""
    xs = jax.device_put(jnp.arange(8.), NamedSharding(_mesh(2), P("model")))
    for r in (io_callback(_times2, _OUT, xs), jax.pure_callback(_times2, _OUT, xs),
              io_callback(_times2, _OUT, xs, ordered=True)):
        s = r.sharding
        assert repr(s) == "GSPMDSharding({maximal device=0}, memory_kind=device)"
        assert s.device_set == set(jax.devices()[:2])
        assert s.is_fully_replicated and r.is_fully_replicated and r.committed
        np.testing.assert_array_equal(np.asarray(r), 2 * np.arange(8.))


def test_eager_callback_placement():
    one = jax.device_put(jnp.arange(8.), NamedSharding(_mesh(1), P("model")))
    r = io_callback(_times2, _OUT, one)
    assert isinstance(r.sharding, NamedSharding) and _spec(r) == "P()" and r.committed
    r = io_callback(_times2, _OUT, jax.device_put(jnp.ones(8), jax.devices()[1]))
    assert r.sharding == SingleDeviceSharding(jax.devices()[1]) and r.committed
    r = io_callback(lambda: np.ones(8, np.float32), _OUT)
    assert r.sharding == SingleDeviceSharding(jax.devices()[0]) and not r.committed


def _add(a, b):
    return a + b


@pytest.mark.parametrize("dev", [0, 1])
def test_committed_array_beside_a_sharded_one_is_refused(dev):
    """JAX's ValueError (it never moves a committed argument to other devices):
    `Received incompatible devices for jitted computation. Got argument x of add with
    shape float32[4] and with device ids [0, 1] on platform CPU and argument y of add
    with shape float32[4] and with device ids [0] on platform CPU`."""
    xs = jax.device_put(jnp.arange(4.), NamedSharding(_mesh(2), P(None)))
    c = jax.device_put(jnp.ones(4), jax.devices()[dev])
    with pytest.raises(ValueError, match=(
            r"Received incompatible devices for jitted computation\. Got argument x of add "
            r"with shape float32\[4\] and with device ids \[0, 1\] on platform CPU and "
            rf"argument y of add with shape float32\[4\] and with device ids \[{dev}\] ")):
        xs + c
    with pytest.raises(ValueError, match="Received incompatible devices"):
        jax.jit(_add)(xs, c)
    # on a one-device mesh of the same device JAX runs it (its NamedSharding kept)
    one = jax.device_put(jnp.arange(4.), NamedSharding(_mesh(1), P(None)))
    r = jax.jit(_add)(one, jax.device_put(jnp.ones(4), jax.devices()[0]))
    assert _spec(r) == "P(None,)"


def _callback_in_jit(a):
    return io_callback(_times2, _OUT, a)


def test_jit_callback_result_carries_no_mesh():
    """JAX: a callback's result is typed by result_shape_dtypes (no mesh), so XLA's
    layout P() is kept, not the argument's P(None,)."""
    one = jax.device_put(jnp.arange(8.), NamedSharding(_mesh(1), P(None)))
    r = jax.jit(_callback_in_jit)(one)
    assert isinstance(r.sharding, NamedSharding) and _spec(r) == "P()"


#: JAX 0.10.2's annotations of a SingleDeviceSharding inside a partitioned program
#: (`with_sharding_constraint`, out_shardings next to a one-device mesh): replicated over
#: the empty mesh (Shardy) / `{replicated}` (GSPMD), never a maximal layout -- that is a
#: host callback's placement only.
_SINGLE_IN_PROGRAM = {
    True: ("%2 = sdy.sharding_constraint %1 <@empty_mesh, [{}]> : tensor<4xf32>",
           "(tensor<4xf32> {jax.result_info = \"result\", "
           "sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>})"),
    False: ('mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>',
            '(tensor<4xf32> {jax.result_info = "result", mhlo.sharding = "{replicated}"})'),
}


@pytest.mark.parametrize("shardy", [True, False])
def test_single_device_sharding_annotated_replicated(shardy):
    d0 = jax.devices()[0]
    x = np.ones(4, np.float32)
    old = jax.config.read("jax_use_shardy_partitioner")
    jax.config.update("jax_use_shardy_partitioner", shardy)
    try:
        wsc = jax.jit(lambda a: lax.with_sharding_constraint(a * 2, SingleDeviceSharding(d0)))
        out = jax.jit(lambda a: a * 2, in_shardings=NamedSharding(Mesh(np.array([d0]), ("x",)),
                                                                  P("x")),
                      out_shardings=SingleDeviceSharding(d0))
        texts = wsc.lower(x).as_text(), out.lower(x).as_text()
    finally:
        jax.config.update("jax_use_shardy_partitioner", old)
    constraint, result = _SINGLE_IN_PROGRAM[shardy]
    assert constraint in texts[0] and result in texts[1]
    assert "maximal" not in texts[0] + texts[1]


def test_device_put_to_a_single_device_sharding_inside_jit_places_the_program():
    """A `device_put` to a SingleDeviceSharding inside `jit` runs the program on that
    device, and is JAX 0.10.2's ValueError beside arguments on other devices; a bare
    Device there is ignored, as in JAX (astjax ignored both)."""
    x = np.ones(8, np.float32)
    one = SingleDeviceSharding(jax.devices()[1])
    out = jax.jit(lambda a: jax.device_put(a * 2, one))(x)
    assert out.sharding == one
    out = jax.jit(lambda a: jax.device_put(a * 2, jax.devices()[1]))(x)
    assert out.sharding == SingleDeviceSharding(jax.devices()[0])
    on_mesh = jax.device_put(x, NamedSharding(_mesh(2), P("model")))
    for arg in (on_mesh, jax.device_put(x, SingleDeviceSharding(jax.devices()[0]))):
        with pytest.raises(ValueError, match="Received incompatible devices for jitted "
                                             "computation"):
            jax.jit(lambda a: jax.device_put(a * 2, one))(arg)
