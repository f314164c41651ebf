# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() takes 1 positional argument but 2 were given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.jit(lambda x: x + 1)(1.0, 2.0)  # error
