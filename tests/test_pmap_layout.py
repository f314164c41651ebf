"""Top-level `pmap` results laid out as JAX 0.10.2 lays them out: arrays with
`NamedSharding(Mesh(devices, (axis_name,)), P(axis_name))` whose shards keep the
mapped axis (size 1), recorded in tests/oracle/pmap_layout.json by
tests/oracle/record_pmap_layout.py; and such results feed pmap, jit, eager
operations and NumPy without a host copy."""

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.codegen import sharded

from oracle.record_pmap_layout import cases, layout
from oracle import compare

EXPECTED = compare.load("pmap_layout")
CASES = cases(jax, jnp)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_pmap_layout_matches_jax(name):
    got = layout(CASES[name]())
    want = EXPECTED[name]
    assert got["shape"] == want["shape"]
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-5, atol=1e-5)
    assert got["sharding"] == want["sharding"]
    assert got["fully_replicated"] == want["fully_replicated"]
    assert got["fully_addressable"] == want["fully_addressable"]
    assert got["shards"] == want["shards"]


def _no_host_copy(x):
    return x._npy is None and x._single is None


def test_result_feeds_next_pmap_without_copy():
    f = jax.pmap(lambda a: a * 2, axis_name="i")
    y = f(np.arange(8, dtype=np.float32).reshape(4, 2))
    entry = next(iter(f._cache.values()))
    assert entry._argument(y, entry.in_avals[0], 0, entry.in_layouts[0]) is y._arr
    z = f(y)
    assert _no_host_copy(y) and isinstance(z, sharded.GlobalArray)
    np.testing.assert_allclose(np.asarray(z), np.arange(8).reshape(4, 2) * 4)


def test_result_feeds_jit_and_eager_without_gather():
    y = jax.pmap(lambda a: a + 1, axis_name="i")(np.ones((4, 3), np.float32))
    z = jax.jit(lambda a: a * 2)(y) + y
    assert _no_host_copy(y)
    assert z.sharding == y.sharding
    np.testing.assert_allclose(np.asarray(z), np.full((4, 3), 6.0))


def test_device_put_layout_feeds_pmap_without_copy():
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(jax.devices()[:4]), ("other",))
    x = jax.device_put(np.arange(4.0, dtype=np.float32), NamedSharding(mesh, P("other")))
    f = jax.pmap(lambda a: a - 1)
    f(x)
    entry = next(iter(f._cache.values()))
    assert entry._argument(x, entry.in_avals[0], 0, entry.in_layouts[0]) is x._arr


def test_donate_argnums_donates_buffers():
    # JAX 0.10.2: the donated argument is deleted; using it is a RuntimeError
    # "Array has been deleted with shape=float32[4,2]."; host values are copied first.
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    f = jax.pmap(lambda a, b: a + b, donate_argnums=0)
    for _ in range(2):                       # the second call takes the fast path
        xx = jax.pmap(lambda a: a)(x)
        keep = xx * 1
        r = f(xx, keep)
        assert xx.is_deleted() and not keep.is_deleted()
        np.testing.assert_allclose(np.asarray(r), 2 * x)
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[4,2\]"):
        xx + 1
    with pytest.raises(RuntimeError, match="deleted"):
        f(xx, keep)
    h = np.ones(4, np.float32)
    f(h, h)
    np.testing.assert_allclose(h, 1.0)
    # (as JAX: the donated argument aliases the result of its shape)
    assert "tf.aliasing_output = 0 : i32" in next(iter(f._cache.values())).text


def test_donate_argnums_and_static_argnums_cannot_intersect():
    with pytest.raises(ValueError, match="cannot intersect"):
        jax.pmap(lambda a: a, donate_argnums=0, static_broadcasted_argnums=0)
