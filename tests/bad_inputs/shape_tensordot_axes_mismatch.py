# expect: ShapeError TypeError
# jax: TypeError (TypeError): dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.tensordot(jnp.ones((2, 3)), jnp.ones((4, 5)), axes=1)  # error
