# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(2, 2), (3,)]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.maximum(jnp.ones((2, 2)), jnp.ones(3))  # error
