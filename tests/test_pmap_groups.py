"""`axis_index_groups` of the collectives and nested `pmap` on 4 CPU devices against
JAX 0.10.2 (stored in tests/oracle/sharding_collectives.json by
tests/oracle/record_sharding_collectives.py): the same values, or JAX's builtin
error class with JAX's message, located at the user's line."""

import builtins
import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError

from oracle.record_sharding_collectives import cases, run_case
from oracle import compare

EXPECTED = compare.load("sharding_collectives")
CASES = cases(jax)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_jax(name):
    want = EXPECTED[name]
    if "error" in want:
        with pytest.raises(getattr(builtins, want["error"])) as e:
            CASES[name]()
        assert isinstance(e.value, AstjaxError) and e.value.loc is not None   # located
        assert e.value.message == want["message"]
        return
    got = compare.plain(run_case(jax, CASES[name]))
    assert "error" not in got, got
    compare.assert_close(got["value"], want["value"], rtol=1e-6)


def test_groups_reach_the_replica_groups_of_the_lowered_program():
    p = jax.pmap(lambda v: jax.lax.psum(v, "i", axis_index_groups=[[0, 2], [1, 3]]), "i")
    f = jax.jit(lambda v: p(v) * 2)
    text = f.lower(np.arange(4., dtype=np.float32)).as_text()
    assert "[[0, 2], [1, 3]]" in text
