# expect: ShapeError TypeError
# jax: TypeError (TypeError): max got incompatible shapes for broadcasting: (2,), (3,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.clip(jnp.ones(3), jnp.zeros(2), 1.0)  # error
