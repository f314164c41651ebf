# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (2.5,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

lax.iota(jnp.int32, 2.5)  # error
