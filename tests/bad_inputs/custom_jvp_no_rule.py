# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): No JVP defined for custom_jvp function f using defjvp.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

@astjax.custom_jvp
def f(x):
    return x * 2

astjax.jvp(f, (1.0,), (1.0,))  # error
