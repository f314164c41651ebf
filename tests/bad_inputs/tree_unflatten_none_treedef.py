# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): 'NoneType' object has no attribute 'unflatten'
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.tree_unflatten(None, [3])  # error
