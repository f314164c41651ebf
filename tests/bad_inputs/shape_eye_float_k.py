# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): k must be a scalar integer; got 1.5
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.eye(3, k=1.5)  # error
