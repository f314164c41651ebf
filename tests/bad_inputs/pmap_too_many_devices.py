# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): cannot select an axis to squeeze out which has size not equal to one, got shape=(64, 3) and dimensions=(0,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.pmap(f)(jnp.ones((64, 3)))  # error
