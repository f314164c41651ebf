# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (2.5, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones((2.5, 3))  # error
