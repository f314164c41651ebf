# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Shapes must be 1D sequences of concrete values of integer type, got (np.float64(7.5),).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tile(jnp.ones(3), 2.5)  # error
