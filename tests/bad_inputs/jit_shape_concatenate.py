# expect: ShapeError TypeError
# jax: TypeError (TypeError): Cannot concatenate arrays with different numbers of dimensions: got (4,), (1, 4).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.concatenate([x, x[None]])  # error

astjax.jit(f)(jnp.ones(4))
