"""`jax.sharding`: astjax's layout data model (`astjax.sharding`) plus `reshard`,
which needs the partitioning primitives above it."""
from astjax.primitives.spmd import reshard  # noqa: F401
from astjax.sharding import *  # noqa: F401,F403
from astjax.sharding import __all__ as _names

__all__ = list(_names) + ["reshard"]
