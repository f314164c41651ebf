# expect: ConcretizationError TypeError
# jax: TypeError (ConcretizationTypeError): Abstract tracer value encountered where concrete value is expected: traced array with shape float32[3]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.intersect1d(x, x)  # error

astjax.jit(f)(jnp.ones(3))
