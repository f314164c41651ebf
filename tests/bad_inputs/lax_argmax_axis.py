# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Invalid axis 1 for operand shape (3,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.argmax(jnp.ones(3), 1, jnp.int32)  # error
