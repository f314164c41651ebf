# expect: DTypeError TypeError
# jax: TypeError (TypeError): data type 'notadtype' not understood
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.zeros(3, dtype="notadtype")  # error
