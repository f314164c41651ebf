# expect: AstjaxError NameError
# jax: NameError (NameError): Found an unbound axis name: 1. To fix this, please call psum under `jax.shard_map`.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.sum(jnp.ones((2, 3)), axis='1')  # error
