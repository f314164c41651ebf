# expect: ShapeError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if x.sum() > 0:  # error
        y = jnp.ones(2)
    else:
        y = jnp.ones(3)
    return y

astjax.jit(f)(np.ones(2))
