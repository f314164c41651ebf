"""`jax._src.checkify`: the module behind `jax.experimental.checkify` (the same
names; libraries import it under this path)."""
from astjax.compat.experimental.checkify import *  # noqa: F401,F403
from astjax.compat.experimental.checkify import Out  # noqa: F401
