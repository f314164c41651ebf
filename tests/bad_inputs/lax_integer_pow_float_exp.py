# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unsupported operand type(s) for &: 'float' and 'int'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.integer_pow(jnp.ones(3), 2.5)  # error
