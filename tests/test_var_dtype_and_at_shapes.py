"""Issue 13 defects: `jnp.var`/`jnp.std` honour `dtype=` as JAX 0.10.2 does, and
`x.at[idx].<op>(v)` rejects values with more dimensions than the slice (JAX's
ValueError) instead of dropping their leading 1s. Expected values were computed with
jax 0.10.2 and are stored here."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

X = [[1., 2., 4.], [3., 5., 9.]]

# (kwargs, var, var dtype, std, std dtype) from jax 0.10.2
VAR_CASES = [
    (dict(), 6.666666507720947, "float32", 2.58198881149292, "float32"),
    (dict(dtype="float16"), 6.66796875, "float16", 2.58203125, "float16"),
    (dict(axis=1, dtype="bfloat16"), [1.5546875, 6.21875], "bfloat16", [1.25, 2.5], "bfloat16"),
    (dict(axis=0, ddof=2), [np.nan] * 3, "float32", [np.nan] * 3, "float32"),
]


@pytest.mark.parametrize("kw, var, vdt, std, sdt", VAR_CASES)
def test_var_std_dtype_as_jax(kw, var, vdt, std, sdt):
    x = jnp.array(X)
    for fn, want, dt in ((lambda x: jnp.var(x, **kw), var, vdt),
                         (lambda x: jnp.std(x, **kw), std, sdt),
                         (astjax.jit(lambda x: jnp.var(x, **kw)), var, vdt)):
        got = fn(x)
        assert str(got.dtype) == dt
        # jit may reassociate the sum (XLA fusion): one ulp
        np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=2e-7)


def test_var_integer_dtype_and_inputs():
    # an integer dtype= computes in it; the NaN guard makes the result float (JAX)
    got = jnp.var(jnp.array(X), dtype=jnp.int32)
    assert got.dtype == jnp.float32 and float(got) == 6.0
    got = jnp.var(jnp.arange(5, dtype=jnp.int8))
    assert got.dtype == jnp.float32 and float(got) == 2.0


def test_var_complex():
    z = jnp.array([1 + 2j, 3j])
    got = jnp.var(z)
    assert got.dtype == jnp.float32 and float(got) == 0.5
    got = jnp.var(z, dtype=jnp.complex64)
    assert got.dtype == jnp.complex64 and complex(got) == 0.5
    with pytest.raises(ValueError) as e:
        jnp.var(z, dtype=jnp.float32)
    assert isinstance(e.value, AstjaxError) and "test_var_dtype_and_at_shapes.py" in str(e.value)


def test_std_integer_dtype_and_ddof_correction_errors():
    with pytest.raises(ValueError, match="must be inexact"):
        jnp.std(jnp.array(X), dtype=jnp.int32)
    with pytest.raises(ValueError, match="simultaneously"):
        jnp.var(jnp.array(X), ddof=1, correction=1)


def test_var_grad_and_where():
    g = astjax.grad(lambda x: jnp.var(x, dtype=jnp.float32))(jnp.array([1., 2., 4.]))
    np.testing.assert_allclose(np.asarray(g), np.array([-8., -2., 10.]) / 9, rtol=1e-6)
    f = astjax.jit(lambda x: jnp.var(x, axis=1, where=x > 1, ddof=1))
    np.testing.assert_allclose(np.asarray(f(jnp.array(X))), [2.0, 9.333333969116211], rtol=2e-7)


@pytest.mark.parametrize("op", ["set", "add", "mul", "min", "max"])
@pytest.mark.parametrize("shape, idx, vshape", [
    ((3,), 0, (1,)), ((3,), 0, (2,)), ((3, 2), 0, (1, 2)), ((3, 2), (np.array([0, 1]),), (1, 2, 2))])
def test_at_values_with_extra_dims_raise(op, shape, idx, vshape):
    # jax 0.10.2: ValueError "Cannot broadcast to shape with fewer dimensions" (or a
    # broadcast error) for every one of these
    with pytest.raises(ValueError) as e:
        getattr(jnp.zeros(shape).at[idx], op)(jnp.ones(vshape))
    assert isinstance(e.value, AstjaxError) and "test_var_dtype_and_at_shapes.py" in str(e.value)


@pytest.mark.parametrize("op, want", [("min", 0.), ("max", 1.), ("set", 1.)])
def test_at_values_that_broadcast(op, want):
    got = getattr(jnp.zeros((3, 2)).at[0:2], op)(jnp.ones((2, 1)))
    np.testing.assert_array_equal(np.asarray(got), [[want] * 2] * 2 + [[0., 0.]])
    got = getattr(jnp.zeros((3, 2)).at[None], op)(jnp.ones((1, 3, 2)))   # a newaxis dim
    np.testing.assert_array_equal(np.asarray(got), np.full((3, 2), want))
