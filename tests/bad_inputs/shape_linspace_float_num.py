# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): 'float' object cannot be interpreted as an integer
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linspace(0.0, 1.0, num=2.5)  # error
