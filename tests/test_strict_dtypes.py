"""The last dtype and error-class differences from JAX (issues 12 and 13): lax's order
comparisons reject complex operands while jnp's order them lexicographically;
`lax.atan2` takes complex operands; `jnp.dot` refuses to narrow an integer operand;
missing derivatives are NotImplementedError; float0 inputs to `jit`. Expected values
are JAX 0.10.2's on the same calls."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

C = np.array([1 + 2j, 1 - 1j, 0.5 + 0j], np.complex64)
D = np.array([1 + 1j, 1 - 1j, 2 + 0j], np.complex64)


@pytest.mark.parametrize("fn", [lax.lt, lax.le, lax.gt, lax.ge])
def test_lax_order_rejects_complex(fn):
    with pytest.raises(TypeError, match="does not accept dtype complex64"):
        fn(C, D)
    with pytest.raises(TypeError):
        astjax.jit(fn)(C, D)


def test_jnp_order_is_lexicographic_on_complex():
    # JAX: [False, False, True], [True, True, False], ...
    np.testing.assert_array_equal(jnp.less(C, D), [False, False, True])
    np.testing.assert_array_equal(jnp.greater_equal(C, D), [True, True, False])
    np.testing.assert_array_equal(astjax.jit(jnp.greater)(C, D), [True, False, False])
    np.testing.assert_array_equal(jnp.maximum(C, D), [1 + 2j, 1 - 1j, 2 + 0j])
    assert int(jnp.searchsorted(jnp.sort(D), 1 + 0.5j)) == 1


def test_max_derivative_on_complex_operands():
    # the max/min tangent coefficient orders complex values lexicographically
    g = astjax.grad(lambda x: jnp.real(lax.max(x, 1 + 1j)))(1 + 2j)
    assert complex(g) == 1


def test_heaviside_rejects_complex():
    with pytest.raises(TypeError):
        jnp.heaviside(1.5j, np.float32(2))
    np.testing.assert_array_equal(jnp.heaviside(np.array([-1.0, 0.0, 2.0]), 0.5),
                                  [0.0, 0.5, 1.0])


def test_atan2_complex():
    # JAX 0.10.2: lax.atan2 of these complex64 operands, eagerly and under jit
    x = np.array([1.5 + 0.5j, -2 + 1j, 0.3 - 0.7j], np.complex64)
    y = np.array([0.5j, 1 + 1j, -2.0 + 0.1j], np.complex64)
    want = [1.4614619 - 0.3059439j, -1.276795 + 0.64123726j, 2.9553735 + 0.3441976j]
    np.testing.assert_allclose(lax.atan2(x, y), want, rtol=1e-5)
    np.testing.assert_allclose(astjax.jit(lax.atan2)(x, y), want, rtol=1e-5)
    g = astjax.grad(lambda a: jnp.real(lax.atan2(a, 2.0 + 1j)))(1.5 + 0.5j)
    np.testing.assert_allclose(complex(g), 0.280543 - 0.10859727j, rtol=1e-5)
    assert jnp.arctan2(1.5j, np.float32(2)).dtype == np.complex64


def test_dot_refuses_to_narrow_integers():
    with pytest.raises(TypeError, match="narrower"):
        jnp.dot(np.uint8(7), 2)
    with pytest.raises(TypeError):
        jnp.dot(np.array([1, 2], np.int8), 2)
    # JAX: floating results and equal widths are fine
    assert jnp.dot(np.array([1.0, 2.0], np.float16), 2).dtype == np.float16
    assert jnp.dot(np.uint32(3), 2).dtype == np.uint32
    assert jnp.dot(np.uint8(1), np.int8(2)).dtype == np.int16
    assert jnp.dot(np.uint8(7), 2, preferred_element_type=np.int32).dtype == np.int32


def test_dot_narrowing_under_x64():
    astjax.config.update("jax_enable_x64", True)
    try:
        with pytest.raises(TypeError):
            jnp.dot(np.int32(3), 2)
        assert jnp.dot(np.float32(3), 2).dtype == np.float32
    finally:
        astjax.config.update("jax_enable_x64", False)


def test_dot_of_a_scalar_keeps_preferred_element_type():
    # JAX: Array(14, dtype=int32), Array([7., 7.], dtype=float16)
    assert jnp.dot(np.uint8(7), 2, preferred_element_type=np.int32).dtype == np.int32
    out = jnp.dot(np.float32(7), np.ones(2, np.float32), preferred_element_type=np.float16)
    assert out.dtype == np.float16


def nextafter_up(x):
    return lax.nextafter(x, 2.0)


def scatter_mul_repeated(u):
    return jnp.ones(3).at[jnp.array([0, 0])].multiply(u).sum()


@pytest.mark.parametrize("f, arg", [(nextafter_up, 1.0), (scatter_mul_repeated, np.ones(2, np.float32))])
def test_missing_derivatives_are_not_implemented_errors(f, arg):
    # JAX raises NotImplementedError for both; astjax's error is located at the call
    for t in (astjax.grad, lambda f: astjax.jit(astjax.grad(f))):
        with pytest.raises(NotImplementedError) as e:
            t(f)(arg)
        assert isinstance(e.value, astjax.errors.DifferentiationError)
        assert "test_strict_dtypes.py" in str(e.value)


def scale_and_pass(x, t):
    return x * 2, t


def test_jit_passes_float0_inputs_through():
    # JAX 0.10.2: jit(f)(1.5, zeros(3, float0)) is (Array(3.), the float0 zeros) -- a
    # host array, as every call path (cached signature, keyword, AOT) returns it
    f0 = np.zeros(3, astjax.dtypes.float0)
    j = astjax.jit(scale_and_pass)
    for _ in range(3):
        x, t = j(np.float32(1.5), f0)
        assert float(x) == 3.0 and t.dtype == astjax.dtypes.float0 and t.shape == (3,)
    x, t = j(astjax.numpy.float32(2.0), t=f0)
    assert float(x) == 4.0 and t.dtype == astjax.dtypes.float0
    lowered = j.lower(np.float32(1.5), f0)
    assert "float0" not in lowered.as_text()
    x, t = lowered.compile()(np.float32(1.5), f0)
    assert float(x) == 3.0 and t.dtype == astjax.dtypes.float0
    assert astjax.jit(lambda t: t.shape)(f0) == (3,)


def test_inner_of_a_narrow_integer_and_a_python_int():
    # JAX: jnp.inner(uint8, 2) is uint8 (only dot checks the accumulation width)
    assert jnp.inner(np.uint8(7), 2).dtype == np.uint8


def float0_reshaped(t):
    return t.reshape(3, 1), t[1:]


def float0_converted(t):
    return lax.convert_element_type(t.reshape(1, 3), np.int32)


def float0_compared(t):
    return lax.eq(t, t)


def test_structural_ops_on_float0_inputs_under_jit():
    # JAX: float0 results of a reshape / slice of a float0 argument, as host arrays
    f0 = np.zeros(3, astjax.dtypes.float0)
    a, b = astjax.jit(float0_reshaped)(f0)
    assert a.shape == (3, 1) and b.shape == (2,) and a.dtype == b.dtype == f0.dtype
    # JAX: converted to a numeric dtype it is zeros, [[0 0 0]] int32
    out = astjax.jit(float0_converted)(f0)
    assert out.dtype == np.int32 and not out.weak_type
    np.testing.assert_array_equal(out, [[0, 0, 0]])
    # any other operation is a located TypeError, as JAX's
    with pytest.raises(TypeError) as e:
        astjax.jit(float0_compared)(f0)
    assert "test_strict_dtypes.py" in str(e.value) and "float0" in str(e.value)


def test_tensordot_refuses_to_narrow_integers():
    # JAX: TypeError for a uint8 operand against a Python int; int8 with int8 is int8
    with pytest.raises(TypeError, match="narrower"):
        jnp.tensordot(np.array([1, 2], np.uint8), 2, axes=0)
    a = np.array([1, 2], np.int8)
    assert jnp.tensordot(a, a, axes=1).dtype == np.int8


def polygamma_in_m(m):
    return lax.polygamma(m, 1.5)


def test_polygamma_derivative_in_m_is_a_value_error():
    # JAX: ValueError ("polygamma gradient with respect to m is not supported")
    with pytest.raises(ValueError) as e:
        astjax.grad(polygamma_in_m)(1.0)
    assert isinstance(e.value, astjax.errors.DifferentiationError)
    assert "test_strict_dtypes.py" in str(e.value)
