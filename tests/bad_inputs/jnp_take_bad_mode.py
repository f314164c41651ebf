# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): Invalid mode 'bogus' for np.take
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

jnp.take(jnp.ones(3), jnp.array([0]), mode="bogus")  # error
