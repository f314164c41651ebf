# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can only take integer values greater than or equal to `-len(args)` and less than `len(args)`, bu
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sin(x)

astjax.checkpoint(f, static_argnums=3)(1.0)  # error
