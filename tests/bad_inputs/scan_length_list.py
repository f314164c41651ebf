# expect: AstjaxError TypeError
# jax: TypeError (TypeError): int() argument must be a string, a bytes-like object or a real number, not 'list'
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.scan(lambda c, x: (c + 1.0, c), 0.0, None, length=[2])  # error
