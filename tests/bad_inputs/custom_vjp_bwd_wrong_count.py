# expect: StructureError TypeError
# jax: TypeError (TypeError): Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a
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
    return (g, g)

f.defvjp(fwd, bwd)
astjax.grad(f)(1.0)  # error
