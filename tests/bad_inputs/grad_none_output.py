# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Gradient only defined for scalar-output functions. Output was None.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    x * 2

astjax.grad(f)(1.0)  # error
