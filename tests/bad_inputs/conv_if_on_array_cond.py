# expect: AstjaxError ValueError
# jax: ValueError (ValueError): The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# xfail: the front end's staged `x if c else y` raises ConcretizationError (TypeError) for a non-0-d test; JAX raises ValueError ('truth value is ambiguous')
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return 1.0 if x else 0.0  # error

astjax.jit(f)(jnp.ones(3))
