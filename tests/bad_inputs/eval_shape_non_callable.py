# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Expected a callable value, got 3
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.eval_shape(3, 1.0)  # error
