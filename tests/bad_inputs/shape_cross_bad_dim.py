# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Dimension must be either 2 or 3 for cross product
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.cross(jnp.ones(4), jnp.ones(4))  # error
