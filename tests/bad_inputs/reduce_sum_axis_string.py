# expect: AstjaxError NameError
# jax: NameError (NameError): Found an unbound axis name: 1. To fix this, please call psum under `jax.shard_map`.
# xfail: R12: numpy/reductions.py:canonical_axes uses int(axis), so axis='1' sums axis 1; JAX raises (NameError, an axis name)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.sum(jnp.ones((2, 3)), axis='1')  # error
