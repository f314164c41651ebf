"""`shard_map` on 4 CPU devices against JAX 0.10.2: collectives (psum, pmean, pmax,
all_gather tiled/stacked, ppermute, psum_scatter, all_to_all, axis_index), the
tutorial's blocked matmuls, closures, and derivatives (grad, jit(grad),
value_and_grad) -- values and result layouts stored in tests/oracle/shard_map.json
by tests/oracle/record_shard_map.py."""

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P

from oracle.record_shard_map import cases
from oracle import compare

EXPECTED = compare.load("shard_map")
CASES = cases(jax, jnp, jax.shard_map)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(name):
    r = CASES[name]()
    got = r if isinstance(r, tuple) else (r,)
    want = EXPECTED[name]
    assert len(got) == len(want)
    for x, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(x, np.float64), w["value"], rtol=2e-4, atol=2e-4)
        if w["spec"] is not None:
            assert repr(x.sharding.spec) == w["spec"]


def _m1():
    return Mesh(np.array(jax.devices()[:4]), ("i",))


def test_experimental_spelling_and_lowering(gspmd):
    import astjax.compat.experimental.shard_map as legacy
    f = legacy.shard_map(lambda x: jax.lax.psum(x, "i"), _m1(), P("i"), P())
    v = np.arange(8, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(f(v)), v.reshape(4, 2).sum(0))
    text = jax.jit(f).lower(v).as_text()
    assert "SPMDFullToShardShape" in text and "SPMDShardToFullShape" in text
    assert "use_global_device_ids" in text and "channel_handle" in text


def test_jaxpr_shows_one_shard_map_equation_with_per_shard_body():
    f = jax.shard_map(lambda x: jax.lax.psum(x * 2, "i"), mesh=_m1(), in_specs=P("i"),
                      out_specs=P())
    jaxpr = str(jax.make_jaxpr(f)(np.zeros(8, np.float32)))
    assert "shard_map" in jaxpr and "f32[2]" in jaxpr and "psum" in jaxpr


def test_check_vma_rejects_a_varying_output_declared_replicated():
    v = np.arange(8, dtype=np.float32)
    with pytest.raises(ValueError, match="replicat"):
        jax.shard_map(lambda x: x * 2, mesh=_m1(), in_specs=P("i"), out_specs=P())(v)
    with pytest.raises(ValueError, match="replicat"):
        jax.shard_map(lambda x: jax.lax.all_gather(x, "i"), mesh=_m1(), in_specs=P("i"),
                      out_specs=P())(v)
    out = jax.shard_map(lambda x: x * 2, mesh=_m1(), in_specs=P("i"), out_specs=P(),
                        check_vma=False)(v)
    np.testing.assert_allclose(np.asarray(out), v[:2] * 2)   # device 0's block


def test_bad_specs_and_axes():
    v = np.arange(8, dtype=np.float32)
    with pytest.raises(ValueError, match="not found in mesh"):
        jax.shard_map(lambda x: x, mesh=_m1(), in_specs=P("z"), out_specs=P("i"))(v)
    with pytest.raises(ValueError, match="divide"):
        jax.shard_map(lambda x: x, mesh=_m1(), in_specs=P("i"), out_specs=P("i"))(
            np.zeros(6, np.float32))
    with pytest.raises(ValueError, match="rank"):
        jax.shard_map(lambda x: x, mesh=_m1(), in_specs=P("i", None), out_specs=P("i"))(v)
    with pytest.raises(NameError):
        jax.shard_map(lambda x: jax.lax.psum(x, "j"), mesh=_m1(), in_specs=P("i"),
                      out_specs=P())(v)
    with pytest.raises(ValueError, match="mesh"):
        jax.shard_map(lambda x: x, in_specs=P("i"), out_specs=P("i"))(v)


def test_mesh_context_and_inferred_in_specs():
    mesh = _m1()
    v = np.arange(8, dtype=np.float32)
    x = jax.device_put(v, NamedSharding(mesh, P("i")))
    with jax.set_mesh(mesh):
        out = jax.shard_map(lambda y: y + jax.lax.axis_index("i"), out_specs=P("i"))(x)
    np.testing.assert_allclose(np.asarray(out), v + np.repeat(np.arange(4), 2))
    assert out.sharding == NamedSharding(mesh, P("i"))
