# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal function, but at output[0] the bwd rule produced an output of type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

@astjax.custom_vjp
def f(x):
    return jnp.sin(x)

def fwd(x):
    return jnp.sin(x), x

def bwd(x, g):
    return (jnp.ones(2),)

f.defvjp(fwd, bwd)
astjax.grad(lambda x: jnp.sum(f(x)))(jnp.ones(3))  # error
