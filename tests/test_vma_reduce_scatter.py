"""`lax.psum_scatter` on JAX's `reduce_scatter` primitive (`primitives/collectives_scatter.py`):
over several mesh axes of a `shard_map` (the chunk is the lane's linear index over
the axes, in the order named), JAX's ValueErrors, and its printed source run again
under `pmap` with `axis_index_groups`; values against NumPy. Batching: test_vmap.py;
transposes inside a `check_vma` body (printed as JAX's): test_vma_reverse.py."""
import numpy as np
import pytest

import astjax as jax
from astjax import core, lax, tree_util
from astjax.codegen import pysource
from astjax.source_api import compile_source

P = jax.sharding.PartitionSpec
X = np.arange(64.0, dtype=np.float32).reshape(8, 8) % 5

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def _mesh():
    auto = jax.sharding.AxisType.Auto
    return jax.make_mesh((2, 2), ("x", "y"), axis_types=(auto, auto))


@pytest.mark.parametrize("names,order", [(("x", "y"), [0, 1, 2, 3]),
                                         (("y", "x"), [0, 2, 1, 3])])
def test_over_two_mesh_axes(names, order):
    """Device (i, j) keeps column chunk k of the sum of the four blocks, k its linear
    index over `names` (first major); the out_spec lays the chunks out x-major."""
    f = jax.shard_map(lambda a: lax.psum_scatter(a, names, scatter_dimension=1, tiled=True),
                      mesh=_mesh(), in_specs=P("x", "y"), out_specs=P(None, ("x", "y")))
    total = X.reshape(2, 4, 2, 4).sum((0, 2))
    np.testing.assert_allclose(np.asarray(jax.jit(f)(X)), total[:, order])


@pytest.mark.parametrize("body,message", [
    (lambda a: lax.psum_scatter(a[:3], "x", tiled=True),
     "tiled reduce_scatter operand scatter dimension size 3 must be divisible by "
     "shard_count 2"),
    (lambda a: lax.psum_scatter(a[:1], "x"),
     "reduce_scatter operand scatter dimension size 1 must match shard count 2")])
def test_jax_errors(body, message):
    f = jax.shard_map(body, mesh=_mesh(), in_specs=P("x", "y"), out_specs=P("x", "y"))
    with pytest.raises(ValueError) as info:
        jax.jit(f)(X)
    assert info.value.message == message


def test_printed_source_runs_again():
    """The source printed for `reduce_scatter` equations is `lax.psum_scatter(...)`
    with their params; run under `pmap` it computes what the function does."""
    def f(x):
        return (lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True) * 2,
                lax.psum_scatter(x, "i", axis_index_groups=[[0, 1], [2, 3]]))
    x = np.zeros((2, 8), np.float32)
    with core.extend_axis_env("i", 4, "pmap"):
        closed = core.stage(lambda a: list(f(a)), [core.get_aval(x)])
    src = pysource.generate(closed, tree_util.tree_flatten(((x,), {}))[1],
                            tree_util.tree_flatten((1, 2))[1], name="g")
    assert "lax.psum_scatter(" in src and "axis_index_groups=((0, 1), (2, 3))" in src
    xs = np.random.default_rng(0).normal(size=(4, 2, 8)).astype(np.float32)
    tiled, grouped = jax.pmap(compile_source(src), axis_name="i")(xs)
    np.testing.assert_allclose(np.asarray(tiled), 2 * xs.sum(0).reshape(2, 4, 2)
                               .transpose(1, 0, 2), rtol=1e-5)
    pairs = [xs[0] + xs[1], xs[2] + xs[3]]
    np.testing.assert_allclose(np.asarray(grouped),
                               [pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1]],
                               rtol=1e-5)


#: `make_jaxpr` of `psum_scatter` of a value unreduced over 'x', printed by JAX 0.10.2
UNREDUCED_SCATTER = """{ lambda ; a:f32[4,4@y]{U:x}. let
    b:f32[4@x,4@y] = shard_map[
      check_vma=True
      in_specs=(P(None, 'y', unreduced={'x'}),)
      jaxpr={ lambda ; c:f32[4,2]{V:y, U:x}. let
          d:f32[2,2]{V:(x,y)} = unreduced_reduce_scatter[
            axis_name=('x',)
            axis_size=2
            scatter_dimension=0
            tiled=True
          ] c
        in (d,) }
      mesh=Mesh('x': 2, 'y': 2, axis_types=(Explicit, Explicit))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', 'y'),)
    ] a
  in (b,) }"""


X4 = X[:4, :4] + 0.5


def _unreduced_input():
    """A 2x2 Explicit mesh and X4 laid out unreduced over 'x' (partial sums adding up to
    X4)."""
    m = jax.make_mesh((2, 2), ("x", "y"))
    return m, jax.device_put(X4, jax.sharding.NamedSharding(m, P(None, "y", unreduced={"x"})))


def test_psum_scatter_of_unreduced():
    """psum_scatter of a value unreduced over the axes binds JAX's
    `unreduced_reduce_scatter` (Unreduced -> Varying): the partial sums added, each
    device's chunk; over unreduced and varying axes at once, JAX's ValueError."""
    m, c = _unreduced_input()
    f = jax.shard_map(lambda ct: lax.psum_scatter(ct, "x", tiled=True), mesh=m,
                      in_specs=P(None, "y", unreduced={"x"}), out_specs=P("x", "y"))
    assert str(jax.make_jaxpr(f)(c)) == UNREDUCED_SCATTER
    np.testing.assert_allclose(np.asarray(jax.jit(f)(c)), X4)
    g = jax.shard_map(lambda ct: lax.psum_scatter(ct, ("x", "y"), tiled=True), mesh=m,
                      in_specs=P(None, "y", unreduced={"x"}), out_specs=P("x", "y"))
    with pytest.raises(ValueError, match="can only accept axis_name which corresponds to one"):
        jax.jit(g)(c)


def test_all_gather_reduced_transposes_to_unreduced_scatter():
    """A `vjp` through `all_gather(..., to='reduced')` inside a body, given an unreduced
    cotangent: JAX's typed transpose, `unreduced_reduce_scatter` (JAX's equations and the
    cotangent's type, varying over both axes), the partial sums' chunks as value."""
    m, c = _unreduced_input()
    x = jax.device_put(X4, jax.sharding.NamedSharding(m, P("x", "y")))

    def body(a, ct):
        out, f = jax.vjp(lambda z: lax.all_gather(z, "x", to="reduced", tiled=True), a)
        return f(ct)[0]
    f = jax.shard_map(body, mesh=m, in_specs=(P("x", "y"), P(None, "y", unreduced={"x"})),
                      out_specs=P("x", "y"))
    eqns = jax.make_jaxpr(f)(x, c).eqns[0].params["jaxpr"].eqns
    assert [e.primitive.name for e in eqns] == ["all_gather_reduced",
                                                "unreduced_reduce_scatter"]
    assert ":f32[2,2]{V:(x,y)} = unreduced_reduce_scatter[" in str(jax.make_jaxpr(f)(x, c))
    np.testing.assert_allclose(np.asarray(jax.jit(f)(x, c)), X4)
