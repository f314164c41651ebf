"""Findings of the derivative-rule sweep, fifth round (tests/fuzz/reduce_rule_sweep.py
`-k lstsq`): `jnp.linalg.lstsq`'s residuals in JAX 0.10.2's float32 bits (recorded per
host kind by real JAX, see tests/jax_hosts.py)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from jax_hosts import assert_one_of


def _problem():
    rs = np.random.RandomState(3)
    a = rs.uniform(-2, 2, (6, 3)).astype(np.float32)
    b = rs.uniform(-2, 2, (6, 2)).astype(np.float32)
    w = rs.uniform(.5, 2, (2,)).astype(np.float32)
    return a, b, w


def _bits(x):
    return np.asarray(x, np.float32).ravel().view(np.uint32).tolist()


def test_lstsq_residuals_are_the_square_of_the_norm():
    # JAX's residuals are `norm(r, axis=0) ** 2` (a square root, then its square), not
    # the sum of squares itself: the last bit differed, silently, eagerly and under jit
    a, b, _ = _problem()
    want = {"epyc-b": [1075579791, 1085072974]}
    assert_one_of(_bits(jnp.linalg.lstsq(a, b)[1]), want, "eager residuals")
    assert_one_of(_bits(jax.jit(lambda a, b: jnp.linalg.lstsq(a, b)[1])(a, b)), want,
                  "jit residuals")


def test_lstsq_residuals_grad_b():
    # the derivative through the square of the square root, within JAX's nested call
    a, b, w = _problem()
    g = jax.jit(jax.grad(lambda a, b, w: jnp.sum(jnp.linalg.lstsq(a, b)[1] * w), 1))(a, b, w)
    assert_one_of(_bits(g), {"epyc-b": [
        3228504881, 1066591481, 3225005887, 1065481125, 3221869437, 3218203307,
        1051179526, 1073766994, 3224245342, 3232958364, 3219227226, 1077812979]},
        "grad of the residuals in b")


def test_lstsq_numpy_resid_rank_deficient_is_empty():
    # NumPy (and JAX) return no residuals when the rank is under the column count:
    # astjax returned them, silently
    a = np.array([[1., 2.], [2., 4.], [3., 6.]], np.float32)
    b = np.array([1., 2., 4.], np.float32)
    assert jnp.linalg.lstsq(a, b, numpy_resid=True)[1].shape == (0,)
    assert jnp.linalg.lstsq(a, b)[1].shape == (1,)


def test_lstsq_numpy_resid_under_jit_is_a_concretization_error():
    a = np.array([[1., 2.], [2., 4.], [3., 6.]], np.float32)
    b = np.array([1., 2., 4.], np.float32)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda a, b: jnp.linalg.lstsq(a, b, numpy_resid=True)[1])(a, b)


def test_lstsq_numpy_resid_eager_bits():
    # the column norm compiled as one call, as JAX's jitted `norm` (op by op, the sum
    # of squares rounded otherwise: 2 ulp)
    a = np.array([[1., 1.], [2., 1.], [3., 1.]], np.float32)
    b = np.array([1., 2., 4.], np.float32)
    assert_one_of(_bits(jnp.linalg.lstsq(a, b, numpy_resid=True)[1]),
                  {"epyc-b": [1042983594]}, "numpy_resid residuals")
