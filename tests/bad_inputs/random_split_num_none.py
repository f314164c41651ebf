# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'NoneType' object cannot be interpreted as an integer
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.split(random.key(0), None)  # error
