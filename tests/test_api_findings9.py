"""Findings of the differential API fuzzer (tests/fuzz/api_run.py, seeds 59650:62650,
`--new-names` 65000:66000, the stats table 77500:78250) and the known differences left
from the last session, the twenty-first session, with JAX 0.10.2's results stored as
literals."""
import numpy as np
import pytest

import astjax as jax
import astjax.random as random
import astjax.scipy.stats as st


def test_permutation_checks_x_and_axis_as_jax():
    # JAX checks the axis first (against one dimension for an integer x) and refuses a
    # list; astjax ignored the axis of an integer x and converted the list
    key = random.key(0)
    with pytest.raises(TypeError):
        random.permutation(key, 3, None)
    with pytest.raises(ValueError):
        random.permutation(key, 3, 1)
    with pytest.raises(TypeError):
        random.permutation(key, [1, 2, 3])
    assert random.permutation(key, 3, -1).shape == (3,)


def test_orthogonal_size_errors_are_jax_classes():
    # JAX: ValueError for a negative size (astjax: a ShapeError, a TypeError, from iota),
    # TypeError for a float size (astjax truncated 2.0 to 2)
    key = random.key(0)
    for n, m in [(-1, None), (2, -1), (0, -1)]:
        with pytest.raises(ValueError):
            random.orthogonal(key, n, m=m)
    with pytest.raises(TypeError):
        random.orthogonal(key, 2.0)
    assert random.orthogonal(key, 0).shape == (0, 0)


@pytest.mark.parametrize("call, want", [
    (lambda: st.bernoulli.logpmf(np.int32(1), 0.3), -1.2039728164672852),
    (lambda: st.bernoulli.pmf(np.int32(1), 0.3), 0.30000001192092896),
    (lambda: st.bernoulli.cdf(np.int32(0), 0.3), 0.699999988079071),
    (lambda: st.beta.cdf(np.int32(1), 2.0, 3.0), 1.0),
    (lambda: st.beta.logpdf(0.5, np.int32(2), 3.0), 0.40546584129333496),
    (lambda: st.gamma.logpdf(np.int32(1), 2.0), -1.0),
])
def test_stats_int32_scalar_with_python_float_is_weak_as_jax(call, want):
    # JAX's promote_args_inexact: an int32 scalar with a Python float is a weak float32,
    # and 0-d weak arguments give weak constants; astjax made the result strong
    r = call()
    assert r.dtype == np.float32 and jax.typeof(r).weak_type
    np.testing.assert_allclose(float(r), want, rtol=2e-6)


def test_bernoulli_ppf_python_q_with_float32_p_is_strong():
    # JAX promotes q to a strong float32 (its constants then strong); astjax kept q weak
    r = st.bernoulli.ppf(0.7, np.float32(0.3))
    assert r.dtype == np.float32 and not jax.typeof(r).weak_type and float(r) == 0.0


def test_poisson_logpmf_checks_k_not_k_minus_loc():
    # stats seed 77550 / 77839: JAX gives -inf where k itself is not an integer (not
    # k - loc) and NaN for a NaN loc; astjax tested k - loc
    k = np.array([-0.5, -0.5, 2.0], np.float32)
    loc = np.array([-1.0, -2.5, 0.5], np.float32)
    r = np.asarray(st.poisson.logpmf(k, 3.5, loc))
    assert r[0] == r[1] == -np.inf
    np.testing.assert_allclose(r[2], -1.9055384397506714, rtol=2e-6)
    r = st.poisson.logpmf(np.array([-0.0, 1.0]), np.float32([-1.0, 1.0]), np.nan)
    assert np.isnan(np.asarray(r)).all()


def test_axis_kinds_jax_refuses_raise_its_classes():
    # JAX takes only a tuple (norm, quantile / median) or a tuple, list or array
    # (logsumexp) as several axes: a range is one axis, a TypeError; a list or array
    # where JAX's jit takes the argument static is its ValueError; astjax accepted them
    import astjax.numpy as jnp
    from astjax.scipy.special import logsumexp
    x = np.ones((2, 3), np.float32)
    for f in (lambda: logsumexp(x, axis=range(2)), lambda: jnp.linalg.norm(x, axis=range(2)),
              lambda: jnp.median(x, axis=range(2)), lambda: jnp.quantile(x, 0.5, axis=range(2))):
        with pytest.raises(TypeError):
            f()
    for f in (lambda: jnp.linalg.norm(x, axis=[0, 1]), lambda: jnp.quantile(x, 0.5, axis=[0]),
              lambda: jnp.resize(x, np.array([2, 2])), lambda: jnp.resize(x, [2, 2])):
        with pytest.raises(ValueError):
            f()
    np.testing.assert_allclose(float(logsumexp(x, axis=[0, 1])), 2.791759490966797, rtol=1e-6)
    assert jnp.resize(x, (2, 2)).shape == (2, 2)


def test_special_beta_python_float_beside_float32_under_x64():
    # the Python float promotes to a strong float32 (as JAX's promote_args_inexact);
    # astjax kept it weak, and gammasgn of the weak value was float64: a float64 result
    import astjax.scipy.special as sp
    with jax.enable_x64(True):
        r = sp.beta(np.float32(2.0), 3.0)
        assert r.dtype == np.float32 and not jax.typeof(r).weak_type
        assert float(r) == 0.08333326876163483
        r = sp.beta(2.0, 3.0)
        assert r.dtype == np.float64 and float(r) == 0.08333333333333318


def test_stats_weak_types_follow_each_functions_constants():
    # JAX's norm.cdf / sf are strong however promoted (ndtr's constants; astjax: weak for
    # Python scalars); logistic.logpdf is weak only when every argument is 0-d
    assert not jax.typeof(st.norm.cdf(0.7)).weak_type
    assert not jax.typeof(st.norm.sf(0.7, 1, np.int32(1))).weak_type
    assert not jax.typeof(st.logistic.logpdf(0.7, 0.5, np.array([1, 2], np.int32))).weak_type
    assert jax.typeof(st.logistic.pdf(np.int32(1), 0.5, 2.0)).weak_type
    assert jax.typeof(st.bernoulli.ppf(0.7, np.array([0, 1], np.int32))).weak_type
    assert not jax.typeof(st.uniform.cdf(0.7, 0.0, np.int32(1))).weak_type
    assert not jax.typeof(st.uniform.cdf(0.7)).weak_type


def test_ndtr_is_jaxs_formula_strong_and_rounded_as_jax():
    # JAX's ndtr: erf near 0, erfc in the tails, with strong constants of x's dtype;
    # astjax's 0.5 * erfc(-x / sqrt 2) was 1 ulp off at 0.7 and weak for a Python float
    import astjax.scipy.special as sp
    for x in (np.float32(0.7), 0.7):
        r = sp.ndtr(x)
        assert r.dtype == np.float32 and not jax.typeof(r).weak_type
        assert float(r) == 0.7580363750457764
    r = sp.ndtr(np.array([0.7, -0.3, 2.5, -3.0, 1e-3], np.float32))
    assert np.asarray(r).tolist() == [0.7580363750457764, 0.3820885717868805,
                                      0.993790328502655, 0.0013498987536877394,
                                      0.5003989338874817]


def test_take_along_axis_with_an_empty_batching_dimension():
    # seed 59665: a size-0 dimension beside the axis gathers slices of size 0 (JAX's);
    # astjax's slice size 1 was a ShapeError
    import astjax.numpy as jnp
    a, i = np.zeros((2, 0), np.uint32), np.zeros((3, 0), np.int32)
    for f in (jnp.take_along_axis, jax.jit(jnp.take_along_axis, static_argnames=("axis", "mode"))):
        for mode in (None, "clip"):
            r = f(a, i, axis=0, mode=mode) if mode else f(a, i, axis=0)
            assert r.shape == (3, 0) and r.dtype == np.uint32


# JAX 0.10.2's weak-type flag with an int32 array (np.array([a, a + 1], int32)) in one
# argument position and Python floats in the others, position by position: weak unless
# the function builds a constant from that argument (lax._const of a rank >= 1 array)
_INT32_ARRAY_WEAK = [
    ("expon.logpdf", "111"),
    ("expon.cdf", "111"),
    ("expon.sf", "111"),
    ("expon.logsf", "111"),
    ("expon.ppf", "111"),
    ("gumbel_l.logpdf", "111"),
    ("gumbel_l.cdf", "111"),
    ("gumbel_l.ppf", "111"),
    ("gumbel_r.logpdf", "111"),
    ("gumbel_r.cdf", "111"),
    ("gumbel_r.sf", "011"),
    ("gumbel_r.ppf", "111"),
    ("poisson.logpmf", "111"),
    ("poisson.pmf", "111"),
    ("gamma.sf", "1111"),
    ("gamma.logsf", "1111"),
    ("logistic.cdf", "111"),
    ("logistic.sf", "111"),
    ("binom.logpmf", "1111"),
    ("binom.pmf", "1111"),
    ("gennorm.logpdf", "11"),
    ("gennorm.cdf", "11"),
]


@pytest.mark.parametrize("name, flags", _INT32_ARRAY_WEAK)
def test_stats_int32_array_argument_weak_type_as_jax(name, flags):
    # astjax made every int32 array in the first argument strong; JAX's is weak where
    # the function has no constant of that argument (expon, gumbel, poisson.logpmf, ...)
    dist, fn = name.split(".")
    f = getattr(getattr(st, dist), fn)
    for i, want in enumerate(flags):
        args = [0.4 if fn == "ppf" and k == 0 else 2.0 if k else 1.0 for k in range(len(flags))]
        if dist == "binom":
            args[1:3] = [3.0, 0.4]
        args[i] = np.array([round(args[i]), round(args[i]) + 1], np.int32)
        r = f(*args)
        assert r.dtype == np.float32 and jax.typeof(r).weak_type == (want == "1"), i


def test_heaviside_checks_the_dtype_before_the_shapes_as_jax():
    # seed 59925 (x64): JAX's lax.lt refuses complex64 (TypeError) before `where` finds
    # the shapes do not broadcast (ValueError, also for operands of one rank); astjax
    # broadcast first (a ValueError for the complex case, a TypeError for (3,) vs (4,))
    import astjax.numpy as jnp
    with pytest.raises(TypeError):
        jnp.heaviside(np.zeros((2, 0), np.complex64), np.ones(4, np.float16))
    with pytest.raises(ValueError):
        jnp.heaviside(np.zeros(3), np.ones(4))
    r = jnp.heaviside(np.array([[-1.0, 0.0, 2.0]], np.float32), np.float32(0.5))
    assert r.shape == (1, 3) and np.asarray(r).tolist() == [[0.0, 0.5, 1.0]]
    assert jnp.heaviside(np.array([-1.0, 0.0]), np.array([[0.3], [0.7]])).shape == (2, 2)
