"""`out_sharding=` of `lax.broadcasted_iota`, `lax.reduce_sum` and the `jax.random`
samplers, `sharding=` of `lax.full` / `lax.full_like`, on an Explicit 2x2 mesh against
JAX 0.10.2 (tests/oracle/record_lax_sharding_gaps.py -> lax_sharding_gaps.json): the
result's layout and values inside `jit` and outside it, `jax.typeof(r)` inside `jit`,
or JAX's error."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_types as rec
from oracle import record_lax_sharding_gaps as gaps
from test_out_sharding import _same

EXPECTED = json.loads(gaps.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def table():
    arrs = rec.arrays(jax)
    return arrs, gaps.cases(jax, jnp, arrs["xy"].sharding.mesh)


def _run(table, name):
    arrs, cases = table
    fn, names = cases[name]
    return gaps.run_case(jax, jnp, name, fn, names, arrs, arrs["xy"].sharding.mesh)


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(table, name):
    got = _run(table, name)
    _same(got["jit"], EXPECTED[name]["jit"])
    assert got["typeof"] == EXPECTED[name]["typeof"]
    _same(got["eager"], EXPECTED[name]["eager"])
