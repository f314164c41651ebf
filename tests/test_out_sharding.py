"""`out_sharding=` of `jnp.zeros` / `ones` / `empty` / `full` / `*_like` / `arange` /
`array` / `asarray` / `bincount` / `broadcast_to` / `repeat` / `percentile` on an
Explicit 2x2 mesh against JAX 0.10.2 (tests/oracle/record_out_sharding.py ->
out_sharding.json): the result's layout inside `jit` and outside it,
`jax.typeof(r)` inside `jit`, or JAX's error."""
import json

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_types as rec
from oracle import record_out_sharding as out_rec

EXPECTED = json.loads(out_rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def table():
    arrs = rec.arrays(jax)
    return arrs, out_rec.cases(jax, jnp, arrs["xy"].sharding.mesh)


_SOURCE = " This error occurs at source: "


def _same(got, want):
    if "error" in want:      # JAX's builtin class, JAX's message (not its source suffix)
        assert "error" in got, got
        assert want["error"] == got["error"] or want["error"] in [
            c.__name__ for c in getattr(jax.errors, got["error"], Exception).__mro__], got
        assert got["message"] == want["message"].split(_SOURCE)[0]
        return
    assert "error" not in got, got
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6)
    assert (got["spec"], got["shards"]) == (want["spec"], want["shards"])


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(table, name):
    arrs, cases = table
    fn, names = cases[name]
    got = out_rec.run_case(jax, jnp, name, fn, names, arrs, arrs["xy"].sharding.mesh)
    _same(got["jit"], EXPECTED[name]["jit"])
    assert got["typeof"] == EXPECTED[name]["typeof"]
    _same(got["eager"], EXPECTED[name]["eager"])
