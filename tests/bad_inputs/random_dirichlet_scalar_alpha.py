# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.dirichlet(random.key(0), jnp.ones(()))  # error
