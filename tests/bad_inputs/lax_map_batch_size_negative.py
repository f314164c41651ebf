# expect: ShapeError TypeError
# jax: TypeError (TypeError): reshape new_sizes must all be positive, got (-4, -1).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.map(lambda v: v * 2, jnp.ones(4), batch_size=-1)  # error
