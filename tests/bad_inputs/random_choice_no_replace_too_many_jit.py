# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Cannot take a larger sample (size 5) than population (size 3) when 'replace=False'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return astjax.random.choice(astjax.random.PRNGKey(0), x, (5,), replace=False)  # error

astjax.jit(f)(jnp.ones(3))
