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


def test_grad_of_a_cond_keeps_the_operands_layout():
    # JAX 0.10.2 (recorded by hand): float32[4@x,2] and these values; astjax typed the
    # other branch's residual slots (zeros) replicated: "cond branches must have equal
    # output types ... float32[4,2] ... float32[4@x,2]"
    import numpy as np
    from astjax.sharding import AxisType, NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        x = jax.device_put(np.arange(8.0, dtype=np.float32).reshape(4, 2) - 3,
                           NamedSharding(mesh, P("x", None)))
        f = lambda v: jax.lax.cond(v.sum() > 0, jnp.sin, jnp.cos, v).sum()
        for g in (jax.grad(f), jax.jit(jax.grad(f))):
            r = g(x)
            assert str(jax.typeof(r)) == "float32[4@x,2]"
            np.testing.assert_allclose(np.asarray(r), np.cos(np.asarray(x)), rtol=1e-6)
        j = jax.jacrev(lambda v: jax.lax.cond(v.sum() > 0, jnp.sin, jnp.cos, v))(x)
        assert str(jax.typeof(j)) == "float32[4,2,4@x,2]"
