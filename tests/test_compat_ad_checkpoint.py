"""`jax.ad_checkpoint` as served by astjax (astjax/compat/ad_checkpoint.py)."""
import math

import astjax as jax
import astjax.numpy as jnp
from astjax.compat import ad_checkpoint as adc


def _g(W, x):
    return jnp.sin(jnp.dot(W, x))


def _f(W1, W2, x):
    return _g(W2, _g(W1, x))


def test_saved_residuals_arguments_then_intermediates():
    W1, W2, x = jnp.ones((5, 4)), jnp.ones((3, 5)), jnp.ones(4)
    got = [(a.str_short(short_dtypes=True), w.split(" from ")[0] if "output" in w else w)
           for a, w in adc.saved_residuals(_f, W1, W2, x)]
    assert got == [("f32[5,4]", "from the argument W1"), ("f32[3,5]", "from the argument W2"),
                   ("f32[4]", "from the argument x"), ("f32[5]", "output of sin"),
                   ("f32[5]", "output of cos"), ("f32[3]", "output of cos")]


def test_saved_residuals_location_and_checkpoint():
    W1, W2, x = jnp.ones((5, 4)), jnp.ones((3, 5)), jnp.ones(4)
    f2 = lambda W1, W2, x: jax.checkpoint(_g)(W2, jax.checkpoint(_g)(W1, x))
    got = adc.saved_residuals(f2, W1, W2, x)
    inner = [w for _, w in got if w.startswith("output")]
    assert len(inner) == 1 and inner[0].startswith("output of sin from ")
    assert inner[0].endswith("(_g)") and "test_compat_ad_checkpoint.py:" in inner[0]


def test_print_and_pytree_argument_names(capsys):
    adc.print_saved_residuals(lambda p, x: jnp.sum(jnp.sin(p[0] * x)), [jnp.ones(2)],
                              jnp.ones(2))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "f32[2] from the argument p[0]"
    assert out[1] == "f32[2] from the argument x"


def test_checkpoint_name_and_policies():
    assert float(adc.checkpoint_name(jnp.float32(2.0), "a")) == 2.0
    pol = adc.checkpoint_policies
    f = jax.checkpoint(lambda x: jnp.sin(x) * 2, policy=pol.dots_with_no_batch_dims_saveable)
    assert abs(float(jax.grad(f)(0.5)) - 2 * float(jnp.cos(0.5))) < 1e-6
    assert pol.save_only_these_names("a") is not None
    assert pol.everything_saveable() and not pol.nothing_saveable()


# ------------------------------------------------- grad through nested checkpoints
# The JVP of an inner checkpoint, inside the body of an outer checkpoint being
# transposed, has primal outputs that read no tangent: the backward pass must compute
# them forward, not treat them as linear ("mul of two linear values"). Stored values
# from JAX 0.10.2.
import numpy as np  # noqa: E402
import pytest  # noqa: E402

_P = adc.checkpoint_policies
_C = np.array([1.0, 2.0, 3.0], np.float32)


def _inner(y):
    return jnp.sin(y * _C) * y


def _outer(x):
    return jnp.sum(jnp.cos(jax.checkpoint(_inner)(x)) * x)


def _layer(W, x):
    y = jnp.tanh(W @ x)
    return jnp.sum(jax.checkpoint(lambda y: jnp.sin(y) * y)(y) ** 2)


def _sin_of_checkpointed_sin(y):
    return jnp.sin(jax.checkpoint(jnp.sin)(y))


@pytest.mark.parametrize("policy", [None, _P.nothing_saveable, _P.everything_saveable,
                                    _P.dots_saveable, _P.dots_with_no_batch_dims_saveable])
def test_grad_of_checkpoint_calling_checkpoint(policy):
    f = jax.checkpoint(_sin_of_checkpointed_sin, policy=policy)
    np.testing.assert_allclose(jax.grad(f)(3.0), -0.98015106, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(jax.grad(f)))(3.0), -0.27756813, rtol=1e-5)
    g = jax.checkpoint(_outer, policy=policy)
    np.testing.assert_allclose(jax.grad(g)(jnp.arange(3.0)), [1.0, 0.55353886, 6.6605196],
                               rtol=1e-5)
    W, x = jnp.ones((3, 3)) * 0.3, jnp.arange(3.0)
    dW, dx = jax.grad(jax.checkpoint(_layer, policy=policy), argnums=(0, 1))(W, x)
    np.testing.assert_allclose(dW, np.tile([0.0, 0.54817677, 1.0963535], (3, 1)), rtol=1e-5)
    np.testing.assert_allclose(dx, [0.4933591] * 3, rtol=1e-5)


def test_grad_of_nested_checkpoint_matches_finite_differences():
    f = jax.checkpoint(jax.checkpoint(_outer, policy=_P.dots_saveable))
    x = np.array([0.3, -0.7, 1.1])
    g = np.asarray(jax.grad(f)(x.astype(np.float32)), np.float64)

    def ref(x):
        y = np.sin(x * _C.astype(np.float64)) * x
        return np.sum(np.cos(y) * x)
    eps = 1e-6
    fd = [(ref(x + eps * e) - ref(x - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-5)


def test_checkpoint_policies_at_the_top_level():
    # jax.checkpoint_policies is jax.ad_checkpoint.checkpoint_policies (JAX's docs use it)
    from astjax.compat import ad_checkpoint
    assert jax.checkpoint_policies is ad_checkpoint.checkpoint_policies
    assert "dots_saveable" in repr(jax.checkpoint_policies)
    f = jax.checkpoint(_sin_sin, policy=jax.checkpoint_policies.dots_saveable)
    assert abs(float(jax.grad(f)(1.0)) - math.cos(math.sin(1.0)) * math.cos(1.0)) < 1e-6


def _sin_sin(x):
    return jnp.sin(jnp.sin(x))
