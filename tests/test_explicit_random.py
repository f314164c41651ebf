"""Random programs on an Explicit mesh under `set_mesh` (tests/oracle/
record_explicit_random.py -> explicit_random.json: chains of made values, `where`,
concatenation, loops, `cond`, gradients, `vmap`, reshards over arrays of different
layouts): astjax's verdict is JAX 0.10.2's -- the same error (builtin class, message)
or the same result types and values."""
import json
import warnings

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_random as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_verdict_as_jax(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rec.run_case(jax, jnp, name)
    rec.control.assert_as_recorded(jax, got, EXPECTED[name])


def test_an_inner_jit_is_staged_again_for_other_layouts():
    # `jnp.where` is an inner `jit` (as JAX's); staged first for an operand laid out
    # P('x', None), its kept staging (a broadcast of the constant with that layout) was
    # reused for an operand laid out P(None, 'y'): "select cases must have the same
    # shardings" (only in a process that had run the first program)
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    v = jnp.arange(8.0).reshape(4, 2) - 3
    inner = jax.jit(lambda u: u * jnp.ones((4, 2)))
    with jax.set_mesh(mesh):
        for spec in (P("x", None), P(None, "y"), P("x", "y")):
            u = jax.reshard(v, spec)
            got = jax.jit(lambda u: jnp.where(u > 0, u, 0.5))(u)
            assert jax.typeof(got).sharding.spec == spec
            assert jax.typeof(jax.jit(inner)(u)).sharding.spec == spec
            assert (jax.jit(lambda u: inner(u) + 1)(u) == v + 1).all()
    assert (jax.device_get(got) == jnp.where(v > 0, v, 0.5)).all()
