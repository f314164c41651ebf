# expect: AstjaxError TypeError
# jax: TypeError (TypeError): flatten(): incompatible function arguments. The following argument types are supported:
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

tree_util.tree_leaves([1, 2], is_leaf=3)  # error
