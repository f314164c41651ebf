"""Eager grad / vjp / jvp / jacobians decide a Python `if` on the values they are called
with, as JAX's do.

JAX differentiates outside `jit` with concrete primal values: `if x < 0: raise
ValueError(...)` checks the argument, and a `try` around a branch that raises takes its
handler only when the branch runs (autodiff_cookbook cell 25). astjax stages the
function for every input; where that staging needs a value (a `raise` in a staged
branch, a name assigned in one branch only, `int(x)`), an eager call now stages it
again with its inputs' values known (`ad_base._stage_known`), for these values only.
What JAX refuses of a differentiated value (`float()`, `complex()`, `.tolist()`) stays
an error. Expected values are JAX 0.10.2's.
"""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.errors import ConcretizationError


def checked(x):
    if x < 0:
        raise ValueError("x must be non-negative")
    return jnp.sqrt(x) * x


def piecewise(x):
    try:
        if x < 3:
            return 2 * x ** 3
        raise ValueError
    except ValueError:
        return jnp.pi * x


def vec_check(x):
    if jnp.any(x < 0):
        raise ValueError("negative entries")
    return jnp.sum(x ** 2)


def one_branch(x):
    if x > 0:
        y = x * 2
    return y


def int_times(x):
    return int(x * 2) * x


def item_times(x):
    return x.item() * x


def float_of_test(x):
    return float(x > 1) * x


def float_times(x):
    return float(x) * x


def tolist_times(x):
    return x.tolist() * x


R = jnp.arange(3.0)

# name -> (call, JAX 0.10.2's result)
CASES = {
    "grad_checked": (lambda: jax.grad(checked)(4.0), 3.0),
    "grad_piecewise_taken": (lambda: jax.grad(piecewise)(2.0), 24.0),
    "grad_piecewise_handler": (lambda: jax.grad(piecewise)(4.0), np.float32(np.pi)),
    "value_and_grad": (lambda: jax.value_and_grad(piecewise)(2.0), (16.0, 24.0)),
    "jacrev": (lambda: jax.jacrev(vec_check)(R), np.array([0.0, 2.0, 4.0])),
    "jacfwd": (lambda: jax.jacfwd(vec_check)(R), np.array([0.0, 2.0, 4.0])),
    "hessian": (lambda: jax.hessian(vec_check)(jnp.arange(2.0)), 2 * np.eye(2)),
    "jvp": (lambda: jax.jvp(piecewise, (2.0,), (1.0,)), (16.0, 24.0)),
    "vjp": (lambda: jax.vjp(vec_check, R)[1](1.0), (np.array([0.0, 2.0, 4.0]),)),
    "linearize": (lambda: jax.linearize(piecewise, 4.0)[1](1.0), np.float32(np.pi)),
    "one_branch": (lambda: jax.grad(one_branch)(2.0), 2.0),
    "int": (lambda: jax.grad(int_times)(2.0), 4.0),
    "item": (lambda: jax.grad(item_times)(2.0), 2.0),
    "float_of_comparison": (lambda: jax.grad(float_of_test)(2.0), 1.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_transform_decides_on_values_as_jax(name):
    call, expected = CASES[name]
    got = call()
    for g, e in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(expected)):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-6)


def test_results_are_arrays_with_jax_types():
    out = jax.grad(piecewise)(4.0)
    assert isinstance(out, jax.Array) and out.dtype == np.float32 and out.weak_type


def test_the_users_exception_when_the_branch_runs():
    with pytest.raises(ValueError, match="x must be non-negative"):
        jax.grad(checked)(-1.0)
    with pytest.raises(NameError):
        jax.grad(one_branch)(-2.0)


@pytest.mark.parametrize("fn", [float_times, tolist_times])
def test_what_jax_refuses_of_a_differentiated_value_stays_an_error(fn):
    with pytest.raises(ConcretizationError) as e:
        jax.grad(fn)(2.0)
    assert isinstance(e.value, TypeError)


def test_under_jit_the_value_is_unknown():
    with pytest.raises(ConcretizationError):
        jax.jit(jax.grad(checked))(4.0)


def test_a_path_per_call_not_kept():
    g = jax.grad(piecewise)
    assert [float(g(x)) for x in (2.0, 4.0, 1.0)] == [24.0, np.float32(np.pi), 6.0]
