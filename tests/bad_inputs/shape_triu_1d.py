# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Argument to jax.numpy.tril must be at least 2D
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tril(jnp.ones(3))  # error
