# expect: AstjaxError ValueError
# jax: ValueError (ValueError): invalid literal for int() with base 10: 'a'
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.fold_in(random.key(0), "a")  # error
