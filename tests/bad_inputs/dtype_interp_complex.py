# expect: AstjaxError ValueError
# jax: ValueError (ValueError): jnp.interp: complex x values not supported.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.interp(jnp.array([1 + 2j]), jnp.array([0j, 2j]), jnp.array([0.0, 1.0]))  # error
