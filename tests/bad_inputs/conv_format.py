# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unsupported format string passed to DynamicJaxprTracer.__format__
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + len('{:.1f}'.format(x.sum()))  # error

astjax.jit(f)(jnp.ones(3))
