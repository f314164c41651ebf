# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): order must be non-negative but got -1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.diff(jnp.arange(4.0), n=-1)  # error
