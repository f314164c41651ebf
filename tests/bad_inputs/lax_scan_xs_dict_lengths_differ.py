# expect: ArgumentValueError ValueError
# jax: ValueError (ValueError): scan got values with different leading axis sizes: 3, 4.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.scan(lambda c, x: (c + x['a'] + x['b'], c), 0.0, {'a': jnp.ones(3), 'b': jnp.ones(4)})  # error
