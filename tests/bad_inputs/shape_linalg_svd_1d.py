# expect: ShapeError TypeError
# jax: TypeError (TypeError): Input 0 to svd must have rank at least 2, but got shape=(3,)
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.linalg.svd(jnp.ones(3))  # error
