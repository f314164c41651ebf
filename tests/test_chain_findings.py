"""Findings of the transformation-chain sweep (tests/fuzz/chain_sweep.py): each stage of
a chain of transformations called eagerly must compute, or fail with the builtin class,
as JAX does (JAX's values and classes stored as literals)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

X = np.array([0.3, -0.7, 1.1], np.float32)


def _exp_custom_vjp():
    @jax.custom_vjp
    def cv(x):
        return jnp.exp(x)
    cv.defvjp(lambda x: (jnp.exp(x), jnp.exp(x)), lambda r, g: (r * g,))
    return lambda x: jnp.sum(cv(x) * x)


@pytest.mark.parametrize("how", ["vmap_of_jacfwd", "vmap_of_linearized", "jit_vmap"])
def test_forward_mode_over_custom_vjp_under_vmap_is_a_type_error(how):
    # JAX: TypeError "can't apply forward-mode autodiff (jvp) to a custom_vjp function"
    # (astjax raised NotImplementedError: custom_lin had no batching rule)
    f = _exp_custom_vjp()
    xs = np.stack([X, 2 * X])
    _, f_jvp = jax.linearize(f, X)
    call = {"vmap_of_jacfwd": lambda: jax.vmap(jax.jacfwd(f))(xs),
            "vmap_of_linearized": lambda: jax.vmap(f_jvp)(xs),
            "jit_vmap": lambda: jax.jit(jax.vmap(f_jvp))(xs)}[how]
    with pytest.raises(TypeError, match="forward-mode autodiff"):
        call()


def test_reverse_mode_over_custom_vjp_under_vmap_still_runs():
    f = _exp_custom_vjp()
    got = jax.vmap(jax.grad(f))(np.stack([X, 2 * X]))
    want = np.exp(np.stack([X, 2 * X])) * (1 + np.stack([X, 2 * X]))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
