# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Too few leaves for PyTreeDef; expected 2, got 1
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

t = astjax.tree_util.tree_structure((1, 2))
astjax.tree_util.tree_unflatten(t, [1])  # error
