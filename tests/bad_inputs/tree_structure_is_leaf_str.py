# expect: AstjaxError TypeError
# jax: TypeError (TypeError): flatten(): incompatible function arguments. The following argument types are supported:
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.tree_structure([1], is_leaf="x")  # error
