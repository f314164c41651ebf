# expect: ConcretizationError TypeError
# jax: TypeError (ConcretizationTypeError): Abstract tracer value encountered where concrete value is expected: traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.nonzero(x)  # error

astjax.jit(f)(np.array([1.0, 0.0, 2.0]))
