"""`lax.all_gather(..., to='invarying')` (JAX's `all_gather_invariant`: Varying ->
Invariant) against JAX 0.10.2 (tests/oracle/record_all_gather_to.py ->
all_gather_to.json): values, layouts and `jax.typeof` of the gathered value inside
`shard_map` (stacked, tiled, another axis, two axes, an invariant operand, pytrees,
check_vma off), the replicated out_spec it allows where `to='varying'` is JAX's
ValueError, gradients through the shard_map boundary, pmap, vmap of a shard_map,
JAX's errors (axis_index_groups, a vmap axis), gradients taken inside a body (JAX's
typed cotangents, `primitives/vma_reverse.reverse_typed`). Known difference, a strict xfail:
`to='reduced'` (refused: no Reduced type)."""
import json

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_all_gather_to as rec
from oracle_compare import same_as_jax, with_xfails

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

XFAIL = {}   # case -> a strict xfail mark: what astjax still does otherwise than JAX
SMAP = rec.smap_cases(jax, jnp)
OTHER = rec.other_cases(jax, jnp)


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("case", with_xfails(sorted(k for k in EXPECTED
                                                 if k.startswith("smap/")), XFAIL))
def test_in_shard_map_as_jax(case):
    same_as_jax(jax, rec.run_smap(jax, jnp, *SMAP[case.split("/")[1]]), EXPECTED[case])


@pytest.mark.parametrize("case", with_xfails(sorted(k for k in EXPECTED if "/" not in k), XFAIL))
def test_outside_shard_map_as_jax(case):
    same_as_jax(jax, rec.run_other(OTHER[case]), EXPECTED[case])


def test_reverse_mode_inside_a_body_where_input_and_output_vary_alike():
    """The output varies over the input's axes (a psum multiplied back by a varying
    value; JAX 0.10.2's gradient: twice the sum over 'x' of z)."""
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    P = jax.sharding.PartitionSpec
    f = jax.shard_map(lambda z: jax.grad(lambda z: (jax.lax.psum(z, "x") * z).sum())(z),
                      mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    a = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(a))[0], [16., 20., 24., 28.])
    np.testing.assert_allclose(np.asarray(jax.jit(f)(a)), 2 * np.concatenate(
        [a[:2] + a[2:]] * 2))


def test_invariant_result_is_the_replicated_gather():
    """Typed invariant, the result may leave the gathered axis out of its out_spec:
    the value is the whole gathered array (as all_gather's, checked against NumPy)."""
    got = rec.run_smap(jax, jnp, *SMAP["tiled"])
    np.testing.assert_array_equal(got["value"], rec.X)
    assert got["typeof"] == "float32[4,2]{V:y}"
