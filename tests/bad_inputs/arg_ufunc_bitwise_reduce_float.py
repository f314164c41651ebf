# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): integer argument required; got dtype=float32
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.bitwise_and.reduce(jnp.arange(3.0))  # error
