# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unsupported format string passed to DynamicJaxprTracer.__format__
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + len(f'{x.sum():.2f}')  # error

astjax.jit(f)(jnp.ones(3))
