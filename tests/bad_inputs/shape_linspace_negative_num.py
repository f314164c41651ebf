# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Number of samples, -3, must be non-negative.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linspace(0.0, 1.0, -3)  # error
