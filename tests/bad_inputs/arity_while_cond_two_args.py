# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() missing 1 required positional argument: 'd'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.while_loop(lambda c, d: c < 3.0, lambda c: c + 1.0, 0.0)  # error
