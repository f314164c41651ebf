# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'float' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.nn.one_hot(jnp.array([0, 1]), 2.5)  # error
