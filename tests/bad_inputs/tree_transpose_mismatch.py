# expect: AstjaxError TypeError
# jax: TypeError (TypeError): Mismatch
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

outer = tree_util.tree_structure([0, 0])
inner = tree_util.tree_structure((0, 0))
tree_util.tree_transpose(outer, inner, [(1, 2), (3,)])  # error
