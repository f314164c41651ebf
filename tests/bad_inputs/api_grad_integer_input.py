# expect: DifferentiationError TypeError
# xfail: grad of an int input: JAX raises TypeError; astjax's class to be aligned
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.grad(f)(3)  # error
