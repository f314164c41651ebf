"""`axis_index_groups` of the collectives and nested `pmap` on 4 CPU devices against
JAX 0.10.2 (stored in tests/oracle/sharding_collectives.json by
tests/oracle/record_sharding_collectives.py): the same values, or JAX's builtin
error class with JAX's message, located at the user's line."""
import json
from pathlib import Path

import builtins
import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError

from oracle.record_sharding_collectives import cases, run_case

EXPECTED = json.loads((Path(__file__).parent / "oracle" /
                       "sharding_collectives.json").read_text())
CASES = cases(jax)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def _close(got, want):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for k in want:
            _close(got[k], want[k])
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(name):
    want = EXPECTED[name]
    if "error" in want:
        with pytest.raises(getattr(builtins, want["error"])) as e:
            CASES[name]()
        assert isinstance(e.value, AstjaxError) and e.value.loc is not None   # located
        assert e.value.message == want["message"]
        return
    got = json.loads(json.dumps(run_case(jax, CASES[name])))
    assert "error" not in got, got
    _close(got["value"], want["value"])


def test_groups_reach_the_replica_groups_of_the_lowered_program():
    p = jax.pmap(lambda v: jax.lax.psum(v, "i", axis_index_groups=[[0, 2], [1, 3]]), "i")
    f = jax.jit(lambda v: p(v) * 2)
    text = f.lower(np.arange(4., dtype=np.float32)).as_text()
    assert "[[0, 2], [1, 3]]" in text
