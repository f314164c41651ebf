"""Findings of JAX's docstring examples (tests/fuzz/doc_examples.py) on astjax, the
eighteenth session: `scipy.stats.poisson.entropy` (its docstring example raised
AttributeError) and `poisson.cdf`, with JAX 0.10.2's values stored as literals."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.scipy.stats import poisson

MU = [0., 0.5, 9.99, 10., 55.5, 99.9, 100., 1e4, -1.]
# JAX 0.10.2: poisson.entropy(jnp.array(MU)) (each regime: 0, summed below 10 and
# below 100, Stirling's expansion from 100 on, NaN below 0)
H = [0.0, 0.9276375770568848, 2.5608913898468018, 2.5614070892333984, 3.4256207942962646,
     3.720187187194824, 3.7206902503967285, 6.0241007804870605, np.nan]


def test_entropy_docstring_example_is_jax_digits():
    out = poisson.entropy(5.0)
    assert out.dtype == np.float32 and not out.weak_type
    assert float(out) == 2.2043943405151367
    np.testing.assert_array_equal(np.asarray(poisson.entropy(jnp.array([1, 10, 100]))),
                                  np.float32([1.3048418760299683, 2.5614070892333984,
                                              3.7206902503967285]))


def test_entropy_regimes_are_jax_digits():
    np.testing.assert_array_equal(np.asarray(poisson.entropy(jnp.array(MU))),
                                  np.float32(H))
    np.testing.assert_array_equal(np.asarray(jax.jit(poisson.entropy)(jnp.array(MU))),
                                  np.float32(H))


def test_entropy_broadcasts_loc_and_refuses_lists():
    out = poisson.entropy(jnp.ones((2, 1)), jnp.zeros(3))
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 1.3048418760299683,
                                                           np.float32))
    with pytest.raises(TypeError):
        poisson.entropy([1.0])


def test_cdf_values_and_weak_types():
    # JAX 0.10.2: 0 below loc, Q(floor(k - loc) + 1, mu) elsewhere
    out = poisson.cdf(jnp.arange(-2, 6) * 0.7, 2.5)
    assert out.dtype == np.float32 and not out.weak_type   # (its 0 is a strong constant)
    np.testing.assert_allclose(np.asarray(out), [0., 0., 0.08208497, 0.08208497, 0.2872975,
                                                 0.5438132, 0.5438132, 0.75757635],
                               rtol=3e-6)
    s = poisson.cdf(3, 2)
    assert s.weak_type
    np.testing.assert_allclose(float(s), 0.85712355, rtol=1e-6)
    np.testing.assert_allclose(float(poisson.cdf(2., 3., 1)), 0.19914828, rtol=5e-6)
