# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Invalid order 'fro' for vector norm.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.norm(jnp.ones(3), ord="fro")  # error
