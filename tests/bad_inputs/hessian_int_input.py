# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32. For holomorphic differentiation, pass holomorphic=True. For 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return jnp.sum(x * 2)

astjax.hessian(f)(jnp.arange(3))  # error
