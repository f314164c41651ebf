# expect: AstjaxError TypeError
# jax: TypeError (TypeError): len() of unsized object
# xfail: numpy/array_methods.py:87: len() of a 0-d staged value raises a raw TypeError inside astjax (JAX raises it in the user's frame); needs a located error
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + len(x.sum())  # error

astjax.jit(f)(jnp.ones(3))
