# expect: AstjaxError ValueError
# jax: ValueError (ValueError): matmul input operand 1 must have ndim at least 1, but it has ndim 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.matmul(jnp.ones(3), 2.0)  # error
