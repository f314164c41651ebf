# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() missing 1 required positional argument: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.map(lambda x, y: x, jnp.ones(3))  # error
