"""Meshes of `make_mesh`'s default (Explicit) axes: `shard_map` and `jit` whose
in_specs / in_shardings do not match the arguments' layouts raise JAX 0.10.2's
ValueError (located), eagerly, inside `jit` and under `set_mesh`; matching ones
compute JAX's values and layouts (tests/oracle/record_explicit_specs.py ->
explicit_specs.json)."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_specs as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def table():
    return rec.cases(jax, jnp)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_explicit_mesh_specs_as_jax(table, case):
    want = EXPECTED[case]
    try:
        got = table[case]()
    except jax.errors.AstjaxError as e:
        assert want.get("error") in [c.__name__ for c in type(e).__mro__], (want, e)
        assert e.loc is not None and e.message == want["message"]
        return
    assert "error" not in want, want
    assert rec.run_case(jax, jnp, lambda: got) == want
