"""The derivative of `random.gamma` (and loggamma, beta, dirichlet, chisquare, t) with
respect to its shape parameter: JAX's implicit reparameterization gradient.

JAX_VALUES were printed by JAX 0.10.2 for the program `_grads` below (run with
`import jax`); astjax must agree to float32 rounding. The identity behind the rule is
checked independently in float64: a sample held at its quantile u = P(a, x) (P the
gamma CDF, `lax.igamma`) moves by dx/da, so P(a +- h, x +- h dx/da) stays u."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

JAX_VALUES = {'gamma0.1': 3.452770948410034, 'loggamma0.1': 241.517578125, 'gamma0.5': 3.7522706985473633, 'loggamma0.5': 14.507822036743164, 'gamma1.0': 3.3359222412109375, 'loggamma1.0': 8.153054237365723, 'gamma2.5': 3.6815836429595947, 'loggamma2.5': 2.1683974266052246, 'gamma10.0': 3.8614044189453125, 'loggamma10.0': 0.43889835476875305, 'gamma80.0': 3.9526596069335938, 'loggamma80.0': 0.050975605845451355, 'beta': [0.582871675491333, -0.9753987193107605], 'dirichlet': [-0.11496784538030624, -0.11075673252344131, 0.03437570109963417], 'vmap': [0.4993799030780792, 0.6673418879508972], 'jit': 1.0827866792678833, 't': 0.050148069858551025}


def _grads(jax, jnp):
    k = jax.random.key(3)
    out = {}
    for a in [0.1, 0.5, 1.0, 2.5, 10.0, 80.0]:
        out[f"gamma{a}"] = jax.grad(lambda a: jnp.sum(jax.random.gamma(k, a, (4,))))(a)
        out[f"loggamma{a}"] = jax.grad(lambda a: jnp.sum(jax.random.loggamma(k, a, (4,))))(a)
    out["beta"] = jax.grad(lambda a, b: jnp.sum(jax.random.beta(k, a, b, (3,))),
                           argnums=(0, 1))(1.5, 0.7)
    out["dirichlet"] = jax.grad(lambda al: jnp.sum(jax.random.dirichlet(k, al) ** 2))(
        jnp.array([0.5, 2.0, 3.0]))
    out["vmap"] = jax.vmap(jax.grad(lambda a: jax.random.gamma(k, a)))(jnp.array([0.3, 3.0]))
    out["jit"] = jax.jit(jax.grad(lambda a: jnp.sum(jax.random.chisquare(k, a, (2,)))))(3.0)
    out["t"] = jax.grad(lambda a: jnp.sum(jax.random.t(k, a, (2,))))(4.0)
    return out


@pytest.fixture(scope="module")
def grads():
    return _grads(astjax, jnp)


@pytest.mark.parametrize("name", sorted(JAX_VALUES))
def test_matches_jax(grads, name):
    got = np.hstack([np.ravel(np.asarray(g, np.float64)) for g in
                     (grads[name] if isinstance(grads[name], tuple) else [grads[name]])])
    np.testing.assert_allclose(got, np.ravel(JAX_VALUES[name]), rtol=5e-5, err_msg=name)


@pytest.mark.parametrize("a", [0.2, 1.0, 3.7, 40.0])
def test_sample_stays_at_its_quantile(x64, a):
    key = astjax.random.key(11)
    alphas = jnp.full((6,), a, jnp.float64)
    x, dx = astjax.jvp(lambda al: astjax.random.gamma(key, al, dtype=jnp.float64),
                       (alphas,), (jnp.ones_like(alphas),))
    h = 1e-4 * a
    drift = (lax.igamma(alphas + h, x + h * dx) - lax.igamma(alphas - h, x - h * dx)) / (2 * h)
    # |dP/da| alone is of order 0.1-1 here: the rule must cancel it to the FD error
    assert np.max(np.abs(np.asarray(drift))) < 1e-6
    assert np.max(np.abs(np.asarray(lax.igamma_grad_a(alphas, x)))) > 1e-2
