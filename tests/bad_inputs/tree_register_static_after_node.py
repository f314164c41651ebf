# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Duplicate custom PyTreeDef type registration for <class '__bad_input__.Q'>.
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

class Q:
    pass

tree_util.register_pytree_node(Q, lambda q: ((), None), lambda a, c: Q())
tree_util.register_static(Q)  # error
