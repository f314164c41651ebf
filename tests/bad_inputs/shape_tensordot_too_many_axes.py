# expect: ShapeError TypeError
# jax: TypeError (TypeError): Number of tensordot axes (axes 2) exceeds input ranks ((3,) and (3,))
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.tensordot(x, x, axes=2)  # error

astjax.jit(f)(jnp.ones(3))
