"""A `shard_map` inside another's body against JAX 0.10.2
(tests/oracle/record_shard_map_nested.py -> shard_map_nested.json): values, layouts,
the inner body's `jax.typeof` and JAX's errors (`spmd._nested`: the axes manual outside
stay so; a mesh passed inside a body is JAX's ValueError)."""
import json

import numpy as np
import pytest

import astjax as jax

from oracle import record_shard_map_nested as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

XFAIL = {   # case -> a strict xfail mark: what astjax still does otherwise than JAX
    "abstract_mesh_passed": pytest.mark.xfail(strict=True, reason=(
        "inside a shard_map body JAX's jax.sharding.get_abstract_mesh() types the manual "
        "axes Manual and shard_map accepts it as mesh=; astjax's is the context mesh's and "
        "shard_map needs a concrete Mesh")),
}


def _params(names):
    return [pytest.param(n, marks=XFAIL[n]) if n in XFAIL else n for n in names]


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records typeof
@pytest.mark.parametrize("case", _params(sorted(EXPECTED)))
def test_as_jax(case):
    got, want = rec.run(jax, case), EXPECTED[case]
    if "error" in want:
        assert "error" in got, got
        assert want["error"] in [c.__name__ for c in getattr(
            jax.errors, got["error"], Exception).__mro__] + [got["error"]], got
        assert got["message"] == want["message"]
        return
    assert "error" not in got, got
    np.testing.assert_allclose(got.pop("value"), want["value"], rtol=1e-6)
    assert got == {k: v for k, v in want.items() if k != "value"}
