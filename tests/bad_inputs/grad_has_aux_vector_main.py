# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): Gradient only defined for scalar-output functions. Output had shape: (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x):
    return x * 2, x

astjax.grad(f, has_aux=True)(jnp.ones(3))  # error
