# expect: AstjaxError ValueError
# jax: ValueError (ValueError): diag input must be 1d or 2d
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.diag(jnp.ones((2, 2, 2)))  # error
