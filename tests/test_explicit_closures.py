"""A `jit` closing over arrays laid out over Explicit mesh axes, under `set_mesh`, as
JAX 0.10.2 types it (tests/oracle/record_explicit_closures.py -> explicit_closures.json):
a closed-over array is typed as it is laid out, as an argument is -- `jax.typeof`
inside, the types `make_jaxpr` prints, `return_shape` / `out_info`, the results' types
and values, and JAX's ShardingTypeError where layouts do not fit (astjax ran such a
program untyped: results laid out replicated, no error)."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_closures as rec
from oracle_compare import four_devices, run_recorded

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = four_devices(jax)


@pytest.fixture(scope="module")
def results():
    return run_recorded(rec, jax, jnp, EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_types_and_errors_as_jax(results, name):
    """Types inside, results' types and values, or JAX's error."""
    rec.control.assert_as_recorded(jax, results[name], EXPECTED[name])
    if "error" not in EXPECTED[name]:
        assert (results[name]["shapes"], results[name]["out_info"]) == (
            EXPECTED[name]["shapes"], EXPECTED[name]["out_info"])


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if "types" in EXPECTED[n]))
def test_printed_types_as_jax(results, name):
    """The types `make_jaxpr` prints (the closed-over array's among them)."""
    assert results[name]["types"] == EXPECTED[name]["types"]
