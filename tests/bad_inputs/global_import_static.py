# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

G = 0


def f(x):
    global G
    from math import pi as G  # only Python values go in: JAX's behaviour, silent
    return x + G


assert abs(float(astjax.jit(f)(1.0)) - 4.14159265) < 1e-5
assert G == np.pi
