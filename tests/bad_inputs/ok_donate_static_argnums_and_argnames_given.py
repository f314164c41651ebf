# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x, y):
    return x + y

# donate_argnums names a static argument: JAX completes no names when both static_
# arguments are given, and a static argument is not donated
r = astjax.jit(f, static_argnums=0, static_argnames="y", donate_argnums=0)(1.0, 2.0)
assert float(r) == 3.0
