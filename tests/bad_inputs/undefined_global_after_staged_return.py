# expect: UndefinedVariableError NameError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    for i in range(3):
        if jnp.sum(x) > 1.0:
            return x * 2
    return x + NEVER_DEFINED  # noqa: F821  # error

astjax.jit(f)(np.linspace(0.1, 1, 3))
