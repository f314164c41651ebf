# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to inv must have shape [..., n, n], got (2, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.inv(jnp.ones((2, 3)))  # error
