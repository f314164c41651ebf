# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): lax.scan: f argument should be a callable.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.scan(3, 0.0, jnp.ones(3))  # error
