# expect: AstjaxError TypeError
# jax: TypeError (TypeError): 'NoneType' object is not iterable
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

random.maxwell(random.key(0), None)  # error
