# expect: AstjaxError TypeError
# jax: TypeError (TypeError): f.<locals>.<lambda>() takes 1 positional argument but 2 were given
# xfail: TODO raw TypeError at /work/wt/api-errors/astjax/core.py:512: ag__factory.<locals>.f.<locals>.<lambda>() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(xs):
    return lax.scan(lambda c: (c, c), 0.0, xs)  # error

astjax.jit(f)(jnp.ones(3))
