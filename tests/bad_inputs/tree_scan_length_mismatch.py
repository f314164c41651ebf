# expect: AstjaxError ValueError
# jax: ValueError (ValueError): scan got `length` argument of 5 which disagrees with leading axis sizes [3].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), length=5)  # error
