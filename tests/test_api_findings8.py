"""Findings of the differential API fuzzer (tests/fuzz/api_run.py, seeds 56650:59650,
`--new-names` 64000:65000, the stats table 76750:77500) and the session's known
last-ulp and weak-type differences, the twentieth session, with JAX 0.10.2's results
stored as literals."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

C15 = np.array([-0.73226738, -0.544259, -0.316300154, 0.411630541, 1.04251337, -0.12853466,
                1.36646342, -0.66519469, 0.351510078, 0.903470158, 0.0940122976,
                -0.743499279, -0.921725392, -0.457725823, 0.22019513], np.float32)


def test_var_of_a_closed_over_constant_rounds_as_jax_under_jit():
    # JAX stages `_var` as a nested call with ddof an operand: XLA folds the constant
    # program dividing by N - ddof, not by a constant N (one ulp apart when inlined)
    bits = lambda v: int(np.asarray(v).view(np.uint32))   # noqa: E731
    assert bits(jax.jit(lambda: jnp.var(C15))()) == 1056121381
    assert bits(jax.jit(lambda: jnp.std(C15, ddof=1))()) == 1060543098
    assert bits(jax.jit(jnp.var)(C15)) == 1056121385
    text = str(jax.make_jaxpr(jnp.var)(C15))
    assert "jit[name=_var" in text, text


def test_bernoulli_ppf_nan_dtype_and_weak_type_as_jax():
    # JAX: NaN for a NaN q or p (astjax gave 1), 0 and 1 as q's constants: float16 stays
    # float16, strong unless q is a weak scalar (astjax: weak float32 from Python 0.0 / 1.0)
    import astjax.scipy.stats as st
    for f in (st.bernoulli.ppf, jax.jit(st.bernoulli.ppf)):
        r = f(np.float32([0.5, np.nan, 0.9]), 0.3)
        np.testing.assert_array_equal(np.asarray(r), np.float32([0.0, np.nan, 1.0]))
        assert not jax.typeof(r).weak_type
        r = f(0.5, np.float16([0.3, np.nan]))
        assert r.dtype == np.float16 and not jax.typeof(r).weak_type
        np.testing.assert_array_equal(np.asarray(r), np.float16([0.0, np.nan]))
        r = f(0.5, 0.3)
        assert r.dtype == np.float32 and jax.typeof(r).weak_type and float(r) == 0.0


def test_zeta_polygamma_python_scalar_beside_float32_under_x64():
    # the Python scalar promotes to a weak float32 (astjax made a float64 of it under
    # x64: lax.zeta's DTypeError, api fuzzer seed 57616); JAX 0.10.2's float32 bits
    import astjax.scipy.special as sp
    q = np.array([0.25, 1.5], np.float32)
    with jax.enable_x64(True):
        for f in (lambda a, b: sp.zeta(a, b), jax.jit(sp.zeta)):
            r = f(2.5, q)
            assert r.dtype == np.float32 and not jax.typeof(r).weak_type
            assert np.asarray(r).view(np.uint32).tolist() == [1107518410, 1058478860]
        r = sp.polygamma(1, q)
        assert np.asarray(r).view(np.uint32).tolist() == [1099535394, 1064259379]


def test_expi_float16_finite_where_jax_is_nan():
    # documented difference (docs/coming_from_jax.md): JAX 0.10.2's float16 expi is NaN
    # at 0.268 and 10 (api fuzzer seed 57242); SciPy: -0.45243, 2492.23
    import astjax.scipy.special as sp
    r = np.asarray(sp.expi(np.float16([0.268, 10.0])), np.float64)
    np.testing.assert_allclose(r, [-0.45243, 2492.23], rtol=3e-3)


@pytest.mark.parametrize("how", ["eager", "jit", "vmap"])
def test_poch_is_one_where_m_is_zero(how):
    # JAX's where(m == 0, 1, ...): poch(0, -0) was NaN (the ratio at gamma's pole;
    # api fuzzer seed 64736); a strong result of z's dtype, as JAX's
    import astjax.scipy.special as sp
    f = {"eager": sp.poch, "jit": jax.jit(sp.poch), "vmap": jax.vmap(sp.poch)}[how]
    r = f(np.float32([-0.0, 0.0, 3.0]), np.float32([0.5, -0.0, 0.0]))
    assert np.asarray(r).tolist() == [-0.0, 1.0, 1.0] and r.dtype == np.float32
    r = sp.poch(2.0, 0.0)
    assert float(r) == 1.0 and not jax.typeof(r).weak_type
