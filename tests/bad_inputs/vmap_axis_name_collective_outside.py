# expect: AxisNameError NameError
# jax: NameError (NameError): Found an unbound axis name: i. To fix this, please call psum under `jax.shard_map`.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.psum(x, "i")  # error

astjax.vmap(f, axis_name="j")(jnp.ones(3))
