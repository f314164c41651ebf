# expect: AstjaxError ValueError
# jax: ValueError (ValueError): inconsistent size for core dimension 'm': 4 vs 3 on vectorized function with excluded=frozenset() and signature='(m,m),(m)->(m)'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.linalg.solve(x, jnp.ones(4))  # error

astjax.jit(f)(jnp.eye(3))
