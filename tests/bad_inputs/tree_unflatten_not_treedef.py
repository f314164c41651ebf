# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): 'list' object has no attribute 'unflatten'
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.tree_unflatten([1, 2], [3, 4])  # error
