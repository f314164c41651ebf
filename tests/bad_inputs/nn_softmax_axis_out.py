# expect: AstjaxError ValueError
# jax: ValueError (ValueError): axis 2 is out of bounds for array of dimension 1
# xfail: R12: nn.softmax's axis is normalised with % ndim without a range check (silent); JAX raises ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.nn.softmax(jnp.ones(3), axis=2)  # error
