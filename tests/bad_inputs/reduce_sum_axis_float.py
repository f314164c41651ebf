# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'float' object is not iterable
# xfail: R12: numpy/reductions.py:canonical_axes uses int(axis), so axis=1.0 sums axis 1; JAX raises TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.sum(jnp.ones((2, 3)), axis=1.0)  # error
