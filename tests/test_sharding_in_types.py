"""Sharding in types on an Explicit 2x2 mesh against JAX 0.10.2 (stored in
tests/oracle/explicit_types.json by tests/oracle/record_explicit_types.py): per
operation (dot_general, reductions, reshape, transpose, broadcast, squeeze, slice,
rev, reshard, ...) the result's layout inside `jit` and outside it,
`jax.typeof(r).sharding` and `str(jax.typeof(r))` inside `jit`, or JAX's
ShardingTypeError with JAX's message, located at the user's line."""

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.core import ShapedArray
from astjax.sharding import NamedSharding, PartitionSpec as P, ShardingTypeError

from oracle import record_explicit_types as rec
from oracle import compare

EXPECTED = compare.load("explicit_types")

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def table():
    arrs = rec.arrays(jax)
    rec._MESH[:] = [arrs["xy"].sharding.mesh]
    cases = dict(rec.cases(jax, jnp))
    for more in (rec._reshard_cases, rec._jnp_out_sharding_cases, rec._indexing_cases,
                 rec._grad_cases):
        cases.update(more(jax, jnp))
    return arrs, cases


def _same(got, want):
    if "error" in want:
        assert got == want
        return
    assert "error" not in got, got
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-5, atol=1e-5)
    assert got["spec"] == want["spec"]
    assert got["shards"] == want["shards"]


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(table, name):
    arrs, cases = table
    fn, names = cases[name]
    got = rec.run_case(jax, jnp, fn, names, arrs)
    _same(got["jit"], EXPECTED[name]["jit"])
    assert got["typeof"] == EXPECTED[name]["typeof"]
    want = EXPECTED[name]["eager"]
    if want.get("message", "").startswith("Length of device assignment 1 is not equal"):
        want = EXPECTED[name]["jit"]    # JAX 0.10.2's eager scatter / grad fail inside JAX
    _same(got["eager"], want)


def test_error_inside_jit_is_located_at_the_operation(table):
    arrs, _ = table

    def f(u, v):
        w = jnp.sin(u)
        return w @ v.T          # the line JAX's error is about
    with pytest.raises(ShardingTypeError, match="illegally sharded result") as e:
        jax.jit(f)(arrs["x_"], arrs["x_"])
    assert e.value.loc is not None and e.value.loc.line == f.__code__.co_firstlineno + 2


def test_typeof_of_an_explicit_array_outside_jit(table):
    arrs, _ = table
    t = jax.typeof(arrs["xy"])
    assert str(t) == "float32[4@x,4@y]" and t.sharding.spec == P("x", "y")
    assert repr(t) == "ShapedArray(float32[4@x,4@y])"          # JAX's repr
    assert t.shape == (4, 4) and t.sharding.mesh == arrs["xy"].sharding.mesh.abstract_mesh


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
def test_typeof_sharding_off_an_explicit_mesh_as_jax(table):
    # JAX 0.10.2: a NamedSharding over the value's (or the current) AbstractMesh,
    # nothing sharded: one device -> the empty mesh; an Auto mesh -> that mesh
    empty = jax.sharding.AbstractMesh((), ())
    t = jax.typeof(np.ones(3, np.float32))
    assert t.sharding.mesh == empty and t.sharding.spec == P(None)
    assert repr(empty) == "AbstractMesh((), axis_types=())"
    assert str(t) == "float32[3]" and t == ShapedArray((3,), np.float32)   # still equal
    assert ShapedArray((3,), np.float32) == t and t != ShapedArray((3,), np.int32)
    auto = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    x = jax.device_put(np.ones((4, 4), np.float32), NamedSharding(auto, P("x")))
    assert jax.typeof(x).sharding == NamedSharding(auto.abstract_mesh, P(None, None))
    assert repr(jax.typeof(x).sharding) == (      # JAX 0.10.2's text
        "NamedSharding(mesh=AbstractMesh('x': 2, 'y': 2, axis_types=(Auto, Auto), "
        "device_kind=cpu, num_cores=None, platform=cpu), spec=P(None, None))")
    seen = []
    jax.jit(lambda u, v: seen.append((jax.typeof(u).sharding, jax.typeof(v).sharding))
            or u)(x, np.ones(2, np.float32))
    assert seen == [(NamedSharding(auto.abstract_mesh, P(None, None)),
                     NamedSharding(auto.abstract_mesh, P(None)))]
    with jax.set_mesh(auto):
        assert jax.typeof(jnp.ones(3)).sharding.mesh == auto.abstract_mesh


def test_typeof_inside_a_branch_sees_captured_layouts(table):
    arrs, _ = table

    def f(u, k):
        w = u.sum(0)

        def yes(v):
            z = w * 2                   # w is captured from the enclosing jit
            t = str(jax.typeof(z))
            if t != "float32[4@y]":
                raise AssertionError(t)
            return z + v
        return jax.lax.cond(k > 0, yes, lambda v: v, w)
    r = jax.jit(f)(arrs["xy"], 1)
    np.testing.assert_allclose(np.asarray(r), np.asarray(arrs["xy"]).sum(0) * 3)


def test_in_shardings_lay_host_values_out_without_typing_them(table):
    arrs, _ = table
    mesh = arrs["xy"].sharding.mesh
    f = jax.jit(lambda u: u.sum(1), in_shardings=NamedSharding(mesh, P("x", "y")))
    r = f(np.asarray(arrs["xy"]))
    assert r.sharding.spec == P("x")
    # host values are typed as they are (no mesh), not by in_shardings, which only lay
    # them out: JAX 0.10.2 adds these without a ShardingTypeError, untyped (float32[4,4])
    r = jax.jit(lambda u, v: u + v, in_shardings=(NamedSharding(mesh, P("x")),
                                                  NamedSharding(mesh, P("y"))))(
        np.ones((4, 4), np.float32), np.ones((4, 4), np.float32))
    assert str(jax.typeof(r)) == "float32[4,4]" and (np.asarray(r) == 2).all()


def test_grad_contracting_the_sharded_batch_is_not_an_error(table):
    # the transposed dot_general contracts the batch dimension sharded on both sides;
    # JAX gives it the primal's layout as out_sharding (values and specs from JAX)
    arrs, _ = table
    mesh = arrs["xy"].sharding.mesh
    w = jax.device_put(np.arange(12., dtype=np.float32).reshape(4, 3) / 10,
                       NamedSharding(mesh, P()))
    x = jax.device_put(np.arange(32., dtype=np.float32).reshape(8, 4) / 10,
                       NamedSharding(mesh, P("x")))
    g = jax.jit(jax.grad(lambda w, x: jnp.tanh(x @ w).sum(), argnums=(0, 1)))(w, x)
    assert [a.sharding.spec for a in g] == [P(None, None), P("x", None)]
    np.testing.assert_allclose([np.asarray(a).sum() for a in g], [3.8805475, 7.169357],
                               rtol=1e-5)


DN = (((1,), (0,)), ((), ()))


def test_dot_general_out_sharding_spec_under_set_mesh_and_vmap(table):
    arrs, _ = table
    mesh = arrs["xy"].sharding.mesh
    a, b = arrs["xy"], arrs["y_"]
    with jax.set_mesh(mesh):
        r = jax.jit(lambda u, v: jax.lax.dot_general(u, v, DN, out_sharding=P(None, "y")))(a, b)
    assert r.sharding.spec == P(None, "y")
    np.testing.assert_allclose(np.asarray(r), np.asarray(a) @ np.asarray(b), rtol=1e-6)
    # JAX 0.10.2: the batch dimension vmap adds is unsharded -> P(None, 'x', None)
    v = jax.vmap(lambda u, w: jax.lax.dot_general(
        u, w, DN, out_sharding=NamedSharding(mesh, P("x", None))))(jnp.stack([a, a]),
                                                                     jnp.stack([b, b]))
    assert v.sharding.spec == P(None, "x", None)
    # from host values too: the program is partitioned because of the out_sharding
    h = jax.jit(lambda u, w: jax.lax.dot_general(u, w, DN, out_sharding=NamedSharding(
        mesh, P("x"))))(np.asarray(a), np.asarray(b))
    assert h.sharding.spec == P("x", None)


def test_dot_general_out_sharding_errors_as_jax(table):
    arrs, _ = table
    a, b = arrs["xy"], arrs["y_"]
    with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh "
                                         "context is not allowed"):
        jax.lax.dot_general(a, b, DN, out_sharding=P("x"))
    auto = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    with pytest.raises(ValueError, match="cannot contain axis names that are of type Auto "
                                         "or Manual. Got PartitionSpec: P\\('x',\\) with axis "
                                         "name: x of type: AxisType.Auto"):
        jax.lax.dot_general(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32), DN,
                            out_sharding=NamedSharding(auto, P("x")))


def test_grad_through_dot_general_out_sharding_has_the_primal_layout(table):
    arrs, _ = table
    mesh = arrs["xy"].sharding.mesh
    a = jax.device_put(np.arange(16., dtype=np.float32).reshape(4, 4),
                       NamedSharding(mesh, P("x", "y")))
    b = jax.device_put(np.arange(16., dtype=np.float32).reshape(4, 4) - 3,
                       NamedSharding(mesh, P("y", None)))
    f = lambda u, v: jax.lax.dot_general(u, v, DN, out_sharding=NamedSharding(mesh, P("x")))
    g = jax.jit(jax.grad(lambda u, v: f(u, v).sum()))(a, b)
    np.testing.assert_allclose(np.asarray(g).sum(), 288.0)      # (JAX's value)
    assert g.sharding.spec == P("x", "y")


def test_reshape_out_sharding_under_vmap_and_on_auto_axes(table):
    arrs, _ = table
    mesh = arrs["xy"].sharding.mesh
    c = arrs["x_"]
    v = jax.vmap(lambda u: jax.lax.reshape(u, (2, 8), out_sharding=NamedSharding(
        mesh, P("x", None))))(jnp.stack([c, c]))
    assert v.sharding.spec == P(None, "x", None)          # JAX 0.10.2's
    np.testing.assert_allclose(np.asarray(v)[1], np.asarray(c).reshape(2, 8))
    auto = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    with pytest.raises(ValueError, match="PartitionSpec passed to reshape cannot contain "
                                         "axis names that are of type Auto or Manual"):
        jax.lax.reshape(np.ones((4, 4), np.float32), (2, 8),
                        out_sharding=NamedSharding(auto, P("x")))


def test_jnp_out_sharding_under_set_mesh_and_through_several_contractions(table):
    arrs, _ = table
    mesh = arrs["xy"].sharding.mesh
    a, b, c = arrs["xy"], arrs["y_"], arrs["rep"]
    want = np.asarray(a) @ np.asarray(b)
    with jax.set_mesh(mesh):        # a bare PartitionSpec names the current mesh's axes
        r = jax.jit(lambda u, v: jnp.matmul(u, v, out_sharding=P("x")))(a, b)
        e = jnp.einsum("ij,jk,kl->li", arrs["x_"], c, c, out_sharding=P(None, "x"))
    assert r.sharding.spec == P("x", None)
    np.testing.assert_allclose(np.asarray(r), want, rtol=1e-6)
    assert e.sharding.spec == P(None, "x")
    np.testing.assert_allclose(np.asarray(e), (np.asarray(arrs["x_"]) @ np.asarray(c)
                                               @ np.asarray(c)).T, rtol=1e-5)
    m = jax.jit(lambda u: u.reshape(2, 8, out_sharding=NamedSharding(mesh, P("x"))))(
        arrs["x_"])                          # the method too (JAX refuses it without)
    assert m.sharding.spec == P("x", None)
    f = jnp.reshape(a, (8, 2), order="F", out_sharding=NamedSharding(mesh, P(None, "y")))
    assert f.sharding.spec == P(None, "y")
    np.testing.assert_array_equal(np.asarray(f), np.asarray(a).reshape((8, 2), order="F"))
    with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh"):
        jnp.dot(a, b, out_sharding=P("x"))


def test_out_sharding_on_host_arrays_outside_jit_stays_on_one_device(table):
    # JAX 0.10.2: an eager operation on host values ignores out_sharding's layout
    # (its result is on one device, typed without a layout), as astjax does
    arrs, _ = table
    mesh = arrs["xy"].sharding.mesh
    a = np.arange(16., dtype=np.float32).reshape(4, 4)
    for r in (jax.lax.dot_general(a, a, DN, out_sharding=NamedSharding(mesh, P("x"))),
              jax.lax.reshape(a, (2, 8), out_sharding=NamedSharding(mesh, P("x"))),
              jnp.matmul(a, a, out_sharding=NamedSharding(mesh, P(None, "y")))):
        assert len(r.sharding.device_set) == 1 and "@" not in str(jax.typeof(r))
    np.testing.assert_allclose(np.asarray(r), a @ a)


def test_eager_partial_indexing_on_an_auto_mesh_is_a_gather_with_jax_layouts():
    # outside jit an integer / partial-slice index of a multi-device array is one
    # gather, as JAX 0.10.2's; the specs below are JAX's
    auto = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    a = np.arange(32., dtype=np.float32).reshape(8, 4)
    x = jax.device_put(a, NamedSharding(auto, P("x", "y")))
    for idx, spec in [(np.s_[2:6], P(None, "y")), (1, P("y")), (np.s_[:, 1:3], P("x")),
                      (np.s_[::2], P(None, "y"))]:
        r = x[idx]
        assert r.sharding.spec == spec, idx
        np.testing.assert_array_equal(np.asarray(r), a[idx])
