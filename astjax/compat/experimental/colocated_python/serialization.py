"""`jax.experimental.colocated_python.serialization`: the names orbax-checkpoint reads
at import (`DeviceList` in annotations, `xb` for the backends' devices). Nothing is
serialized: colocated programs run in this process (see the package)."""
from __future__ import annotations

from astjax.compat._src import xla_bridge as xb  # noqa: F401


class DeviceList(tuple):
    """An immutable sequence of devices (jaxlib's `DeviceList`)."""
    __slots__ = ()
