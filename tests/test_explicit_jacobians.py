"""`jacfwd` / `jacrev` / `hessian` of arrays laid out over Explicit mesh axes, under
`set_mesh`, as JAX 0.10.2 types them (tests/oracle/record_explicit_jacobians.py ->
explicit_jacobians.json): a `jacrev` block laid out along the input's dimensions as
the input, a `jacfwd` block along the output's as the output -- eagerly and under
`jit`, pytree inputs, several outputs and arguments, `has_aux`, under `vmap` (astjax
flattened each laid-out tangent into a basis vector: JAX's "This reshape is not
supported" ShardingTypeError, or the result untyped)."""
import json
import warnings

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_jacobians as rec
from oracle_compare import four_devices, same_as_jax

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = four_devices(jax)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_jacobian_types_and_values_as_jax(name):
    """The Jacobian's types and values, eagerly and under `jit`, as JAX's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rec.run_case(jax, jnp, name)
    for mode in ("eager", "jit"):
        same_as_jax(jax, got[mode], EXPECTED[name][mode], rtol=2e-6, atol=1e-6, leaves=True)
