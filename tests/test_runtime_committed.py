"""Committed and uncommitted arrays (issue 13), against values recorded from jax 0.10.2
on 4 CPU devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4`):

- `device_put(x, device)` commits an array to `device`; `device_put(x)`, `jnp.ones`,
  results of computations on uncommitted arrays are uncommitted;
- a computation (eager op or `jit`) runs on the device of its committed arguments, with
  committed results, and moves uncommitted ones there; without committed arguments it
  runs on the default device (`with jax.default_device(d)`), moving uncommitted arrays;
- committed arguments on two devices: JAX's ValueError;
- `committed`, `addressable_data(i)`, `on_device_size_in_bytes()`,
  `unsafe_buffer_pointer()` as JAX's `ArrayImpl` has them.
"""
import pickle

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError, JaxRuntimeError
from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def _inc(a):
    return a + 1


def _add(a, b):
    return a + b


def _square_sum(a):
    return (a * a).sum()


def _placed(a):
    return sorted(d.id for d in a.devices()), a.committed


def _cases(d):
    """name -> a thunk; `y1` is committed to device 1, `x` uncommitted."""
    y1 = jax.device_put(np.ones(3, np.float32), d[1])
    x = jnp.ones(3)
    return {
        "jnp.ones": lambda: jnp.ones(3),
        "device_put(np)": lambda: jax.device_put(np.ones(3)),
        "device_put(np, d1)": lambda: jax.device_put(np.ones(3), d[1]),
        "device_put(x, d1)": lambda: jax.device_put(x, d[1]),
        "device_put(x, d0)": lambda: jax.device_put(x, d[0]),
        "device_put(y1)": lambda: jax.device_put(y1),
        "device_put(y1, d2)": lambda: jax.device_put(y1, d[2]),
        "zeros(device=d1)": lambda: jnp.zeros(3, device=d[1]),
        "asarray(np, device=d1)": lambda: jnp.asarray(np.ones(3), device=d[1]),
        "x.to_device(d1)": lambda: x.to_device(d[1]),
        "y1 + 1": lambda: y1 + 1,
        "y1 * 2.0": lambda: y1 * 2.0,
        "y1 + x": lambda: y1 + x,
        "x + y1": lambda: x + y1,
        "jnp.sin(y1)": lambda: jnp.sin(y1),
        "y1.sum()": lambda: y1.sum(),
        "y1[0]": lambda: y1[0],
        "y1.copy()": lambda: y1.copy(),
        "jnp.stack([x, y1])": lambda: jnp.stack([x, y1]),
        "jit(y1, x)": lambda: jax.jit(_add)(y1, x),
        "jit(x, x)": lambda: jax.jit(_add)(x, x),
        "jit(device_put(x, d0))": lambda: jax.jit(_inc)(jax.device_put(x, d[0])),
        "grad(y1)": lambda: jax.grad(_square_sum)(y1),
        "vmap(y1)": lambda: jax.vmap(_inc)(y1),
        "pickle(y1)": lambda: pickle.loads(pickle.dumps(y1)),
    }


# recorded from jax 0.10.2: (device ids, committed)
JAX_PLACEMENT = {
    "jnp.ones": ([0], False), "device_put(np)": ([0], False),
    "device_put(np, d1)": ([1], True), "device_put(x, d1)": ([1], True),
    "device_put(x, d0)": ([0], True), "device_put(y1)": ([1], True),
    "device_put(y1, d2)": ([2], True), "zeros(device=d1)": ([1], True),
    "asarray(np, device=d1)": ([1], True), "x.to_device(d1)": ([1], True),
    "y1 + 1": ([1], True), "y1 * 2.0": ([1], True), "y1 + x": ([1], True),
    "x + y1": ([1], True), "jnp.sin(y1)": ([1], True), "y1.sum()": ([1], True),
    "y1[0]": ([1], True), "y1.copy()": ([1], True), "jnp.stack([x, y1])": ([1], True),
    "jit(y1, x)": ([1], True), "jit(x, x)": ([0], False),
    "jit(device_put(x, d0))": ([0], True), "grad(y1)": ([1], True),
    "vmap(y1)": ([1], True), "pickle(y1)": ([0], False),
}


@pytest.mark.parametrize("name", sorted(JAX_PLACEMENT))
def test_placement_and_committed_flag_match_jax(name):
    out = _cases(jax.devices())[name]()
    assert _placed(out) == JAX_PLACEMENT[name]


def test_values_computed_on_a_committed_device_are_right():
    d = jax.devices()
    y1 = jax.device_put(np.arange(3, dtype=np.float32), d[1])
    x = jnp.ones(3)
    np.testing.assert_array_equal(np.asarray(y1 + x), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(jax.jit(_add)(x, y1)), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(jax.grad(_square_sum)(y1)), [0, 2, 4])


# recorded from jax 0.10.2, inside `with jax.default_device(devices[2])`
JAX_IN_DEFAULT_DEVICE = {
    "jnp.ones": ([2], False), "x + 1": ([2], False), "y1 + 1": ([1], True),
    "jit(x)": ([2], False), "jit(y1)": ([1], True), "jit(x, y1)": ([1], True),
    "device_put(np)": ([2], False), "jnp.asarray(np)": ([2], False),
}


def test_default_device_moves_uncommitted_arrays_only():
    d = jax.devices()
    x = jnp.ones(3)
    y1 = jax.device_put(x, d[1])
    with jax.default_device(d[2]):
        got = {"jnp.ones": jnp.ones(3), "x + 1": x + 1, "y1 + 1": y1 + 1,
               "jit(x)": jax.jit(_inc)(x), "jit(y1)": jax.jit(_inc)(y1),
               "jit(x, y1)": jax.jit(_add)(x, y1),
               "device_put(np)": jax.device_put(np.ones(3)),
               "jnp.asarray(np)": jnp.asarray(np.ones(3))}
    assert {k: _placed(v) for k, v in got.items()} == JAX_IN_DEFAULT_DEVICE


def test_uncommitted_array_made_under_default_device_moves_back_after_it():
    # jax 0.10.2: every row on device 0, uncommitted; `z` itself stays on device 2
    with jax.default_device(jax.devices()[2]):
        z = jnp.ones(3)
    f = jax.jit(_inc)
    outs = [z + 1, f(z), f(z), jax.jit(_add)(z, jnp.ones(3)), (z * 2) * 2]
    assert [_placed(o) for o in outs] == [([0], False)] * 5
    assert _placed(z) == ([2], False)
    np.testing.assert_array_equal(np.asarray(f(z)), [2, 2, 2])
    x = jnp.ones(3)
    for _ in range(3):   # jnp's compiled eager programs for these signatures
        jnp.sin(x), x * 0.5, x + x
    for out in (jnp.sin(z), z * 0.5, z + x):
        assert _placed(out) == ([0], False)
    np.testing.assert_allclose(np.asarray(jnp.sin(z)), np.sin(np.ones(3)), rtol=1e-6)


def test_committed_arguments_on_two_devices_raise_jaxs_error():
    d = jax.devices()
    y1 = jax.device_put(np.ones(3, np.float32), d[1])
    y2 = jax.device_put(np.ones(3, np.float32), d[2])
    with pytest.raises(ValueError, match="Received incompatible devices for jitted "
                       "computation. Got argument a of _add with shape float32.3. and "
                       r"with device ids \[1\] on platform CPU and argument b of _add "
                       r"with shape float32.3. and with device ids \[2\]") as e:
        jax.jit(_add)(y1, y2)
    assert isinstance(e.value, AstjaxError)
    with pytest.raises(ValueError, match="Received incompatible devices for jitted "
                       "computation") as e:
        y1 + y2
    assert isinstance(e.value, AstjaxError)


def test_array_buffer_attributes_match_jax():
    # jax 0.10.2: 60, 6, 1, 0 bytes
    sizes = [jnp.ones((3, 5)).on_device_size_in_bytes(),
             jnp.ones((3,), jnp.bfloat16).on_device_size_in_bytes(),
             jnp.ones((), bool).on_device_size_in_bytes(),
             jnp.zeros(0).on_device_size_in_bytes()]
    assert sizes == [60, 6, 1, 0]
    x = jnp.ones(3)
    p = x.unsafe_buffer_pointer()
    assert isinstance(p, int) and p != jnp.ones(3).unsafe_buffer_pointer()
    assert x.addressable_data(0).unsafe_buffer_pointer() == p   # the same buffer
    assert x.addressable_data(1).devices() == x.devices()        # (index ignored: JAX)
    assert not x.addressable_data(0).committed
    y1 = jax.device_put(x, jax.devices()[1])
    assert y1.addressable_data(0).committed and y1.addressable_data(0).devices() == {
        jax.devices()[1]}
    x.delete()
    assert x.committed is False
    with pytest.raises(JaxRuntimeError, match="deleted or donated"):
        x.on_device_size_in_bytes()
    with pytest.raises(JaxRuntimeError, match="deleted or donated"):
        x.unsafe_buffer_pointer()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        x.addressable_data(0)


def test_laid_out_array_buffer_attributes_match_jax():
    d = jax.devices()
    mesh = Mesh(np.array(d[:2]), ("x",))
    s = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P("x")))
    r = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P()))
    # jax 0.10.2: committed, 32 and 64 bytes, shard 1 = [4..7] on device 1; replicated:
    # addressable_data(i) is device 0's
    assert s.committed and r.committed
    assert (s.on_device_size_in_bytes(), r.on_device_size_in_bytes()) == (32, 64)
    shard = s.addressable_data(1)
    np.testing.assert_array_equal(np.asarray(shard), [4, 5, 6, 7])
    assert shard.devices() == {d[1]} and shard.committed
    assert r.addressable_data(1).devices() == {d[0]}
    with pytest.raises(JaxRuntimeError, match="supported only for unsharded arrays"):
        s.unsafe_buffer_pointer()
    assert _placed(jax.jit(_inc)(s)) == ([0, 1], True)


def _double(a):
    return a * 2


def test_typed_keys_and_donation_keep_the_committed_device():
    # jax 0.10.2: the key data, its split and a draw stay committed on device 1; a
    # donated committed argument is deleted and the result is on device 1
    d1 = jax.devices()[1]
    k = jax.device_put(jax.random.key(0), d1)
    assert str(k.dtype) == "key<fry>"
    for a in (jax.random.key_data(k), jax.random.key_data(jax.random.split(k)),
              jax.random.uniform(k, (2,))):
        assert _placed(a) == ([1], True)
    np.testing.assert_array_equal(np.asarray(jax.random.uniform(k, (2,))),
                                  np.asarray(jax.random.uniform(jax.random.key(0), (2,))))
    c = jax.device_put(np.arange(3.0, dtype=np.float32), d1)
    out = jax.jit(_double, donate_argnums=0)(c)
    assert c.is_deleted() and _placed(out) == ([1], True)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])
    w = jax.device_put(1.0, d1)   # a Python scalar stays weakly typed
    assert w.weak_type and w.committed and repr(w) == "Array(1., dtype=float32, weak_type=True)"


def test_one_device_arrays_have_one_addressable_shard():
    # jax 0.10.2: one Shard over the whole array (index of full slices, `()` for 0-d),
    # replica 0, its data the array (committed as the array is); fully replicated and
    # fully addressable
    x = jnp.ones((2, 3))
    (s,) = x.addressable_shards
    assert s.device == jax.devices()[0] and s.replica_id == 0
    assert s.index == (slice(None, None, None),) * 2 and s.data is x and not s.data.committed
    assert jnp.ones(()).addressable_shards[0].index == ()
    assert x.is_fully_replicated and x.is_fully_addressable
    y1 = jax.device_put(x, jax.devices()[1])
    assert y1.addressable_shards[0].data.committed
    assert y1.addressable_shards[0].device == jax.devices()[1]


def test_compiled_program_runs_on_its_committed_argument_device():
    # jax 0.10.2: `.lower(c).compile()(c)` for `c` committed to device 1 gives a
    # result committed to device 1
    c = jax.device_put(np.ones(3, np.float32), jax.devices()[1])
    out = jax.jit(_inc).lower(c).compile()(c)
    assert _placed(out) == ([1], True)
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0, 2.0])
