"""Findings of running more of numpyro's and blackjax's own test suites unchanged on
astjax (tests/ecosystem/run_optax_tests.py --root; docs/ecosystem.md): each a minimal
form of a test that failed on astjax and passed on JAX 0.10.2 (JAX's results stored as
literals)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

_L = np.tril(np.ones((4, 4), np.float32)) + 3 * np.eye(4, dtype=np.float32)
_Z = np.arange(4, dtype=np.float32)


@pytest.mark.parametrize("left_side, lower, transpose_a, expected", [
    (True, True, True, [-0.26171875, -0.015625, 0.3125, 0.75]),
    (False, True, False, [-0.26171875, -0.015625, 0.3125, 0.75]),
    (False, False, True, [0., 0.25, 0.5, 0.75]),
    (True, True, False, [0., 0.25, 0.4375, 0.578125]),
])
def test_triangular_solve_of_a_vector(left_side, lower, transpose_a, expected):
    # blackjax's laplace_marginal.sample_theta: `lax.linalg.triangular_solve(L, z,
    # left_side=True, ...)` with z of shape (d,) raised ShapeError "must have the same
    # batch dimensions"; JAX solves a `b` of one dimension less than `a` as one vector
    def solve(a, b):
        return jax.lax.linalg.triangular_solve(a, b, left_side=left_side, lower=lower,
                                               transpose_a=transpose_a)
    np.testing.assert_allclose(solve(_L, _Z), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(solve)(_L, _Z), expected, rtol=1e-6)
    batched = jax.vmap(solve, (None, 0))(_L, jnp.stack([_Z, 2 * _Z]))
    np.testing.assert_allclose(batched, [expected, 2 * np.asarray(expected)], rtol=1e-6)
    stacked = solve(np.stack([_L, _L]), np.stack([_Z, _Z]))
    assert stacked.shape == (2, 4)


def test_grad_through_triangular_solve_of_a_vector():
    ts = jax.lax.linalg.triangular_solve
    ga, gb = jax.grad(lambda a, b: ts(a, b, left_side=True, lower=True).sum(),
                      argnums=(0, 1))(_L, _Z)
    np.testing.assert_allclose(gb, [0.10546875, 0.140625, 0.1875, 0.25], rtol=1e-6)
    np.testing.assert_allclose(np.diag(ga), [0., -0.03515625, -0.08203125, -0.14453125],
                               rtol=1e-6)
