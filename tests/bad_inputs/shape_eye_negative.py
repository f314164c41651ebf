# expect: AstjaxError ValueError
# jax: ValueError (ValueError): negative dimensions are not allowed, got -2 and None
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.eye(-2)  # error
