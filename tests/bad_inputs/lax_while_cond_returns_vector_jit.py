# expect: JAXTypeError TypeError
# jax: TypeError (TypeError): cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(bool[2])].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.while_loop(lambda c: c < 3.0, lambda c: c + 1.0, x)  # error

astjax.jit(f)(jnp.zeros(2))
