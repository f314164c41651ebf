# expect: DifferentiationTypeError TypeError
# jax: TypeError (TypeError): expected function with aux output to return a two-element tuple, but got type <class 'jax._src.interpreters.ad.LinearizeTracer'> with value GradTracer(primal=[2
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.vjp(f, jnp.ones(3), has_aux=True)  # error
