# expect: AstjaxError TypeError
# jax: TypeError (TypeError): <lambda>() takes 0 positional arguments but 1 was given
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.switch(1, [lambda x: x, lambda: 1.0], 2.0)  # error
