# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unsupported format string passed to DynamicJaxprTracer.__format__
# xfail: frontend/operators.call calls the builtin on the staged value and lets its raw TypeError/ValueError escape from inside astjax (JAX raises it in the user's frame); needs a located re-raise
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x + len('{:.1f}'.format(x.sum()))  # error

astjax.jit(f)(jnp.ones(3))
