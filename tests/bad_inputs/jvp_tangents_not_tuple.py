# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): primal and tangent arguments to jax.jvp must be tuples or lists; found tuple and ArrayImpl.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jvp(f, (jnp.ones(3),), jnp.ones(3))  # error
