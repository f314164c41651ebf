# expect: AstjaxError AttributeError
# jax: AttributeError (AttributeError): 'list' object has no attribute 'num_leaves'
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

inner = tree_util.tree_structure((0, 0))
tree_util.tree_transpose([0, 0], inner, [(1, 2), (3, 4)])  # error
