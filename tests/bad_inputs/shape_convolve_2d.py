# expect: AstjaxError ValueError
# jax: ValueError (ValueError): convolve() only support 1-dimensional inputs.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.convolve(jnp.ones((2, 2)), jnp.ones(2))  # error
