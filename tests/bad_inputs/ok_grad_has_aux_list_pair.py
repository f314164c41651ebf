# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return [x * 2, 1.0]

g, aux = astjax.grad(f, has_aux=True)(1.0)
assert float(g) == 2.0 and aux == 1.0
