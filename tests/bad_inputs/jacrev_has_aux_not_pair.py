# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): expected function with aux output to return a two-element tuple, but got type <class 'jax._src.interpreters.ad.LinearizeTracer'> with value GradTracer(primal=[2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

def f(x):
    return x * 2

astjax.jacrev(f, has_aux=True)(jnp.ones(3))  # error
