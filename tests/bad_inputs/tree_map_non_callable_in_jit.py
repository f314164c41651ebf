# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'int' object is not callable
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

@astjax.jit
def f(x):
    return tree_util.tree_map(3, [x, x])  # error

f(jnp.ones(2))
