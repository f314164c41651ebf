"""`jax._src.*` modules that libraries import, with what they use from them.

As JAX's `import jax` imports them all, importing this package imports every one, so
a library may reach one as an attribute (`jax._src.xla_bridge._backends`)."""
from . import (ad_util, api, checkify, compiler, core, dispatch, distributed, dtypes, ffi,  # noqa: F401
               flatten_util, interpreters, lib, state, traceback_util, tree_util, util, xla_bridge)
