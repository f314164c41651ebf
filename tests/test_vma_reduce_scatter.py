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
