# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): reduction operation 'maximum' does not have an identity, so to use a where mask one has to specify 'initial'.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

x = jnp.arange(4.0)
jnp.maximum.reduce(x, where=x > 1)  # error
