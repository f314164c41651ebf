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
