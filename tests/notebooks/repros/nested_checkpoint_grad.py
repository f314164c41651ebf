"""grad through a checkpoint whose body calls a checkpointed function (the
recursive-checkpointing example of autodiff_remat) crashes inside astjax's transpose.

JAX:    -0.98015106
astjax: AssertionError: mul of two linear values is not linear
        (transforms/ad.py backward_pass -> primitives/arithmetic.py _mul_transpose)
"""
import jax
import jax.numpy as jnp

f = jax.checkpoint(lambda y: jnp.sin(jax.checkpoint(jnp.sin)(y)))
print(jax.grad(f)(3.))
