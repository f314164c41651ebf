# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() missing 1 required positional argument: 'x'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.cond(True, lambda x: x, lambda x: x)  # error
