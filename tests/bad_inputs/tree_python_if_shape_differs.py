# expect: AstjaxError TypeError
# jax: TypeError (TracerBoolConversionError): Attempted boolean conversion of traced array with shape bool[].
# xfail: TODO located at /work/wt/api-errors/tests/bad_inputs/tree_python_if_shape_differs.py:10:5, expected line [14]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    if x.sum() > 0:
        y = jnp.ones(2)
    else:
        y = jnp.ones(3)
    return y  # error

astjax.jit(f)(jnp.ones(2))
