# expect: StructureError TypeError
# jax: TypeError (TypeError): Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

@astjax.custom_vjp
def f(x):
    return jnp.sum(x[0] * x[1])

def fwd(x):
    return f(x), x

def bwd(r, g):
    return ({'a': g},)

f.defvjp(fwd, bwd)
astjax.grad(f)((jnp.ones(2), jnp.ones(2)))  # error
