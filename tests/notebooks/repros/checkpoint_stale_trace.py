"""autodiff_remat cell 22: JAX's `checkpoint` reuses the trace of a function it traced
before, keyed on the function object, even after a global that function reads was
rebound (here `predict`, redefined with `checkpoint_name`s); the names policy then finds
no names. astjax re-stages when a global read by the function changes
(codegen/compile_cache.shared_state: staging is never reused stale), so the named value
is saved. The derivatives agree; only the residual listing differs.

JAX:    f32[4] from the argument x
astjax: f32[4] from the argument x
        f32[4] named 'a' from ...:(predict)
"""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name, print_saved_residuals


def predict(x):
    return jnp.sin(x)


def loss(x):
    return jnp.sum(predict(x) ** 2)


x = jnp.ones(4)
jax.grad(jax.checkpoint(loss, policy=jax.checkpoint_policies.nothing_saveable))(x)


def predict(x):  # noqa: F811  (rebinding the global is the point)
    return checkpoint_name(jnp.sin(x), name='a')


print_saved_residuals(jax.checkpoint(
    loss, policy=jax.checkpoint_policies.save_only_these_names('a')), x)
