# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): grad with holomorphic=True requires inputs with complex dtype, but got float32.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.grad(f, holomorphic=True)(1.0)  # error
