# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): invalid argument side='middle', expected 'left' or 'right'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.searchsorted(jnp.arange(4.0), 1.5, side="middle")  # error
