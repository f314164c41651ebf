# expect: UndefinedVariableError NameError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    def g():
        nonlocal t
        return t * 2
    if jnp.sum(x) > 0:  # error
        t = x
    return g()

astjax.jit(f)(-jnp.ones(3))
