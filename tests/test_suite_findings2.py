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


def test_average_with_weights_along_an_axis():
    # blackjax's test_laps_nan_survival: `jnp.average(x, weights=w, axis=0)` with x of
    # shape (10, 2) and w of shape (10,) raised "incompatible shapes for broadcasting"
    # (a and w were broadcast before the weights were placed along the axis); JAX's
    # weights may have the shape of `a` along several axes, in the axes' order
    a = np.arange(20., dtype=np.float32).reshape(10, 2)
    w = np.arange(10., dtype=np.float32)
    np.testing.assert_allclose(jnp.average(a, weights=w, axis=0), [12.666667, 13.666667])
    avg, wsum = jnp.average(a, weights=w, axis=0, returned=True)
    np.testing.assert_allclose(wsum, [45., 45.])
    np.testing.assert_allclose(jax.jit(lambda a, w: jnp.average(a, axis=0, weights=w))(a, w),
                               [12.666667, 13.666667])
    b = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
    wb = np.arange(8., dtype=np.float32).reshape(4, 2) + 1
    np.testing.assert_allclose(jnp.average(b, axis=(2, 0), weights=wb),
                               [8.722222, 12.722222, 16.722223], rtol=1e-6)
    assert jnp.average(b, axis=(2, 0), weights=wb, returned=True,
                       keepdims=True)[1].shape == (1, 3, 1)
    for kwargs in (dict(weights=w), dict(weights=np.ones((2, 10)), axis=0),
                   dict(weights=np.ones(3), axis=0)):
        with pytest.raises(ValueError):   # (JAX's class for each)
            jnp.average(a, **kwargs)


def test_nan_to_num_of_typed_keys_returns_them():
    # blackjax's LinearRegressionTest::test_adjusted_mclmc: `jnp.nan_to_num` over a state
    # holding a typed key raised "PRNGKeyArray object is not a valid argument"; JAX
    # returns non-float inputs, keys included, unchanged
    k = jax.random.key(0)
    assert jnp.nan_to_num(k).dtype == k.dtype
    ks = jax.random.split(k, 3)
    assert jax.jit(jnp.nan_to_num)(ks).shape == (3,)
    assert (jax.random.key_data(jax.vmap(jnp.nan_to_num)(ks)) == jax.random.key_data(ks)).all()


def test_annotated_assignment_of_a_closure_cell_in_a_branch():
    # blackjax's staged_adaptation (multi-chain path): `if ...: p: dict = {...} else:
    # p = ...` with `p` read by a nested function raised SyntaxError "annotated name 'p'
    # can't be nonlocal": the converted branch declares `p` nonlocal and kept the
    # annotation. JAX runs it (a local variable's annotation is never evaluated).
    def outer(flag):
        def run(x):
            if flag:
                p: dict = {"a": 1.0}
            else:
                p = {"a": 2.0}
            return (lambda c: c + p["a"])(x)
        return run

    np.testing.assert_array_equal(jax.jit(outer(True))(jnp.ones(2)), [2., 2.])
    np.testing.assert_array_equal(jax.jit(outer(False))(jnp.ones(2)), [3., 3.])

    def staged(x):
        if x.sum() > 0:     # a staged `cond`, its branch functions
            y: float
            y = x + 1
        else:
            y: float = x - 1
        return (lambda: y)()

    np.testing.assert_array_equal(jax.jit(staged)(jnp.ones(2)), [2., 2.])
    np.testing.assert_array_equal(jax.jit(staged)(-jnp.ones(2)), [-2., -2.])

    def loop(x):
        y = x
        for _ in range(3):
            y: float = y * 2
            z = (lambda: y + 1)()
        return z

    np.testing.assert_array_equal(jax.jit(loop)(jnp.ones(2)), [9., 9.])
