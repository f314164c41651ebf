# expect: ShapeError TypeError
# jax: TypeError (TypeError): sub got incompatible shapes for broadcasting: (4,), (5,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.subtract(jnp.ones(4), jnp.ones(5))  # error
