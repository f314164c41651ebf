"""`jit(f, in_shardings=...)` of host values and ShapeDtypeStructs over a mesh of
Explicit axes, as JAX 0.10.2 types them (tests/oracle/record_explicit_in_shardings.py
-> explicit_in_shardings.json): by the value -- replicated over `set_mesh`'s mesh,
untyped outside it --, never by in_shardings, which only lay it out; `out_info`,
`Traced.jaxpr`, `jax.typeof` inside and the results' types and layouts follow."""
import json

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import compare
from oracle import record_explicit_in_shardings as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_as_jax(name):
    assert compare.plain(rec.run_case(jax, jnp, name)) == EXPECTED[name]


def test_every_case_recorded():
    compare.assert_recorded(EXPECTED, rec.cases(jax, jnp)[1])
