# expect: AstjaxError ValueError
# jax: ValueError (ValueError): xp and fp must be one-dimensional arrays of equal size
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.interp(0.5, jnp.ones(3), jnp.ones(4))  # error
