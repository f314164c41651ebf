# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Argument 'abc' of type <class 'str'> is not a valid JAX type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x

astjax.vmap(f)('abc')  # error
