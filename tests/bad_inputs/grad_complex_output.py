# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64. For holomorphic differentiation, pass holomorphic=True. 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 1j

astjax.grad(f)(1.0)  # error
