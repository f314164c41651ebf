# expect: ShapeError TypeError
# jax: TypeError (TypeError): add got incompatible shapes for broadcasting: (4,), (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + jnp.ones(3)  # error

astjax.jit(f)(jnp.ones(4))
