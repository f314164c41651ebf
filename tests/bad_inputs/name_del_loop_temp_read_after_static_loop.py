# expect: UnboundLocalVariableError UnboundLocalError
# jax: UnboundLocalError (UnboundLocalError): cannot access local variable 't' where it is not associated with a value
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    for i in range(3):
        t = x * i
        del t
    return x, t  # error

astjax.jit(f)(jnp.ones(3))
