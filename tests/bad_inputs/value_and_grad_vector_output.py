# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): Gradient only defined for scalar-output functions. Output had shape: (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.value_and_grad(f)(jnp.ones(3))  # error
