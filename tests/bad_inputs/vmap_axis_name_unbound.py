# expect: AxisNameError NameError
# jax: NameError (NameError): Found an unbound axis name: j. To fix this, please call psum under `jax.shard_map`.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

def f(x):
    return lax.psum(x, 'j')  # error

astjax.vmap(f, axis_name='i')(jnp.ones(3))
