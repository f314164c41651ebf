# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): add.reduce requires ndarray or scalar arguments, got <class 'list'> at position 0.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.add.reduce([1.0, 2.0])  # error
