# expect: ShapeError TypeError
# jax: TypeError (TypeError): Branch index must be scalar, got [0 1] of shape (2,).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.switch(jnp.array([0, 1]), [lambda x: x, lambda x: x * 2], jnp.ones(3))  # error
