# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): broadcast_in_dim shape must have every element be an integer type, got (<class 'float'>,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vmap(f, in_axes=None, axis_size=2.5)(1.0)  # error
