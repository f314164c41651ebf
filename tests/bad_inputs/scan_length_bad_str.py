# expect: AstjaxError ValueError
# jax: ValueError (ValueError): invalid literal for int() with base 10: 'x'
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

lax.scan(lambda c, x: (c + 1.0, c), 0.0, None, length="x")  # error
