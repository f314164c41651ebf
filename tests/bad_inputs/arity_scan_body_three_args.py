# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() missing 1 required positional argument: 'y'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c, x, y: (c, x), 0.0, jnp.ones(3))  # error
