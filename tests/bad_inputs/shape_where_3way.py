# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Incompatible shapes for broadcasting: shapes=[(2,), (3,), (4,)]
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.where(jnp.ones(2) > 0, jnp.ones(3), jnp.ones(4))  # error
