"""`jax._src.tree_util`: the public `jax.tree_util` names plus `_registry`, the
mapping from pytree node types (builtins included) to their flatten rules, which
libraries consult to ask "is this type a pytree node" (`type(x) in _registry`)."""
from astjax.tree_util import *  # noqa: F401,F403
from astjax.tree_util import _registry  # noqa: F401
