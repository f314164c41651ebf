"""Differences the API fuzzer found on the merged main (seeds 48312, 48907 and the fresh
49150..51150), each pinned with JAX 0.10.2's answer (or, where JAX's is documented as
wrong in docs/coming_from_jax.md, SciPy's) written out: no JAX needed to run them."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.scipy import special


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
def test_betaln_of_a_large_argument_keeps_its_digits(wrap):
    # betaln(1, 1e6) is -log(1e6); gammaln(1e6) - gammaln(1e6 + 1) in float32 lost every
    # digit after the point (-13.0); JAX (and now astjax) use Stirling's series there
    got = wrap(special.betaln)(np.float32([1.0, 0.5, 1e-3]), np.float32([1e6, 100.0, 1e4]))
    np.testing.assert_allclose(np.asarray(got), [-13.81551, -1.7289703, 6.897968], rtol=2e-6)
    np.testing.assert_allclose(np.asarray(special.beta(1.0, 1e6)), 1.0000008e-06, rtol=1e-6)


def test_betaln_float64_is_scipys_where_jax_drifts():
    # JAX 0.10.2's series sums powers of a/(a+b) where SciPy's algdiv sums powers of
    # b/(a+b): JAX's betaln(4, 8) is -7.185385818795683, 1.2e-6 off SciPy's
    with astjax.enable_x64():
        got = special.betaln(np.array([4.0, 0.5, -3.5]), np.array([8.0, 20.0, 9.0]))
        np.testing.assert_allclose(
            np.asarray(got), [-7.1853870155804165, -0.9192518444066039, 5.3377822501334915],
            rtol=1e-14)


def test_betaln_gradient_is_finite_off_the_poles():
    # JAX 0.10.2's gradient is NaN wherever a + b < 0 (its unselected large-argument
    # branch takes log1p(a/b) < -1); the derivative is digamma(a) - digamma(a + b)
    g = astjax.grad(special.betaln, (0, 1))(-0.28, -0.5)
    np.testing.assert_allclose(np.asarray(g), [5.934219533, 3.563876937], rtol=1e-5)


def test_betaln_gradient_at_a_pole_is_nan_as_jax():
    # seed 48907: the sum has terms at b = 0 and b = -1, poles of gamma(b), so the loss is
    # +inf and JAX's gradient is NaN; astjax gave the finite 18.84
    a = np.array(-0.28076171875, np.float16)
    b = np.array([[[0.0, -1.0, -1.0]], [[0.5, -0.5, 0.5]]], np.float16)
    with astjax.enable_x64():
        g = astjax.grad(lambda x: jnp.sum(special.betaln(x, b)))(a)
    assert g.dtype == np.float16 and np.isnan(np.asarray(g))


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_select_n_index_out_of_range_takes_the_nearest_case(wrap):
    # seed 49273: JAX lowers select_n to a tree of `which < mid` selects, so a negative
    # index takes cases[0] and a large one the last; astjax's chain of `which == i`
    # selects gave the last case for a negative index
    which = np.array([-5, -1, 0, 1, 2, 3, 7], np.int32)
    cases = [np.full(7, float(i)) for i in range(3)]
    got = wrap(lambda w, *c: astjax.lax.select_n(w, *c))(which, *cases)
    np.testing.assert_array_equal(np.asarray(got), [0, 0, 0, 1, 2, 2, 2])
    u = np.array([0, 1, 2, 200, 255, 3, 7], np.uint8)
    got = wrap(lambda w, *c: astjax.lax.select_n(w, *c))(u, *cases, cases[0] + 3, cases[0] + 4)
    np.testing.assert_array_equal(np.asarray(got), [0, 1, 2, 4, 4, 3, 4])


def test_select_n_gradient_skips_an_index_out_of_range():
    # JAX's transpose sends a case's cotangent where which == i only: none out of range
    loss = lambda c: jnp.sum(astjax.lax.select_n(np.array([-1, 0, 9, 1]), c, c * 2, c * 3))
    np.testing.assert_array_equal(np.asarray(astjax.grad(loss)(np.ones(4))), [0, 1, 0, 2])


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_slogdet_small_sign_is_lax_sign(wrap):
    # seed 49247: JAX's 1x1 / 2x2 slogdet takes sign(det), nan + 0j for inf + 0.77j;
    # astjax divided det by |det| (nan + nanj)
    a = np.array([[[-1.1894574 - 0.0246929j]], [[np.inf + 0.7710006j]]], np.complex64)
    sign, logdet = wrap(jnp.linalg.slogdet)(a)
    sign = np.asarray(sign)
    np.testing.assert_allclose(sign[0], -0.99978465 - 0.02075535j, rtol=1e-6)
    assert np.isnan(sign[1].real) and sign[1].imag == 0 and np.asarray(logdet)[1] == np.inf


def test_slogdet_small_complex_jvp_as_jax():
    # the sign's tangent is i Im(trace(a^-1 da)) sign (JAX's closed-form rule)
    a = np.array([[1 + 2j, 3 - 1j], [0.5j, 2 + 0j]], np.complex64)
    _, (dsign, dlog) = astjax.jvp(jnp.linalg.slogdet, (a,), (np.ones_like(a),))
    np.testing.assert_allclose(np.asarray(dsign), -0.3783057 + 0.22698343j, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(dlog), 0.7352941, rtol=1e-6)


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
def test_complex_max_min_with_nan_select_as_jax(wrap):
    # seed 49961: JAX's complex max / min is select(x beyond y, x, y): maximum(nan, -0.357j)
    # is -0.357j, maximum(-0.357j, nan) NaN; astjax let a NaN x win. Reductions and
    # cumulative ones use the same select (JAX: max([nan, -0.357j, 1+1j]) = 1+1j)
    n, z, o = complex(np.nan, 0), -0.357j, 1 + 1j
    x = np.array([n, z, complex(1, np.nan), o], np.complex64)
    y = np.array([z, n, o, complex(1, np.nan)], np.complex64)
    for f in (jnp.maximum, jnp.minimum):
        got = np.asarray(wrap(f)(x, y))
        assert got[0] == z and np.isnan(got[1].real) and got[2] == o and np.isnan(got[3].imag)
    a = np.array([n, z, o], np.complex64)
    assert np.asarray(wrap(jnp.max)(a)) == o and np.asarray(wrap(jnp.min)(a)) == z
    got = np.asarray(wrap(astjax.lax.cummax)(np.array([n, z, o, complex(np.nan, 1), 2j, 0j],
                                                     np.complex64)))
    assert np.isnan(got[0]) and list(got[1:3]) == [z, o] and list(got[4:]) == [2j, 2j]


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
@pytest.mark.parametrize("name", ["quantile", "nanquantile", "percentile", "nanpercentile"])
def test_quantile_of_an_empty_axis_raises_as_jax(wrap, name):
    # seed 60184: JAX raises (TypeError; IndexError for the NaN-skipping forms) where the
    # reduced axis is empty and there are results to fill; astjax gave 0.0 (or NaN)
    f = getattr(jnp, name)
    for shape, axis in [((0,), None), ((2, 0), -1), ((0, 3), 0)]:
        with pytest.raises((TypeError, IndexError)) as e:
            wrap(lambda x: f(x, 0.5, axis=axis))(np.zeros(shape, np.float32))
        assert isinstance(e.value, TypeError) and isinstance(e.value, IndexError)
    with pytest.raises(TypeError):
        wrap(lambda x: jnp.median(x, axis=-1))(np.zeros((2, 0), np.float32))
    # nothing to fill: an empty result, as JAX
    assert wrap(lambda x: f(x, 0.5, axis=0))(np.zeros((3, 0), np.float32)).shape == (0,)


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.vmap])
def test_multigammaln_and_logmeanexp_keep_a_half_precision_dtype(wrap):
    # seeds 60428 / 61062: a float64 NumPy constant (log(pi), log(n)) promoted float16 /
    # bfloat16 to float32 (float64 with x64 on); JAX computes in the operand's dtype
    x = np.array([[40.3, 1.7], [3.3, 2.5]], np.float16)
    got = wrap(lambda a: special.multigammaln(a, 3))(x)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(np.asarray(got)[0], np.array([319.8, 1.796], np.float16))
    bf = np.array([[1.0, 2.5, -1.0], [0.0, 0.0, 0.0]], jnp.bfloat16)
    with astjax.enable_x64():
        got = wrap(lambda v: astjax.nn.logmeanexp(v, axis=-1))(bf)
    assert got.dtype == jnp.bfloat16
    assert float(np.asarray(got)[0]) == 1.6171875    # JAX's bfloat16 1.61719


def test_identity_transpose_and_broadcast_convert_a_numpy_operand():
    # seed 50678: lax.transpose by the identity returned a NumPy int64 operand as it is
    # (int64 with x64 off); JAX returns only its own Array unchanged, and converts a
    # NumPy one (int32). lax.broadcast_in_dim to the same shape alike
    x = np.array([1, -7, -6, -5], np.int64)
    got = astjax.lax.transpose(x, (0,))
    assert isinstance(got, astjax.Array) and got.dtype == np.int32
    got = astjax.lax.broadcast_in_dim(np.ones(3, np.float64), (3,), (0,))
    assert isinstance(got, astjax.Array) and got.dtype == np.float32


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
def test_index_in_dim_and_slice_in_dim_count_a_negative_index_from_the_end(wrap):
    # API fuzz seed 61807: JAX [[1, 0, 7]]; astjax raised a ShapeError (slice (-1, 0))
    a = np.array([[2, 1, 6], [1, 0, 7]], np.uint64)
    got = wrap(lambda x: astjax.lax.index_in_dim(x, -1, 0))(a)
    assert np.asarray(got).tolist() == [[1, 0, 7]]
    assert np.asarray(astjax.lax.index_in_dim(a, -1, 1, keepdims=False)).tolist() == [6, 7]
    assert np.asarray(astjax.lax.slice_in_dim(jnp.arange(5), -3, -1)).tolist() == [2, 3]
    with pytest.raises(IndexError, match="index -3 is out of bounds for axis 0 with size 2"):
        astjax.lax.index_in_dim(a, -3, 0)
