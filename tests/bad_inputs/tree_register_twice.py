# expect: AstjaxError ValueError
# jax: ValueError (ValueError): Duplicate custom PyTreeDef type registration for <class '__bad_input__.P'>.
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

class P:
    pass

tree_util.register_pytree_node(P, lambda p: ((), None), lambda a, c: P())
tree_util.register_pytree_node(P, lambda p: ((), None), lambda a, c: P())  # error
