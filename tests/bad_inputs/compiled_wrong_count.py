# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Function compiled with input pytree does not match the input pytree it was called with. There are 1 mismatches, including:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

c = astjax.jit(f).lower(jnp.ones(3)).compile()
c(jnp.ones(3), jnp.ones(3))  # error
