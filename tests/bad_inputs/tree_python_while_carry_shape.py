# expect: LoopCarryError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    while x.sum() < 10:  # error
        x = jnp.concatenate([x, x])
    return x

astjax.jit(f)(jnp.ones(2))
