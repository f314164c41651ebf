# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal function, but at output[0] the bwd rule produced an output of type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

@astjax.custom_vjp
def scale(x, k):
    return x * k

def scale_fwd(x, k):
    return x * k, (x, k)

def scale_bwd(res, g):
    x, k = res
    return (jnp.ones(2), jnp.sum(g * x))

scale.defvjp(scale_fwd, scale_bwd)
astjax.grad(lambda x: jnp.sum(scale(x, 2.0)))(jnp.ones(3))  # error
