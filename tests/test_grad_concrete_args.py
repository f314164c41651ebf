"""Eager `grad`/`jacrev`/`jacfwd`/`hessian` close over the arguments they do not
differentiate, as JAX does: a Python int (or a concrete array) there may serve as a shape
or a trip count. Values are JAX 0.10.2's (recorded by hand: they are small integers)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import ad_api
from astjax.errors import TracerIntegerConversionError


def ones_sum(x, n):
    return x * jnp.ones(n).sum()


def python_loop(x, n):
    s = 0.
    for i in range(n):
        s = s + x * i
    return s


@pytest.mark.parametrize("transform, fun, n, want", [
    (jax.grad, ones_sum, 3, 3.0),
    (jax.grad, ones_sum, 5, 5.0),
    (jax.grad, python_loop, 4, 6.0),
    (jax.jacrev, ones_sum, 3, 3.0),
    (jax.jacfwd, ones_sum, 3, 3.0),
    (jax.hessian, python_loop, 4, 0.0),
])
def test_int_argument_as_shape(transform, fun, n, want):
    assert float(transform(fun)(2., n)) == want


def test_value_and_grad_and_keyword():
    v, g = jax.value_and_grad(ones_sum)(2., 3)
    assert (float(v), float(g)) == (6.0, 3.0)
    assert float(jax.grad(python_loop)(2., n=4)) == 6.0


def test_concrete_array_argument():
    assert float(jax.grad(ones_sum)(2., jnp.array(4))) == 4.0
    assert float(jax.grad(ones_sum)(2., np.int32(2))) == 2.0


def test_inside_jit_a_literal_int_is_known():
    assert float(jax.jit(lambda x: jax.grad(ones_sum)(x, 4))(2.)) == 4.0


def test_the_retry_is_remembered():
    g = jax.grad(ones_sum)
    assert float(g(2., 3)) == 3.0
    assert g._state()[ad_api._CONCRETE] == (1,)
    assert float(g(2., 7)) == 7.0            # another value: staged again, right answer
    assert float(jax.grad(ones_sum)(2., 3)) == 3.0   # a new wrapper shares the state


def test_differentiated_argument_as_int_runs_as_jax():
    # JAX's eager grad runs this (its tangent tracer carries the value): the staging for
    # every value fails, and the call is staged for its own values (ad_base._stage_known)
    assert float(jax.grad(lambda x: x * jnp.ones(int(x)).sum())(3.)) == 3.0
    assert float(jax.grad(lambda x: x * jnp.ones(int(x)).sum())(4.)) == 4.0


def test_differentiated_argument_as_int_under_jit_is_a_located_error():
    with pytest.raises(TracerIntegerConversionError) as info:
        jax.jit(jax.grad(lambda x: x * jnp.ones(int(x)).sum()))(3.)
    assert "test_grad_concrete_args.py" in str(info.value)


def test_array_arguments_stay_dynamic_when_not_needed():
    g = jax.grad(lambda w, x: jnp.sum(w * x))
    assert float(g(2., jnp.ones(3))) == 3.0
    assert ad_api._CONCRETE not in g._state()
