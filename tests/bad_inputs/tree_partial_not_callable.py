# expect: AstjaxError TypeError
# jax: TypeError (TypeError): the first argument must be callable
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.Partial(3)  # error
