# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal function, but at output[0] the bwd rule produced an output of type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

@astjax.custom_vjp
def f(x):
    return jnp.sin(x)

def fwd(x):
    return jnp.sin(x)[:2], x

def bwd(r, g):
    return (g,)

f.defvjp(fwd, bwd)
astjax.grad(lambda x: jnp.sum(f(x)))(jnp.ones(3))  # error
