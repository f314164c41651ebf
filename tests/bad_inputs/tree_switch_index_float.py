# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Index type must be an integer, got 1.5 as float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.switch(1.5, [lambda x: x, lambda x: x], 1.0)  # error
