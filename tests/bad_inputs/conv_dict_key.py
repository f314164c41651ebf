# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unhashable type: 'DynamicJaxprTracer'
# xfail: TODO raw KeyError at /work/wt/api-errors/tests/bad_inputs/conv_dict_key.py:10: Traced<f32[]>
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return {x.sum(): 1}[x.sum()] + x  # error

astjax.jit(f)(jnp.ones(3))
