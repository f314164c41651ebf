# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.scan(lambda c: (c, c), 0.0, jnp.ones(3))  # error
