"""Differences the fuzzers found on the merged main (API fuzzer seeds 43450..44250,
program fuzzer seeds 4700884.., 3600620.., 2601700..), each pinned with JAX 0.10.2's
or Python's answer written out (no JAX needed to run them)."""
import contextlib

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_float_floor_divide_is_pythons_divmod_quotient(wrap):
    # seed 43525: inf // -0.39 was -inf (floor(x / y)); JAX and Python give NaN, and
    # 1.0 // 0.1 is 9.0 (floor(1.0 / 0.1) rounds to 10.0)
    x = np.array([np.inf, 1.0, -1.0, 7.5, 0.0, 3.0], np.float64)
    y = np.array([-0.39, 0.1, 0.1, -2.0, -3.0, 0.0], np.float64)
    want_q = np.array([np.nan, 9.0, -10.0, -4.0, -0.0, np.inf])
    want_r = np.array([np.nan, 0.09999999999999995, 5.551115123125783e-17, -0.5, 0.0, np.nan])
    with astjax.enable_x64():
        q = np.asarray(wrap(jnp.floor_divide)(x, y))
        np.testing.assert_array_equal(q, want_q)
        assert np.array_equal(np.signbit(q[1:]), np.signbit(want_q[1:]))   # -0.0
        np.testing.assert_array_equal(np.asarray(wrap(lambda a, b: a // b)(x, y)), want_q)
        dq, dr = wrap(jnp.divmod)(x, y)
        np.testing.assert_array_equal(np.asarray(dq), want_q)
        np.testing.assert_array_equal(np.asarray(dr), want_r)
    assert float(jnp.floor_divide(np.float32(1.0), np.float32(0.1))) == 9.0


@pytest.mark.parametrize("name", ["floor_divide", "divmod"])
def test_floor_divide_of_complex_is_a_type_error(name):
    with pytest.raises(TypeError, match="does not support complex-valued inputs") as e:
        getattr(jnp, name)(np.complex64(1 + 1j), 2.0)
    assert isinstance(e.value, AstjaxError)


def test_softmax_of_an_integer_array_does_not_wrap():
    # seed 43793: JAX 0.10.2 computes x - max(x) in int16, which wraps: softmax = [nan, 0],
    # log_softmax = [-inf, -inf]; astjax's true values differ on purpose
    # (docs/coming_from_jax.md, values that differ on purpose)
    x = np.array([-32768, 5], np.int16)
    np.testing.assert_array_equal(np.asarray(astjax.nn.softmax(x)), [0.0, 1.0])
    np.testing.assert_array_equal(np.asarray(astjax.nn.log_softmax(x)), [-32773.0, 0.0])


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_cholesky_of_a_complex_non_positive_definite_matrix_is_nan_in_both_parts(wrap):
    # seed 44178: the failed factorization was filled with nan+0j; JAX fills nan+nanj
    a = np.array([[[1, 2], [2, 1]], [[4, 2], [2, 3]]], np.complex64)
    L = np.asarray(wrap(jnp.linalg.cholesky)(a))
    assert np.isnan(L[0].real[np.tril_indices(2)]).all()
    assert np.isnan(L[0].imag[np.tril_indices(2)]).all()
    np.testing.assert_array_equal(L[0][0, 1], 0)
    np.testing.assert_allclose(L[1], np.linalg.cholesky(a[1]), rtol=1e-6)


@pytest.mark.parametrize("name, want", [("xlogy", np.log([3.0, 1.0])),
                                        ("xlog1py", np.log1p([3.0, 1.0]))])
def test_xlogy_grad_of_x_with_an_integer_y_is_log_y(name, want):
    # seed 43933: JAX 0.10.2 raises TypeError (log of int8 in its derivative rule);
    # astjax promotes first (docs/coming_from_jax.md)
    f = getattr(astjax.scipy.special, name)
    g = astjax.grad(lambda x, y: jnp.sum(f(x, y)))(np.float32([0.5, 1.0]), np.int8([3, 1]))
    np.testing.assert_allclose(np.asarray(g), want.astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_betainc_edges_are_scipys_and_jaxs(wrap):
    # seed 44488: betainc(0, 0, x) was 1 and betainc(0, b, 0) 1 (JAX, SciPy: NaN, 0)
    nan = np.nan
    a = np.array([0.0, -0.0, 0.0, 0.0, 0.5, 3.0, np.inf, 0.5, np.inf, 1.0])
    b = np.array([0.0, 0.0, 0.5, 3.0, 0.0, 0.0, 1.0, np.inf, np.inf, 2.0])
    x = np.array([0.3, 0.0, 0.0, 0.3, 1.0, 0.3, 0.3, 0.3, 1.0, 0.0])
    want = np.array([nan, nan, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, nan, 0.0])
    with astjax.enable_x64():
        got = np.asarray(wrap(astjax.lax.betainc)(a, b, x))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit, astjax.vmap])
def test_incomplete_gamma_at_a_and_x_zero_is_nan(wrap):
    # seed 44469: gammaincc(0, 0) was 1 and gammainc(0, 0) 0 (JAX, SciPy: NaN)
    from astjax.scipy.special import gammainc, gammaincc
    a = np.array([0.0, -0.0, 0.0, 1.0], np.float32)
    x = np.array([0.0, 0.0, 0.5, 0.0], np.float32)
    np.testing.assert_array_equal(np.asarray(wrap(gammainc)(a, x)), [nan_f, nan_f, 1.0, 0.0])
    np.testing.assert_array_equal(np.asarray(wrap(gammaincc)(a, x)), [nan_f, nan_f, 0.0, 1.0])


nan_f = np.float32(np.nan)


# ---- API fuzz seeds 45050..46050 ----------------------------------------------------

_U8 = np.array([5, 200, 7], np.uint8)
# (name, update, x, JAX 0.10.2's result): the update is computed in the common dtype of
# x and the values, then cast back to x's dtype
_AT_UPDATES = [
    ("subtract", lambda x: x.at[1].subtract(2.5), _U8, np.uint8([5, 197, 7])),
    ("subtract0d", lambda x: x.at[()].subtract(2.5), np.uint8(5), np.uint8(2)),
    ("mul", lambda x: x.at[0].mul(2.5), np.int32([3, 4]), np.int32([7, 4])),
    ("min", lambda x: x.at[1].min(np.int32(-1)), _U8, np.uint8([5, 255, 7])),
    ("divide_int", lambda x: x.at[1].divide(3), np.int32([3, 4]),
     np.float32([3.0, 1.3333333730697632])),
    ("divide_zero", lambda x: x.at[1].divide(0), np.int32([3, 4]), np.float32([3.0, np.inf])),
    ("divide_twice", lambda x: x.at[np.array([0, 0])].divide(np.float32([10.0, 3.0])),
     np.float32([3.0, 7.0]), np.float32([0.1, 7.0])),
    ("power_twice", lambda x: x.at[np.array([0, 0])].power(np.int8([2, 3])), np.int8([2, 5]),
     np.int8([64, 5])),
    ("power_int", lambda x: x.at[0].power(2.5), np.int8([3, 5]), np.int8([9, 5])),
]


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
@pytest.mark.parametrize("name, f, x, want", _AT_UPDATES, ids=[c[0] for c in _AT_UPDATES])
def test_at_updates_compute_in_the_common_dtype_as_jax(wrap, name, f, x, want):
    # seed 45190: uint8 .at[].divide(0.0) stayed uint8 (JAX: floats); subtract(2.5) of a
    # uint8 was 200 + uint8(-2.5) (=200), divide multiplied by a reciprocal cast to x's
    # dtype (3 // 3 -> 3 * int(1/3) = 0), power kept only the last of repeated exponents
    with pytest.warns(FutureWarning) if name in ("subtract", "subtract0d", "mul", "min",
                                                  "power_int") else contextlib.nullcontext():
        got = np.asarray(wrap(lambda x: f(jnp.asarray(x)))(x))
    assert got.dtype == want.dtype
    if name == "divide_twice" and wrap is astjax.jit:   # (XLA may divide by a reciprocal)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def test_at_divide_of_an_integer_array_under_vmap_is_float():
    got = astjax.vmap(lambda r: r.at[0].divide(2))(np.int32([[3, 4], [5, 6]]))
    np.testing.assert_array_equal(np.asarray(got), np.float32([[1.5, 4], [2.5, 6]]))


@pytest.mark.parametrize("method", ["add", "mul", "divide", "power", "subtract"])
def test_at_add_and_mul_of_a_boolean_array_are_type_errors(method):
    # JAX's scatter_add / scatter_mul take no booleans (its TypeError); astjax answered
    # with a logical or / and
    x = jnp.asarray(np.array([True, False]))
    with pytest.raises(TypeError, match="does not accept dtype bool") as e:
        getattr(x.at[0], method)(True)
    assert isinstance(e.value, AstjaxError)


def test_lax_scatter_add_of_booleans_is_a_type_error():
    dn = astjax.lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                            scatter_dims_to_operand_dims=(0,))
    for fn in (astjax.lax.scatter_add, astjax.lax.scatter_mul):
        with pytest.raises(TypeError, match="does not accept dtype bool"):
            fn(np.array([True, False]), np.array([[0]]), np.array([True]), dn)
    # min / max / set of booleans stay (JAX's too)
    got = astjax.lax.scatter_min(np.array([True, False]), np.array([[0]]), np.array([False]), dn)
    np.testing.assert_array_equal(np.asarray(got), [False, False])


def test_stack_with_axis_none_is_a_type_error_before_the_shape_check():
    # seed 45964: stack([(4,), (1,)], axis=None) raised the shapes' ValueError; JAX reads
    # the axis first (TypeError)
    with pytest.raises(TypeError) as e:
        jnp.stack([np.int8([1, 2, 3, 4]), np.int8([1])], axis=None)
    assert isinstance(e.value, AstjaxError)
