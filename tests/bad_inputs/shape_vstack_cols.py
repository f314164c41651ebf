# expect: ShapeError TypeError
# jax: TypeError (TypeError): Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension 0 for shapes (2, 2), (2, 3)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.vstack([jnp.ones((2, 2)), jnp.ones((2, 3))])  # error
