# expect: AstjaxError ValueError
# jax: ValueError (ValueError): zero-size array to reduction operation max which has no identity
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.max(jnp.zeros((0, 2)), axis=0)  # error
