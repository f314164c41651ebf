# expect: ok
# jax: ok
# xfail: TODO rejected a valid program: TracerArrayConversionError: /work/wt/api-errors/tests/bad_inputs/ok_eval_shape_closure.py:10:9         s = astjax.eval_shape(lambda: x * 2)             ^^^^^^^^^^^^^^^^^^^^^^
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    s = astjax.eval_shape(lambda: x * 2)
    return jnp.zeros(s.shape) + x

assert astjax.jit(f)(jnp.ones(2)).tolist() == [1.0, 1.0]
