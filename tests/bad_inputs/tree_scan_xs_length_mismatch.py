# expect: AstjaxError ValueError
# jax: ValueError (ValueError): scan got values with different leading axis sizes: 3, 4.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4)))  # error
