# expect: ShapeError TypeError
# jax: TypeError (TypeError): transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0) for operand shape (2, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

jnp.transpose(jnp.ones((2, 3)), (0, 0))  # error
