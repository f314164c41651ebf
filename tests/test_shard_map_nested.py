"""A `shard_map` inside another's body against JAX 0.10.2
(tests/oracle/record_shard_map_nested.py -> shard_map_nested.json): values, layouts,
the inner body's `jax.typeof`, `get_abstract_mesh()` inside the bodies (the manual axes
typed Manual; shard_map accepts it as mesh=) and JAX's errors (`shard_map._nested`: the axes
manual outside stay so; a concrete mesh passed inside a body is JAX's ValueError)."""
import json

import pytest

import astjax as jax

from oracle import record_shard_map_nested as rec
from oracle_compare import four_devices, same_as_jax, with_xfails

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = four_devices(jax)

XFAIL = {}  # case -> a strict xfail mark: what astjax still does otherwise than JAX


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("case", with_xfails(sorted(EXPECTED), XFAIL))
def test_as_jax(case):
    same_as_jax(jax, rec.run(jax, case), EXPECTED[case])
