# expect: ArityError TypeError
# jax: TypeError (TypeError): zeros_like() got an unexpected keyword argument 'shap'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.zeros_like(x, shap=(2,))  # error

astjax.jit(f)(jnp.ones(3))
