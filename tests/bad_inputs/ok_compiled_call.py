# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

c = astjax.jit(f).lower(jnp.ones(3)).compile()
assert c(jnp.ones(3)).tolist() == [2.0, 2.0, 2.0]
