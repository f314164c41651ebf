# expect: AstjaxError ValueError
# jax: ValueError (ValueError): pytree structure error: different lengths of tuple at key path
# xfail: TODO raw ValueError at /work/wt/api-errors/astjax/tree_util.py:242: Tree structures differ: tuple arity mismatch: 3 != 2; expected a tree of structure PyTreeDef((*, *)), got (1, 2, 3).
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.tree_util.tree_map(lambda a, b: a + b, (1, 2), (1, 2, 3))  # error
