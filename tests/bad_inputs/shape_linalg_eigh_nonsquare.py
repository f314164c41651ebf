# expect: ShapeError TypeError
# jax: TypeError (TypeError): add got incompatible shapes for broadcasting: (2, 3), (3, 2).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.eigh(jnp.ones((2, 3)))  # error
