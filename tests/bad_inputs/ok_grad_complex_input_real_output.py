# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(z):
    return jnp.real(z * z)

g = astjax.grad(f)(jnp.complex64(1 + 2j))
assert complex(g) == 2 + 4j
