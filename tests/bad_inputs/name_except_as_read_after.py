# expect: UnboundLocalVariableError UnboundLocalError
# jax: UnboundLocalError (UnboundLocalError): cannot access local variable 'G' where it is not associated with a value
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax



def f(x):
    y = x
    if x.shape[0] > 0:
        try:
            raise ValueError()
        except ValueError as G:
            y = x + 1
    return y + G  # error


astjax.jit(f)(jnp.ones(2))
