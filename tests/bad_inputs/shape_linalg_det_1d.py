# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to _det() must have shape [..., n, n], got (3,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.det(jnp.ones(3))  # error
