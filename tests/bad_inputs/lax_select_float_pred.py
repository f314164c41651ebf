# expect: DTypeError TypeError
# jax: TypeError (TypeError): select `which` must be boolean or integer type, got float32.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.select(jnp.ones(3), jnp.ones(3), jnp.zeros(3))  # error
