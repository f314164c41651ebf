"""`lax.random_gamma_grad(a, x)` (d sample / d a of Gamma(a) samples, the implicit
reparameterization) and `grad` of `random.gamma` & co. w.r.t. the shape parameter,
against values computed with jax 0.10.2 and stored here; and the vectorized sampler's
bits (all elements in one loop) equal to JAX's."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

f32 = np.float32
A = np.array([0.01, 0.1, 0.5, 1., 1., 2.5, 3., 10., 50., 0.3, 7., 1e-3, 100., 2.], f32)
X = np.array([0.001, 0.5, 0.2, 1., 5., 2., 0.5, 12., 45., 3., 1e-4, 1e-20, 150., 0.], f32)
# jax.lax.random_gamma_grad(A, X), jax 0.10.2
JAX = [0.6354139447212219, 5.119692802429199, 0.7940505146980286, 1.1735634803771973,
       2.3570754528045654, 0.9534622430801392, 0.3761754035949707, 1.112329363822937,
       0.9514099955558777, 4.066905498504639, 0.00016037319437600672,
       4.547612426503156e-16, 1.2184152603149414, 0.0]


def test_random_gamma_grad_values():
    # astjax divides dP/da by the density where JAX sums a series for the ratio: the
    # same function, float32 rounding apart (largest at a=100, x=150)
    got = np.asarray(lax.random_gamma_grad(A, X))
    np.testing.assert_allclose(got, JAX, rtol=3e-5)
    got = np.asarray(astjax.jit(astjax.vmap(lax.random_gamma_grad))(A, X))
    np.testing.assert_allclose(got, JAX, rtol=3e-5)


def test_random_gamma_grad_edges_broadcast_and_dtypes():
    for a, x in ((-1., 1.), (1., -1.), (np.nan, 1.), (2., np.inf)):   # JAX: NaN
        assert np.isnan(float(lax.random_gamma_grad(f32(a), f32(x))))
    got = lax.random_gamma_grad(jnp.arange(1., 4.), f32(2.))
    np.testing.assert_allclose(np.asarray(got), [1.6316908597946167, 1.0862085819244385,
                                                 0.8565716743469238], rtol=3e-5)
    got = lax.random_gamma_grad(jnp.arange(1., 3., dtype=jnp.float16), jnp.ones(2, jnp.float16))
    assert got.dtype == jnp.float16
    np.testing.assert_array_equal(np.asarray(got), np.array([1.174, 0.751], np.float16))
    with pytest.raises(TypeError):     # JAX: a broadcast_in_dim TypeError
        lax.random_gamma_grad(jnp.arange(1., 4.), jnp.ones((2, 1)))
    with pytest.raises(TypeError):
        lax.random_gamma_grad(jnp.arange(3), jnp.arange(3))


KEY = astjax.random.key(0)
ALPHAS = jnp.array([0.2, 1., 3., 30.])


@pytest.mark.parametrize("name, fn, arg, want", [
    ("gamma", lambda a: astjax.random.gamma(KEY, a, (5,)).sum(), jnp.float32(2.5),
     5.5390553),
    ("gamma_vec", lambda a: astjax.random.gamma(KEY, a).sum(), ALPHAS,
     [2.697946310043335, 0.9927736520767212, 0.849271297454834, 1.1195329427719116]),
    ("loggamma", lambda a: astjax.random.loggamma(KEY, a).sum(), ALPHAS,
     [5.765992641448975, 1.3669203519821167, 0.431459903717041, 0.029986988753080368]),
    ("beta", lambda a: astjax.random.beta(KEY, a, 2.).sum(), ALPHAS[:3],
     [0.5617136359214783, 0.5775010585784912, 0.035957012325525284]),
])
def test_grad_of_gamma_samplers_as_jax(name, fn, arg, want):
    np.testing.assert_allclose(np.asarray(astjax.grad(fn)(arg)), want, rtol=3e-6)


def test_vectorized_sampler_bits_equal_jax():
    # jax.random.gamma(jax.random.key(0), [0.2, 1, 3, 30]), jax 0.10.2: bit for bit
    got = astjax.random.gamma(KEY, ALPHAS)
    np.testing.assert_array_equal(np.asarray(got), np.array(
        [0.4679066240787506, 0.726284921169281, 1.9683666229248047, 37.33396530151367], f32))
