# expect: DTypeError TypeError
# jax: TypeError (TypeError): primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case of int/bool primal dtype the tangent dtype must be float0.Got primal dtyp
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jvp(f, (jnp.ones(3),), (jnp.ones(3, jnp.int32),))  # error
