# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def f(x):
    return round(x, 1) + round(x)

assert abs(float(astjax.jit(f)(jnp.float32(2.26))) - 4.3) < 1e-6
