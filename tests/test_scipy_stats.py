"""`astjax.scipy.stats` against values stored from JAX 0.10.2
(tests/oracle/record_scipy_stats.py), plus the transforms on a few densities."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
import astjax.scipy.stats as stats

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
import record_scipy_stats as oracle  # noqa: E402
from oracle import compare  # noqa: E402

STORED = compare.load("scipy_stats")


@pytest.mark.parametrize("case", oracle.CASES, ids=oracle.key)
def test_matches_jax(case):
    mod, fn, args = case
    got = np.asarray(getattr(getattr(stats, mod), fn)(*oracle.args_for(np, jnp, args)),
                     np.float64).ravel()
    want = np.array([float(v) for v in STORED[oracle.key(case)]])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def test_norm_under_jit_grad_vmap():
    x = jnp.linspace(-2.0, 2.0, 5)
    f = lambda x: jnp.sum(stats.norm.logpdf(x, 0.5, 2.0))
    np.testing.assert_allclose(astjax.jit(f)(x), f(x), rtol=1e-6)
    np.testing.assert_allclose(astjax.grad(f)(x), -(np.asarray(x) - 0.5) / 4.0, rtol=1e-6)
    np.testing.assert_allclose(astjax.vmap(stats.norm.cdf)(x), stats.norm.cdf(x), rtol=1e-6)


def test_multivariate_normal_matches_the_product_of_normals_for_a_diagonal_cov():
    x = jnp.asarray(np.array([[0.3, -1.0], [2.0, 0.5]], np.float32))
    got = stats.multivariate_normal.logpdf(x, jnp.zeros(2), jnp.diag(jnp.array([1.0, 4.0])))
    want = stats.norm.logpdf(x[:, 0], 0, 1) + stats.norm.logpdf(x[:, 1], 0, 2)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_argument_errors_are_jax_classes():
    with pytest.raises(ValueError, match="integer type"):
        stats.multinomial.logpmf(jnp.array([1.0, 2.0]), 3, jnp.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="one-dimensional"):
        stats.dirichlet.logpdf(jnp.ones((2, 2)) / 2, jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="nan_policy"):
        stats.sem(jnp.ones(3), nan_policy="raise")


def test_sem():
    a = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], np.float32)
    np.testing.assert_allclose(stats.sem(a, axis=1), a.std(axis=1, ddof=1) / np.sqrt(3), rtol=1e-6)
    np.testing.assert_allclose(stats.sem(a, axis=None), a.std(ddof=1) / np.sqrt(6), rtol=1e-6)


def test_cholesky_and_slogdet_keywords_are_static():
    a = np.array([[4.0, 2.0], [2.0, 3.0]], np.float32)
    np.testing.assert_allclose(jnp.linalg.cholesky(a, upper=True), np.linalg.cholesky(a).T,
                               rtol=1e-6)
    sign, logdet = jnp.linalg.slogdet(a, method="lu")
    np.testing.assert_allclose(float(sign) * np.exp(float(logdet)), 8.0, rtol=1e-5)
