# expect: ok
# jax: ok
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

assert float(jnp.einsum('ii->', jnp.eye(3))) == 3.0
