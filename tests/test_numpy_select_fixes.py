"""jnp.choose's modes, compress / extract with `size=` / `fill_value=`, polymul's
`trim_leading_zeros` and matmul of a scalar, as JAX 0.10.2 (its results noted beside
each check, recorded with /work/jaxref)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

CH = [jnp.arange(3), jnp.arange(3) * 10, jnp.arange(3) * 100]


def test_choose_modes():
    np.testing.assert_array_equal(jnp.choose(jnp.array([0, 1, 2]), CH), [0, 10, 200])
    np.testing.assert_array_equal(jnp.choose(jnp.array([0, 3, -1]), CH[:2], mode="wrap"),
                                  [0, 10, 20])
    np.testing.assert_array_equal(jnp.choose(jnp.array([0, 3, -1]), CH[:2], mode="clip"),
                                  [0, 10, 2])
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        jnp.choose(jnp.array([0, 3, 1]), CH[:2], mode="raise")
    # JAX: ConcretizationTypeError under jit with mode='raise'
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda i: jnp.choose(i, CH[:2], mode="raise"))(jnp.array([0, 1, 1]))
    np.testing.assert_array_equal(
        jax.jit(lambda i: jnp.choose(i, CH[:2], mode="clip"))(jnp.array([0, 5, 1])), [0, 10, 20])
    with pytest.raises(ValueError):
        jnp.choose(jnp.array([0.5]), CH[:2])


def test_compress_and_extract_with_size():
    c = jnp.array([True, False, True])
    np.testing.assert_array_equal(jnp.compress(c, jnp.arange(3), size=3, fill_value=-1),
                                  [0, 2, -1])
    np.testing.assert_array_equal(jnp.compress(c, jnp.arange(3), size=3), [0, 2, 0])
    np.testing.assert_array_equal(
        jnp.compress(jnp.array([1, 0, 1]), jnp.arange(6).reshape(3, 2), axis=0, size=1),
        [[0, 1]])
    np.testing.assert_array_equal(jnp.extract(jnp.arange(6).reshape(2, 3) > 2,
                                              jnp.arange(6).reshape(2, 3), size=2), [3, 4])
    np.testing.assert_array_equal(jnp.extract(c, jnp.arange(3), size=1), [0])
    # the condition may be staged once size= fixes the shape
    got = jax.jit(lambda c, x: jnp.extract(c, x, size=3))(c, jnp.arange(3.))
    np.testing.assert_array_equal(got, [0., 2., 0.])
    got = jax.jit(lambda c, x: jnp.compress(c, x, axis=1, size=1, fill_value=7))(
        c, jnp.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(got, [[0], [3]])
    for bad in (lambda: jnp.compress(jnp.array([True, False, True, True]), jnp.arange(3)),
                lambda: jnp.compress(c, jnp.arange(6).reshape(3, 2), size=4),
                lambda: jnp.extract(c, jnp.arange(3), size=4, fill_value=9)):
        with pytest.raises(ValueError) as e:
            bad()
        assert isinstance(e.value, AstjaxError)
    # a shorter condition leaves the rest out, as NumPy
    np.testing.assert_array_equal(jnp.compress(jnp.array([False, True]), jnp.arange(4)), [1])


def test_polymul_trim_leading_zeros():
    a, b = jnp.array([0., 1, 2]), jnp.array([0., 0, 3])
    np.testing.assert_array_equal(jnp.polymul(a, b, trim_leading_zeros=True), [3., 6.])
    np.testing.assert_array_equal(jnp.polymul(a, b), [0., 0., 0., 3., 6.])
    np.testing.assert_array_equal(jnp.polymul(jnp.array([0., 0.]), jnp.array([1., 2.]),
                                              trim_leading_zeros=True), [0., 0.])
    assert jnp.polymul(jnp.array([1, 2]), jnp.array([3])).dtype == jnp.float32


def test_matmul_of_a_scalar_is_jax_value_error():
    with pytest.raises(ValueError, match="operand 1 must have ndim at least 1") as e:
        jnp.matmul(jnp.ones(3), 2.0)
    assert isinstance(e.value, AstjaxError)
