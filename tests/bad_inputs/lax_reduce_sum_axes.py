# expect: AstjaxError ValueError
# jax: ValueError (ValueError): reduction axes (2,) contains out-of-bounds indices for float32[2,3].
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.reduce_sum(jnp.ones((2, 3)), (2,))  # error
