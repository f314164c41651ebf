# expect: UnboundLocalVariableError UnboundLocalError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp


def f(x):
    G = x
    while x.sum() < 10:  # error
        x = x * 2
        del G
    return x


astjax.jit(f)(jnp.ones(2))
