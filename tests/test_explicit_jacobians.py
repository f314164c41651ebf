"""`jacfwd` / `jacrev` / `hessian` of arrays laid out over Explicit mesh axes, under
`set_mesh`, as JAX 0.10.2 types them (tests/oracle/record_explicit_jacobians.py ->
explicit_jacobians.json): a `jacrev` block laid out along the input's dimensions as
the input, a `jacfwd` block along the output's as the output -- eagerly and under
`jit`, pytree inputs, several outputs and arguments, `has_aux` (astjax flattened each
laid-out tangent into a basis vector: JAX's "This reshape is not supported"
ShardingTypeError, or the result untyped)."""
import json
import warnings

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_jacobians as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: rec.run_case(jax, jnp, name) for name in EXPECTED}


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_jacobian_types_and_values_as_jax(results, name, mode):
    """The Jacobian's types and values, eagerly and under `jit`, as JAX's."""
    got, want = results[name][mode], EXPECTED[name][mode]
    rec.control.assert_as_recorded(jax, {"inner": [], **got}, {"inner": [], **want})
