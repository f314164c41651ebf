"""Findings of the differential API fuzzer (tests/fuzz/api_run.py) and the known
differences left from the last session, the twenty-second session, with JAX 0.10.2's
results stored as literals."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.scipy.special import owens_t, poch


@pytest.mark.parametrize("v, eager, jitted", [
    (-2.5, 0, 254), (-1.0, 0, 255), (300.0, 255, 44), (1e10, 255, 0), (255.9, 255, 255),
    (np.float32(-2.5), 254, 254), (np.float64(300.0), 44, 44), (np.float32(np.nan), 0, 0),
])
def test_float_fill_of_an_unsigned_template_converts_as_jax(v, eager, jitted):
    # seed 65385: vmap(lambda x: full_like(x, -2.5)) of uint8 gave 254, JAX 0 -- JAX
    # runs the unbatched fill op by op there (XLA saturates), folds it by the host's
    # cast inside jit; a NumPy float scalar NumPy casts first, in every mode
    x = np.array([1, 2, 200], np.uint8)
    with np.errstate(invalid="ignore"):
        assert np.asarray(jnp.full_like(x, v)).tolist() == [eager] * 3
        assert np.asarray(jax.vmap(lambda u: jnp.full_like(u, v))(x)).tolist() == [eager] * 3
        assert np.asarray(jax.jit(lambda u: jnp.full_like(u, v))(x)).tolist() == [jitted] * 3
        assert int(lax.convert_element_type(v, jnp.uint8)) == eager


def test_custom_jvp_rule_sees_a_float0_tangent_for_an_integer_argument():
    # JAX instantiates an integer argument's tangent as float0 zeros; astjax gave the
    # rule int32 zeros, so arithmetic on it ran where JAX's raises TypeError
    @jax.custom_jvp
    def f(z, m):
        return z * m

    seen = []

    @f.defjvp
    def f_jvp(p, t):
        seen.append(np.dtype(t[1].dtype))
        return f(*p), t[0] * p[1]
    assert float(jax.grad(f)(0.5, 2)) == 2.0
    assert seen[-1] == jax.dtypes.float0

    g = jax.custom_jvp(lambda z, m: z * m)
    g.defjvps(lambda dz, out, z, m: m * dz, lambda dm, out, z, m: z * dm)
    with pytest.raises(TypeError):
        jax.grad(g)(0.5, 2)
    assert float(jax.grad(g)(0.5, 2.0)) == 2.0


@pytest.mark.parametrize("m", [-2, np.int32(2), True])
def test_grad_of_poch_with_an_integer_m_is_jaxs_type_error(m):
    # seed 65422: JAX's poch is a custom_jvp whose m rule multiplies m's float0 tangent
    # (TypeError); astjax differentiated its formula
    with pytest.raises(TypeError):
        jax.grad(lambda z: jnp.sum(poch(z, m)))(np.float32(0.5))


def test_poch_derivatives_are_jaxs():
    # JAX's rules: (digamma(z + m) - digamma(z)) poch(z, m) and digamma(z + m) poch(z, m)
    np.testing.assert_allclose(float(jax.grad(poch)(np.float32(0.5), 2.0)),
                               np.uint32(1073741828).view(np.float32), rtol=2e-6)
    np.testing.assert_allclose(float(jax.grad(poch, 1)(np.float32(0.5), np.float32(2.0))),
                               np.uint32(1057423763).view(np.float32), rtol=2e-6)
    got = jax.vmap(jax.grad(lambda z: poch(z, 3.0)))(np.linspace(0.1, 3, 4, dtype=np.float32))
    np.testing.assert_allclose(np.asarray(got), [2.630001, 11.813333, 26.603365, 47.00004],
                               rtol=2e-6)


def test_owens_t_bfloat16_rounds_each_step_eagerly_as_jax():
    # seed 65178: JAX's owens_t is not jitted, so eagerly each bfloat16 operation
    # rounds; astjax compiled it whole (XLA keeps excess precision)
    h = np.array([1.5, 1.0, -0.0, 0.3], jnp.bfloat16)
    a = np.array([0.5, -10.5, -7.5, 3.0], jnp.bfloat16)
    r = owens_t(h, a)
    assert r.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(r), np.float32(
        [0.022006455808877945, -0.0791015625, -0.2288818359375, 0.17823180556297302]))
    # (compiled, JAX's digits are XLA's excess-precision ones)
    np.testing.assert_allclose(np.asarray(jax.jit(owens_t)(h, a))[2:],
                               [-0.22885572910308838, 0.17725524306297302], rtol=1e-7)


# JAX 0.10.2's weak-type flags with Python floats and one int32 array argument
# (np.array([a, a + 1], int32)) at the position marked "i": the stats functions'
# constants are `lax._const` of one argument each (weak only when it is 0-d), and JAX
# promotes to one rank, not one shape (astjax broadcast the 0-d arguments: strong)
_STATS_WEAK = [
    ("chi2.logpdf", "pi", True), ("chi2.logpdf", "ppi", True), ("chi2.logpdf", "pipp", True),
    ("gamma.logpdf", "pi", True), ("gamma.logpdf", "ppip", True),
    ("gamma.logpdf", "pppi", True), ("pareto.logcdf", "ip", True),
    ("pareto.logcdf", "ippp", True), ("poisson.cdf", "ppi", True),
    ("chi2.cdf", "pppi", False), ("chi2.sf", "pppi", False), ("chi2.cdf", "ippp", False),
    ("gamma.cdf", "pppi", True), ("uniform.logpdf", "ip", True), ("uniform.pdf", "ipp", True),
    ("uniform.ppf", "ip", True), ("vonmises.logpdf", "ip", True),
    ("wrapcauchy.logpdf", "ip", True),
]


@pytest.mark.parametrize("name, kinds, weak", _STATS_WEAK)
def test_stats_weak_type_follows_each_constants_argument_as_jax(name, kinds, weak):
    import astjax.scipy.stats as st
    dist, fn = name.split(".")
    base = [0.0 if fn == "ppf" else 1.5, 2.0, 0.5, 1.5]
    if dist == "wrapcauchy":
        base[1] = 0.5
    args = [np.array([int(b), int(b) + 1], np.int32) if k == "i" else b
            for k, b in zip(kinds, base)]
    r = getattr(getattr(st, dist), fn)(*args)
    assert r.dtype == np.float32 and jax.typeof(r).weak_type == weak


def test_pareto_logcdf_is_jaxs_expression():
    # log1p(-y^-b), -inf below loc + scale (astjax: log(-expm1(logsf))), bit for bit
    import astjax.scipy.stats as st
    x = np.array([0.5, 1.0, 1.5, 3.0, 100.0, np.inf, np.nan], np.float32)
    got = np.asarray(st.pareto.logcdf(x, 0.5, 0.2, 1.5)).view(np.uint32).tolist()
    assert got == [4286578688, 4286578688, 4286578688, 3215491764, 3188059535, 2147483648,
                   4294967295]
