# expect: ConcretizationError TypeError
# jax: TypeError (ConcretizationTypeError): Abstract tracer value encountered where concrete value is expected: traced array with shape int32[]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

table = {0: 1.0, 1: 2.0}

def f(i):
    return table[int(i)]  # error

astjax.jit(f)(1)
