# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

@astjax.custom_jvp
def f(x):
    return jnp.sin(x)

f.defjvps(lambda g, ans, x: g * 2.0, lambda g, ans, x: g)
assert abs(float(f(1.0)) - np.sin(1.0)) < 1e-6
