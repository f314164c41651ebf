# expect: UndefinedVariableError NameError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    while jnp.sum(x) > 10.0:
        x = x + NEVER_DEFINED  # noqa: F821  # error
    return x

astjax.jit(f)(np.ones(3))
