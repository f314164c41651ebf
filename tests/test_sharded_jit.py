"""Sharded arrays and sharded `jit` on 4 CPU devices against JAX 0.10.2: the same
values, the same `.sharding` spec and the same per-device index ranges and replica
ids (stored in tests/oracle/sharding.json by tests/oracle/record_sharding.py)."""

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P

from oracle.record_sharding import cases, layout
from oracle import compare

EXPECTED = compare.load("sharding")
CASES = cases(jax, jnp)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


# Known differences, each with its root cause (strict: they fail loudly once fixed).
DIFFERENT: dict = {}


@pytest.mark.parametrize("name", compare.cases(sorted(EXPECTED), DIFFERENT))
def test_layout_and_values_match_jax(name):
    got = layout(CASES[name]())
    want = EXPECTED[name]
    assert got["shape"] == want["shape"]
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-5, atol=1e-5)
    assert got["spec"] == want["spec"]
    assert got["shards"] == [[d, [list(i) for i in idx], r] for d, idx, r in want["shards"]]


def _mesh():
    return Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))


def test_lowered_text_shows_annotations_and_compiled_text_partitioned_hlo(gspmd):
    mesh = _mesh()
    f = jax.jit(lambda x: jax.lax.with_sharding_constraint(jnp.sin(x), NamedSharding(mesh, P("y"))),
                in_shardings=NamedSharding(mesh, P("x", "y")),
                out_shardings=NamedSharding(mesh, P()))
    a = np.ones((4, 4), np.float32)
    text = f.lower(a).as_text()
    assert 'mhlo.sharding = "{devices=[2,2]0,1,2,3}"' in text
    assert 'mhlo.sharding = "{replicated}"' in text
    assert 'stablehlo.custom_call @Sharding(' in text and "mhlo.num_partitions = 4" in text
    compiled = f.lower(a).compile().as_text()
    assert "f32[2,2]" in compiled and "all-gather" in compiled or "all-reduce" in compiled
    np.testing.assert_allclose(np.asarray(f(a)), np.sin(a), rtol=1e-6)


def test_sharded_results_feed_the_next_call_without_gathering():
    mesh = _mesh()
    s = NamedSharding(mesh, P("x"))
    step = jax.jit(lambda w, g: w - 0.1 * g)
    w = jax.device_put(np.ones((4, 4), np.float32), s)
    for _ in range(3):
        w = step(w, w)
    assert w.sharding == s and w._npy is None      # never gathered to the host
    np.testing.assert_allclose(np.asarray(w), 0.9 ** 3, rtol=1e-6)


def test_bare_partition_spec_under_mesh_context():
    mesh = _mesh()
    with jax.set_mesh(mesh):
        out = jax.jit(lambda x: x + 1, in_shardings=P("x"), out_shardings=P(None, "y"))(
            np.zeros((4, 4), np.float32))
    assert out.sharding == NamedSharding(mesh, P(None, "y"))
    with pytest.raises(RuntimeError, match="mesh"):
        jax.jit(lambda x: x, in_shardings=P("x"))(np.zeros((4, 4), np.float32))


def test_in_shardings_pytree_prefix_and_none():
    mesh = _mesh()
    sx = NamedSharding(mesh, P("x"))
    f = jax.jit(lambda d, y: d["a"] * y + d["b"], in_shardings=({"a": sx, "b": None}, None))
    out = f({"a": np.ones((4, 2), np.float32), "b": np.ones((4, 2), np.float32)},
            np.full((4, 2), 2, np.float32))
    np.testing.assert_allclose(np.asarray(out), 3)
    assert isinstance(out.sharding, NamedSharding)


def test_sharded_jit_inside_jit_becomes_constraints():
    mesh = _mesh()
    inner = jax.jit(lambda x: x * 2, in_shardings=NamedSharding(mesh, P("x")),
                    out_shardings=NamedSharding(mesh, P(None, "y")))
    outer = jax.jit(lambda x: inner(x) + 1)
    jaxpr = str(jax.make_jaxpr(lambda x: inner(x) + 1)(np.ones((4, 4), np.float32)))
    assert jaxpr.count("sharding_constraint") == 2
    out = outer(np.ones((4, 4), np.float32))
    np.testing.assert_allclose(np.asarray(out), 3)


def test_grad_and_vmap_of_with_sharding_constraint():
    mesh = _mesh()
    s = NamedSharding(mesh, P("x"))

    def loss(w):
        return jnp.sum(jax.lax.with_sharding_constraint(jnp.sin(w), s) ** 2)
    w = np.linspace(0, 1, 16, dtype=np.float32).reshape(4, 4)
    g = jax.jit(jax.grad(loss))(w)
    np.testing.assert_allclose(np.asarray(g), 2 * np.sin(w) * np.cos(w), rtol=1e-5)
    v = jax.jit(jax.vmap(lambda r: jax.lax.with_sharding_constraint(
        r * 2, NamedSharding(mesh, P("y")))))(w)
    np.testing.assert_allclose(np.asarray(v), w * 2)


def test_bad_shardings_raise_like_jax():
    mesh = _mesh()
    a = np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match="not found in mesh"):
        NamedSharding(mesh, P("z"))
    with pytest.raises(ValueError, match="rank"):
        jax.device_put(np.zeros(4, np.float32), NamedSharding(mesh, P("x", "y")))
    with pytest.raises(ValueError, match="rank"):
        jax.jit(lambda x: x, in_shardings=NamedSharding(mesh, P("x", "y", None)))(a)
    with pytest.raises(ValueError, match="divisible|evenly divide"):
        jax.device_put(np.zeros((3, 4), np.float32), NamedSharding(mesh, P("x")))
    with pytest.raises(ValueError, match="divisible|evenly divide"):
        jax.jit(lambda x: jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("x"))))(
            np.zeros((3, 4), np.float32))
    with pytest.raises(TypeError, match="unexpected keyword"):
        jax.jit(lambda x: x, in_sharding=None)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="in_shardings"):
        jax.jit(lambda x: x, backend="cpu", in_shardings=NamedSharding(mesh, P()))  # as JAX
    assert float(jax.jit(lambda x: x + 1, keep_unused=True)(1.0)) == 2.0
    g = jax.device_put(a, NamedSharding(mesh, P("y")))
    with pytest.raises(ValueError, match="does not match the sharding on the respective arg"):
        jax.jit(lambda x: x, in_shardings=NamedSharding(mesh, P("x")))(g)
    with pytest.raises(ValueError, match="kwargs"):
        jax.jit(lambda x, y=None: x + y, in_shardings=NamedSharding(mesh, P("x")))(a, y=a)
    with pytest.raises(RuntimeError, match="non-empty mesh in context"):
        jax.jit(lambda x: x, in_shardings=P("x"))(a)
    with pytest.raises(RuntimeError, match="non-empty mesh in context"):
        jax.jit(lambda x: jax.lax.with_sharding_constraint(x, P("x")))(a)
    two = Mesh(np.array(jax.devices()[:2]), ("z",))
    with pytest.raises(ValueError, match="incompatible devices"):
        jax.jit(lambda x, y: x + y)(g, jax.device_put(a, NamedSharding(two, P("z"))))
    with pytest.raises(ValueError, match="tree prefix|not a pytree prefix"):
        jax.jit(lambda x, n: x * n, static_argnums=1,
                in_shardings=(NamedSharding(mesh, P("x")), None))(a, 2)
    with pytest.raises(TypeError):
        jax.jit(lambda x: x, in_shardings=3)


def test_array_properties():
    mesh = _mesh()
    x = jax.device_put(np.arange(8, dtype=np.float32).reshape(4, 2), NamedSharding(mesh, P("x")))
    assert x.is_fully_addressable and not x.is_fully_replicated
    assert x.devices() == set(jax.devices()[:4])
    assert len(x.addressable_shards) == 4 and x.addressable_shards[0].data.shape == (2, 2)
    assert repr(x).startswith("Array(") and "dtype=float32" in repr(x)
    with pytest.raises(ValueError):
        x.device
    r = jax.device_put(np.ones(3, np.float32), NamedSharding(mesh, P()))
    assert r.is_fully_replicated
    t = jax.device_put((np.ones(4, np.float32), np.zeros(4, np.float32)),
                       (NamedSharding(mesh, P("x")), NamedSharding(mesh, P())))
    assert t[0].sharding.spec == P("x") and t[1].sharding.spec == P()
    one = jax.device_put(np.ones(3), jax.sharding.SingleDeviceSharding(jax.devices()[2]))
    assert one.device == jax.devices()[2]


def test_reshard_outside_and_inside_jit():
    import astjax.sharding as jax_sharding   # what `jax.sharding` serves
    auto = _mesh()      # (JAX 0.10.2: reshard names Explicit axes only, Mesh()'s are Auto)
    x = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4), NamedSharding(auto, P("x")))
    with pytest.raises(ValueError, match="cannot contain axis names that are of type Auto"):
        jax_sharding.reshard(x, NamedSharding(auto, P(None, "y")))
    mesh = Mesh(auto.devices, auto.axis_names, axis_types=(jax_sharding.AxisType.Explicit,) * 2)
    x = jax.device_put(np.asarray(x), NamedSharding(mesh, P("x")))
    y = jax_sharding.reshard(x, NamedSharding(mesh, P(None, "y")))
    assert y.sharding.spec == P(None, "y") and np.array_equal(np.asarray(y), np.asarray(x))
    with jax.set_mesh(mesh):
        z = jax.jit(lambda v: jax.reshard(v * 2, P("y")))(x)
    assert z.sharding.spec == P("y", None) and np.array_equal(np.asarray(z), 2 * np.asarray(x))


def test_mesh_utils():
    from astjax.compat.experimental import mesh_utils   # `jax.experimental.mesh_utils`
    devs = mesh_utils.create_device_mesh((2, 2))
    assert devs.shape == (2, 2) and [d.id for d in devs.flat] == [d.id for d in jax.devices()]
    mesh = Mesh(devs, ("a", "b"))
    x = jax.device_put(np.arange(16.0).reshape(4, 4), NamedSharding(mesh, P("a", "b")))
    assert x.sharding.shard_shape(x.shape) == (2, 2)
    hybrid = mesh_utils.create_hybrid_device_mesh((4,), (1,))
    assert hybrid.shape == (4,)
    with pytest.raises(ValueError, match="must equal the product"):
        mesh_utils.create_device_mesh((3, 2))


def test_partitioned_program_over_a_one_device_mesh():
    # XLA reports no parameter/output shardings for one partition (astjax dropped the
    # arguments: "Execution supplied 0 arguments"); JAX 0.10.2: NamedSharding, P()
    m1 = Mesh(np.array(jax.devices()[:1]), ("i",))
    f = jax.jit(lambda a: a * 2, in_shardings=NamedSharding(m1, P("i")))
    r = f(np.ones(4, np.float32))
    np.testing.assert_allclose(np.asarray(r), 2.0)
    assert r.sharding == NamedSharding(m1, P())
    assert [s.device for s in r.addressable_shards] == [jax.devices()[0]]


def test_repeated_calls_on_global_arrays_take_the_fast_path_keyed_by_layout(monkeypatch):
    # the dispatch key of a GlobalArray holds its sharding: a second call skips the
    # full path (benchmarks/sharded.py's shard_map row), and the same shape laid out
    # otherwise finds its own program (results laid out from it, as JAX's)
    mesh = _mesh()
    f = jax.jit(lambda x: x * 2)
    a = np.arange(16., dtype=np.float32).reshape(4, 4)
    xs = jax.device_put(a, NamedSharding(mesh, P("x", "y")))
    ys = jax.device_put(a, NamedSharding(mesh, P("y")))
    assert f(xs).sharding.spec == P("x", "y") and f(ys).sharding.spec == P("y")
    monkeypatch.setattr(type(f), "_call_slow", lambda *a: pytest.fail("full path taken"))
    for x, spec in ((xs, P("x", "y")), (ys, P("y")), (xs, P("x", "y"))):
        r = f(x)
        assert r.sharding.spec == spec
        np.testing.assert_array_equal(np.asarray(r), a * 2)
