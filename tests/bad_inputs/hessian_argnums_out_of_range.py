# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Positional argument indices, e.g. for `static_argnums`, must have value greater than or equal to -len(args) and less than len(args), but got value 2 for len(arg
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x):
    return jnp.sum(x ** 2)

astjax.hessian(f, argnums=2)(jnp.ones(3))  # error
