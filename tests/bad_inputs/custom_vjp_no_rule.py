# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): No VJP defined for custom_vjp function f using defvjp.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

@astjax.custom_vjp
def f(x):
    return x * 2

astjax.grad(f)(1.0)  # error
