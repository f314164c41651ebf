# expect: ok
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(x):
    return max(x.sum(), 1.0) + min(x[0], -x[1], 2.0)

assert float(astjax.jit(f)(jnp.array([0.5, 0.25]))) == 1.0 - 0.25
