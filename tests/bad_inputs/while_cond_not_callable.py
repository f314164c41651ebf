# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): lax.while_loop: body_fun and cond_fun arguments should be callable.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.while_loop(True, lambda c: c + 1, 0)  # error
