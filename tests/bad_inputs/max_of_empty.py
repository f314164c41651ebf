# expect: ArgumentError ValueError
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.max(jnp.zeros(0))  # error
