"""`shard_map` over a subset of the mesh axes (`axis_names=`: manual over those, the
other mesh axes stay automatic) against JAX 0.10.2 on a 2x2 mesh: values, specs and
per-device shards recorded in tests/oracle/shard_map_partial.json by
tests/oracle/record_shard_map_partial.py; and JAX's errors."""

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import NotImplementedInAstjaxError
from astjax.sharding import Mesh, PartitionSpec as P

from oracle.record_sharding import layout
from oracle.record_shard_map_partial import cases
from oracle import compare

EXPECTED = compare.load("shard_map_partial")
CASES = cases(jax, jnp)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_values_match_jax(name):
    got = layout(CASES[name]())
    want = EXPECTED[name]
    assert got["shape"] == want["shape"]
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_layouts_match_jax(name):
    got = layout(CASES[name]())
    want = EXPECTED[name]
    assert got["spec"] == want["spec"]
    assert got["shards"] == [[d, [list(i) for i in idx], r] for d, idx, r in want["shards"]]


def _mesh():
    return Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))


def test_automatic_axis_is_not_bound_in_the_body():
    # JAX: NameError "Found an unbound axis name: y ..."
    f = jax.shard_map(lambda b: jax.lax.psum(b, "y"), mesh=_mesh(), in_specs=P("x"),
                      out_specs=P("x"), axis_names={"x"})
    with pytest.raises(NameError, match="y"):
        jax.jit(f)(np.ones((4, 8), np.float32))


def test_spec_naming_an_automatic_axis_is_a_value_error():
    # JAX: ValueError "shard_map in_specs argument must refer to an axis marked as manual"
    f = jax.shard_map(lambda b: b, mesh=_mesh(), in_specs=P("y"), out_specs=P("y"),
                      axis_names={"x"})
    with pytest.raises(ValueError, match="must refer to an axis marked as manual"):
        jax.jit(f)(np.ones((4, 8), np.float32))


def test_axis_names_outside_the_mesh():
    f = jax.shard_map(lambda b: b, mesh=_mesh(), in_specs=P("x"), out_specs=P("x"),
                      axis_names={"z"})
    with pytest.raises(ValueError, match="axes of the mesh"):
        f(np.ones((4, 8), np.float32))


def test_partially_manual_is_lowered_as_a_shardy_manual_computation():
    f = jax.shard_map(lambda b: b * jax.lax.axis_index("x"), mesh=_mesh(), in_specs=P("x"),
                      out_specs=P("x"), axis_names={"x"})
    text = jax.jit(f).lower(np.ones((4, 8), np.float32)).as_text()
    assert 'manual_axes={"x"}' in text
    assert '<@mesh, [{"x", ?}, {?}]>' in text          # the auto axis stays open
    # axis_index reads the partition id in a computation manual over the rest, as JAX
    assert 'manual_axes={"y"}' in text


def test_partially_manual_gspmd_is_lowered_with_manual_subgroups(gspmd):
    f = jax.shard_map(lambda b: b * 2, mesh=_mesh(), in_specs=P("x"), out_specs=P("x"),
                      axis_names={"x"})
    text = jax.jit(f).lower(np.ones((4, 8), np.float32)).as_text()
    assert "last_tile_dims={replicated, manual}" in text
    assert "unspecified_dims=[0,1]" in text


@pytest.mark.parametrize("body", [lambda b: b * jax.lax.axis_index("x"),
                                  lambda b: jax.lax.all_gather(b, "x", tiled=True),
                                  lambda b: jax.lax.ppermute(b, "x", [(0, 1), (1, 0)])])
def test_gspmd_reports_collectives_it_cannot_partition(gspmd, body):
    # (JAX and astjax's Shardy path support them; the GSPMD fallback reports it
    # rather than let XLA abort the process)
    f = jax.shard_map(body, mesh=_mesh(), in_specs=P("x"), out_specs=P("x"),
                      axis_names={"x"}, check_vma=False)
    with pytest.raises(NotImplementedInAstjaxError, match="partially manual"):
        jax.jit(f)(np.ones((4, 8), np.float32))


#: JAX 0.10.2 (GSPMD, a 1x4 mesh, manual over the size-1 axis 'x'): every collective over
#: 'x' is the identity there and axis_index('x') is 0, so each body returns its block
_SIZE_ONE_BODIES = {
    "axis_index": lambda b: b + jax.lax.axis_index("x"),
    "all_gather": lambda b: jax.lax.all_gather(b, "x", tiled=True),
    "ppermute": lambda b: jax.lax.ppermute(b, "x", [(0, 0)]),
    "all_to_all": lambda b: jax.lax.all_to_all(b, "x", 0, 0, tiled=True),
    "psum": lambda b: jax.lax.psum(b, "x"),
}


@pytest.mark.parametrize("shardy", [False, True])
@pytest.mark.parametrize("name", sorted(_SIZE_ONE_BODIES))
def test_partially_manual_over_a_size_one_axis(name, shardy):
    """Manual over a size-1 axis only, the body is lowered in place (no manual
    computation), so GSPMD partitions every collective, as in JAX (astjax refused
    axis_index / all_gather / ppermute / all_to_all there)."""
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(1, 4), ("x", "y"))
    f = jax.jit(jax.shard_map(_SIZE_ONE_BODIES[name], mesh=mesh, in_specs=P("x"),
                              out_specs=P("x"), axis_names={"x"}))
    x = np.arange(16.0, dtype=np.float32).reshape(8, 2)
    old = jax.config.read("jax_use_shardy_partitioner")
    jax.config.update("jax_use_shardy_partitioner", shardy)
    try:
        np.testing.assert_array_equal(np.asarray(f(x)), x)
    finally:
        jax.config.update("jax_use_shardy_partitioner", old)
