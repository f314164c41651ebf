# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.fori_loop(0, 3, lambda c: c + 1.0, 0.0)  # error
