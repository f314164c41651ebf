"""What flax 0.12.8's own test suite (its sdist's tests/, run on astjax with
`python -m astjax run -m pytest FILE`) found in its fifth run, each as a minimal
regression test (no flax needed). The earlier runs' tests are in
tests/test_flax_suite_fixes.py and tests/test_flax_suite_fixes2.py."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


@astjax.custom_vjp
def _history(x, h):
    return x * 2.0


def _history_fwd(x, h):
    return x * 2.0, (h + 1.0,)


def _history_bwd(res, g):
    return None, res[0]   # h's "gradient" is its new value, whatever g is


_history.defvjp(_history_fwd, _history_bwd)


@astjax.custom_vjp
def _no_grad(y):
    return y * 3.0


_no_grad.defvjp(lambda y: (y * 3.0, None), lambda res, ct: (None,))


def _scan_of(fn):
    def loss(x, h):
        y, _ = astjax.lax.scan(lambda c, _: (fn(c, h), None), x, None, length=2)
        return jnp.sum(_no_grad(y))
    return loss


# JAX 0.10.2's figures for d/dh (x = ones(3), h = zeros(3))
_CASES = {
    "plain": (lambda x, h: jnp.sum(_no_grad(_history(x, h))), 1.0),
    "in_jit": (lambda x, h: jnp.sum(astjax.jit(lambda x, h: _no_grad(_history(x, h)))(x, h)),
               1.0),
    "scan_body": (lambda x, h: jnp.sum(astjax.lax.scan(
        lambda c, _: (_no_grad(_history(c, h)), None), x, None, length=2)[0]), 2.0),
    "scan_carry": (_scan_of(_history), 2.0),
    "cond_branch": (lambda x, h: jnp.sum(astjax.lax.cond(
        True, lambda: _no_grad(_history(x, h)), lambda: x)), 1.0),
    "checkpoint": (lambda x, h: jnp.sum(astjax.checkpoint(
        lambda x, h: _no_grad(_history(x, h)))(x, h)), 1.0),
    "vmap": (lambda x, h: jnp.sum(_no_grad(astjax.vmap(_history)(x, jnp.stack([h] * 3)))),
             3.0),
    "vmap_unbatched": (lambda x, h: jnp.sum(_no_grad(
        astjax.vmap(_history, in_axes=(0, None))(x, h))), 1.0),
    # JAX skips these: a jit / cond / checkpoint whose cotangents are all zero, and a
    # custom_vjp whose result nothing differentiable uses
    "zero_into_jit": (lambda x, h: jnp.sum(_no_grad(astjax.jit(_history)(x, h))), 0.0),
    "zero_into_cond": (lambda x, h: jnp.sum(_no_grad(astjax.lax.cond(
        True, lambda: _history(x, h), lambda: x))), 0.0),
    "zero_into_checkpoint": (lambda x, h: jnp.sum(_no_grad(astjax.checkpoint(_history)(x, h))),
                             0.0),
    "stop_gradient": (lambda x, h: jnp.sum(astjax.lax.stop_gradient(_history(x, h))), 0.0),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_custom_vjp_bwd_runs_on_zero_cotangents_as_jax(name):
    """JAX transposes every linear equation of a backward pass that has a nonzero
    cotangent in, a custom_vjp's with zero cotangents too: its bwd may return nonzero
    input cotangents then (flax's fp8 `in_q` returns the new amax history as the
    history's gradient; the dot after it passes no cotangent back). astjax skipped an
    equation with no cotangent, so the history stayed 0 (test_fp8_train_state0,
    silently). A scan instantiates its carry's zero cotangent (its body's custom_vjp
    runs on every step); jit, cond and checkpoint skip an all-zero body, as JAX."""
    fn, want = _CASES[name]
    x, h = jnp.ones(3), jnp.zeros(3)
    for g in (astjax.grad(fn, argnums=(0, 1)), astjax.jit(astjax.grad(fn, argnums=(0, 1)))):
        gx, gh = g(x, h)
        np.testing.assert_array_equal(gx, np.zeros(3))
        np.testing.assert_array_equal(gh, np.full(3, want, np.float32))


def test_custom_vjp_bwd_returning_none_under_vmap():
    """A vmapped custom_vjp whose bwd returns None for an input: a zero cotangent (astjax
    raised NotImplementedError 'None cotangents are not supported under vmap')."""
    @astjax.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, y), lambda y, g: (g * y, None))
    x, y = jnp.arange(3.0), jnp.full(3, 2.0)
    gx, gy = astjax.grad(lambda x, y: jnp.sum(astjax.vmap(f)(x, y)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, np.full(3, 2.0, np.float32))
    np.testing.assert_array_equal(gy, np.zeros(3, np.float32))


@astjax.custom_vjp
def _scaled(x, h, k):
    return x * h + k


_scaled.defvjp(lambda x, h, k: (x * h + k, (x, h + 1.0)),
               lambda res, g: (g, res[1], g * res[0]))


def test_vmapped_custom_vjp_unbatched_argument_cotangent_as_jax():
    """vmap(custom_vjp) with arguments not mapped (in_axes None): JAX keeps them
    unbatched, so a cotangent bwd computes from unbatched residuals only is given once,
    and one that depends on the batch is summed over it. astjax broadcast the arguments
    (and so fwd's residuals) to the batch first: the first came back batch-size times."""
    x, h, k = jnp.arange(6.0).reshape(2, 3), jnp.zeros(3), jnp.zeros(3)
    loss = lambda x, h, k: jnp.sum(astjax.vmap(_scaled, in_axes=(0, None, None))(x, h, k))
    gx, gh, gk = astjax.grad(loss, argnums=(0, 1, 2))(x, h, k)
    np.testing.assert_array_equal(gx, np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(gh, np.ones(3, np.float32))          # h + 1, once
    np.testing.assert_array_equal(gk, np.array([3.0, 5.0, 7.0], np.float32))  # sum of g * x


@astjax.custom_vjp
def _wrong_shape(x, h):
    return x * h


_wrong_shape.defvjp(lambda x, h: (x * h, h), lambda h, g: (g, h))


@pytest.mark.parametrize("vmapped", [False, True])
def test_custom_vjp_bwd_cotangent_of_another_shape_is_jax_value_error(vmapped):
    """A bwd cotangent shaped otherwise than its argument (f32[3] for a scalar): JAX's
    ValueError naming the output; astjax returned it as the scalar's gradient, silently."""
    x, h = jnp.float32(2.0), jnp.ones(3)
    if vmapped:
        fn = lambda x, h: jnp.sum(astjax.vmap(_wrong_shape, in_axes=(0, None))(
            jnp.stack([x, x]), h))
    else:
        fn = lambda x, h: jnp.sum(_wrong_shape(x, h))
    with pytest.raises(ValueError, match=r"at output\[0\] the bwd rule produced an output "
                       r"of type float32\[3\] corresponding to an input of type float32\[\], "
                       "so the shapes do not match"):
        astjax.grad(fn, argnums=(0, 1))(x, h)


@astjax.custom_vjp
def _by_perturbed(x, h):
    return x * h.sum()


def _by_perturbed_fwd(x, h):
    if h.perturbed:   # the residuals differ with what is differentiated
        return x.value * h.value.sum(), (x.value, h.value + 1.0)
    return x.value * h.value.sum(), (h.value + 1.0,)


def _by_perturbed_bwd(res, g):
    if len(res) == 2:
        return g * res[1].sum(), res[1]
    return g * res[0].sum(), None


_by_perturbed.defvjp(_by_perturbed_fwd, _by_perturbed_bwd, symbolic_zeros=True)


def test_vmapped_custom_vjp_residuals_per_linearization():
    """Two vjps of one staged vmapped custom_vjp whose residuals differ (a
    symbolic_zeros fwd), pulled back after both: each bwd reads which of its own fwd's
    residuals are batched, as JAX."""
    x, h = jnp.arange(3.0), jnp.zeros(3)
    vf = astjax.jit(astjax.vmap(_by_perturbed, in_axes=(0, None)))   # (one staging)
    _, v2 = astjax.vjp(vf, x, h)
    _, v1 = astjax.vjp(lambda x: vf(x, h), x)
    gx, gh = v2(jnp.ones(3))
    np.testing.assert_array_equal(gx, np.full(3, 3.0, np.float32))
    np.testing.assert_array_equal(gh, np.ones(3, np.float32))
    np.testing.assert_array_equal(v1(jnp.ones(3))[0], np.full(3, 3.0, np.float32))
