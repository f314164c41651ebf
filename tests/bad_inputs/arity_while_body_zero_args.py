# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() takes 0 positional arguments but 1 was given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.while_loop(lambda c: c < 3.0, lambda: 1.0, 0.0)  # error
