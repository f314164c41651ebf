# expect: StructureError TypeError
# jax: TypeError (TypeError): Custom VJP fwd rule fwd for function f must produce a pair (list or tuple of length two) where the first element represents the primal output (equal to those of
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

@astjax.custom_vjp
def f(x):
    return jnp.sin(x)

def fwd(x):
    return jnp.sin(x), x, jnp.cos(x)

def bwd(r, g):
    return (g,)

f.defvjp(fwd, bwd)
astjax.jit(astjax.grad(f))(1.0)  # error
