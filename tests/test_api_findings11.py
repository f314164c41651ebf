"""The `scipy.stats` differences left by the twenty-second session's API fuzzer
(weak types, error classes, JAX's formulas), with JAX 0.10.2's results stored as
literals (computed by /work/jaxref on host kind "epyc-b")."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
import astjax.scipy.stats as st

from jax_hosts import assert_one_of

F32 = np.float32


def _check(r, dtype, weak, values):
    r = jnp.asarray(r)
    assert (r.dtype, jax.typeof(r).weak_type) == (np.dtype(dtype), weak)
    np.testing.assert_array_equal(np.asarray(r), np.asarray(values, dtype))


def test_gumbel_r_logsf_is_jax_formula_nan_for_nonpositive_scale_and_weak():
    # JAX: log1mexp(exp((loc - x) / scale)), NaN where scale <= 0, weak as its arguments
    # (astjax's log(sf) was strong for an array x with Python-float loc and scale)
    x = np.array([-2., 0., 3., 20.], F32)
    _check(st.gumbel_r.logsf(x, 0.5, 1.5), "float32", False,
           [-0.005031810142099857, -0.28459522128105164, -1.7596186399459839,
            -13.000000953674316])
    _check(st.gumbel_r.logsf(x, 0.5, np.array([1., 0., -1., 2.], F32)), "float32", False,
           [-5.119306479173247e-06, np.nan, np.nan, -9.750029563903809])
    _check(st.gumbel_r.logsf(np.array([1, 2], np.int32), 2.0, 3.0), "float32", True,
           [-0.28459522128105164, -0.4586751461029053])
    _check(st.gumbel_r.logsf(1.0, 2.0, np.array([1, 2], np.int32)), "float32", True,
           np.asarray(st.gumbel_r.logsf(1.0, 2.0, np.array([1., 2.], F32))))
    _check(jax.grad(lambda v: st.gumbel_r.logsf(v, 0.5, 1.5))(F32(20.)), "float32", False,
           -0.6666658520698547)


def test_betabinom_array_loc_is_strong_and_in_jax_order():
    # JAX's constants are of y = floor(k) - loc: an array loc makes the result strong;
    # its sum is comb + (betaln - betaln)
    _check(st.betabinom.logpmf(1.0, 2.0, 2.0, 2.0, np.array([0, 1], np.int32)), "float32",
           False, [-0.9162893295288086, -1.2039718627929688])
    _check(st.betabinom.logpmf(1.0, 2.0, 2.0, np.array([2, 3], np.int32)), "float32", True,
           [-0.9162893295288086, -0.9162896871566772])


def test_dirichlet_boundary_and_errors_as_jax():
    # JAX's simplex test is every coordinate > 0 (a boundary point is -inf); a 0-d x
    # is JAX's IndexError (astjax raised ValueError)
    _check(st.dirichlet.logpdf(np.array([0., 1.], F32), np.array([1., 1.], F32)),
           "float32", False, -np.inf)
    _check(st.dirichlet.logpdf(np.array([0., 1.], F32), np.array([1., 2.], F32)),
           "float32", False, -np.inf)   # (astjax gave log 2)
    _check(st.dirichlet.logpdf(np.array([0.25, 0.75], F32), np.array([2., 3.], F32)),
           "float32", False, 0.5232489109039307)
    for f in (st.dirichlet.logpdf, st.dirichlet.pdf):
        with pytest.raises(IndexError):
            f(0.5, np.array([2., 3.], F32))
        with pytest.raises(IndexError):
            f(1.0, np.array([2, 3], np.int32))
        with pytest.raises(ValueError):
            f(np.array([0.5, 0.5], F32), 2.0)


def test_multivariate_normal_promotion_and_scalar_cov_as_jax():
    # JAX's promote_dtypes_inexact (weak kept, no broadcast): astjax's astype made every
    # result strong; an int32 mean JAX accepts, and a 0-d cov with a vector mean is
    # cov * I (astjax raised ValueError)
    _check(st.multivariate_normal.logpdf(1.0, 2.0, 2.0), "float32", True, -1.5155121088027954)
    _check(st.multivariate_normal.logpdf(np.array([1., 0.], F32), np.array([1, 2], np.int32),
                                         2.0), "float32", False, -3.531024217605591)
    _check(st.multivariate_normal.logpdf(np.array([[1., 0.], [0.5, 2.]], F32),
                                         np.array([2., 2.], F32), 2.0),
           "float32", False, [-3.781024217605591, -3.093524217605591])
    _check(st.multivariate_normal.logpdf(1.0, np.array([1, 2], np.int32), 2.0), "float32",
           True, -2.781024217605591)
    _check(st.multivariate_normal.pdf(1.0, np.array([1, 2], np.int32), 2.0), "float32",
           True, np.exp(F32(-2.781024217605591)))
    with pytest.raises(ValueError):
        st.multivariate_normal.logpdf(np.ones(3, F32), np.ones(3, F32), np.ones((2, 2), F32))


def test_multivariate_normal_full_cov_bits():
    cov = np.array([[2., 0.5, 0.1], [0.5, 1.5, 0.3], [0.1, 0.3, 1.]], F32)
    r = st.multivariate_normal.logpdf(np.array([[0.3, -1., 2.], [1., 1., 1.]], F32),
                                      np.array([0.1, 0.2, 0.3], F32), cov)
    assert (r.dtype, jax.typeof(r).weak_type) == (np.dtype("float32"), False)
    assert_one_of(np.asarray(r).view(np.uint32).tolist(), {"epyc-b": [3233413648, 3228395684]})
    r = st.multivariate_normal.pdf(np.array([1, 0, 2], np.int32), np.array([0, 1, 0], np.int32),
                                   cov)
    assert_one_of(np.asarray(r).reshape(1).view(np.uint32).tolist(), {"epyc-b": [984483145]})
