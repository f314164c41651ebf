# expect: AstjaxError TypeError
# jax: TypeError (TypeError): unsupported operand type(s) for &: 'float' and 'int'
# xfail: lax.integer_pow accepts a float exponent (primitives/elementwise.py does not check it is an int; silently truncated); JAX raises TypeError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.integer_pow(jnp.ones(3), 2.5)  # error
