# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f() got an unexpected keyword argument 'z'
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/staging.py:81: ag__factory.<locals>.f() got an unexpected keyword argument 'z'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return x * 2

astjax.jit(f)(1.0, z=2.0)  # error
