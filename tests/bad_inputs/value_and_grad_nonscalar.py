# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Gradient only defined for scalar-output functions. Output had shape: (2,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.value_and_grad(f)(jnp.ones(2))  # error
