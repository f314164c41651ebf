"""Compositions of transforms over user-defined derivative rules (issue 12, R11b):
a `custom_jvp` rule written for one example sees one example's shapes under `vmap`,
whichever order `vmap` and `grad`/`jvp` are applied in. Expected values were
recorded from jax 0.10.2."""
from functools import partial

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

# the rule records the shapes it sees, while staging (that is the point here)
pytestmark = pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")
SEEN = []


@astjax.custom_jvp
def mean_sq(x):
    return jnp.sum(x ** 2) / x.shape[0]


@mean_sq.defjvp
def _mean_sq_jvp(primals, tangents):
    x, = primals
    t, = tangents
    SEEN.append(x.shape)
    n = x.shape[0]  # a rule reading its operand's shape: the per-example size
    return mean_sq(x), jnp.sum(2 * x * t) / n


X = np.arange(9.0, dtype=np.float32).reshape(3, 3)
GRAD = (2 * X / 3).tolist()


def _sum_vmap(f, **kw):
    return lambda x: jnp.sum(astjax.vmap(f, **kw)(x))


CASES = [
    ("grad_vmap", lambda: astjax.grad(_sum_vmap(mean_sq))(X), GRAD, (3,)),
    ("vmap_grad", lambda: astjax.vmap(astjax.grad(mean_sq))(X), GRAD, (3,)),
    ("jit_grad_vmap", lambda: astjax.jit(astjax.grad(_sum_vmap(mean_sq)))(X), GRAD, (3,)),
    ("jvp_vmap", lambda: astjax.jvp(astjax.vmap(mean_sq), (X,), (np.ones((3, 3), np.float32),))[1],
     [2.0, 8.0, 14.0], (3,)),
    ("vmap_jvp", lambda: astjax.vmap(lambda x, v: astjax.jvp(mean_sq, (x,), (v,))[1])(
        X, np.ones((3, 3), np.float32)), [2.0, 8.0, 14.0], (3,)),
    ("grad_vmap_in_axes1", lambda: astjax.grad(_sum_vmap(mean_sq, in_axes=1))(X[:, :2]),
     (2 * X[:, :2] / 3).tolist(), (3,)),
    ("grad_vmap_vmap", lambda: astjax.grad(
        lambda x: jnp.sum(astjax.vmap(astjax.vmap(mean_sq))(x.reshape(3, 3, 1) * jnp.ones(2))))(X),
     (2 * X).tolist(), (2,)),
]


@pytest.mark.parametrize("name,thunk,want,shape", CASES, ids=[c[0] for c in CASES])
def test_custom_jvp_rule_sees_per_example_shapes(name, thunk, want, shape):
    SEEN.clear()
    np.testing.assert_allclose(np.asarray(thunk()), want, rtol=1e-5)
    assert SEEN and set(SEEN) == {shape}


@partial(astjax.custom_jvp, nondiff_argnums=(1,))
def _clip(x, n):
    return jnp.clip(x, -n, n)


@_clip.defjvp
def _clip_jvp(n, primals, tangents):
    x, = primals
    return _clip(x, n), tangents[0] * 2.0 * x.shape[0]


def test_custom_jvp_nondiff_argnums_under_grad_of_vmap():
    """Was 6 (the rule saw the batch of 3 rows); JAX: 4 (a row has 2 elements)."""
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    got = astjax.grad(lambda x: jnp.sum(astjax.vmap(lambda r: _clip(r, 2.0))(x)))(x)
    np.testing.assert_array_equal(np.asarray(got), np.full((3, 2), 4.0))
    got = astjax.grad(lambda x: jnp.sum(astjax.vmap(lambda r: _clip(r, 2.0), in_axes=1)(x)))(x)
    np.testing.assert_array_equal(np.asarray(got), np.full((3, 2), 6.0))
