# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Gradient only defined for scalar-output functions. Output was [TypedFloat(1.0, dtype=float32)].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return [x]

astjax.grad(f)(1.0)  # error
