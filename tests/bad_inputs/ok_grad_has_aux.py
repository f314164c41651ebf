# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2, {'aux': x}

g, aux = astjax.grad(f, has_aux=True)(3.0)
assert float(g) == 2.0 and float(aux['aux']) == 3.0
