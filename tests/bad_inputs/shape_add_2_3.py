# expect: ShapeError TypeError
# jax: TypeError (TypeError): add got incompatible shapes for broadcasting: (2,), (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.ones(2) + jnp.ones(3)  # error
