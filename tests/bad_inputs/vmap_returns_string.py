# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Output from batched function 'a' with type <class 'str'> is not a valid JAX type
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return "a"

astjax.vmap(f)(jnp.ones(3))  # error
