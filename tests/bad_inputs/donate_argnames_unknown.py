# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Jitted function has invalid argnames {'z'} in donate_argnames. Function does not take these args.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

astjax.jit(f, donate_argnames="z")(jnp.ones(3), jnp.ones(3))  # error
