"""`jax.version`: the JAX API level astjax implements."""
from astjax.jax_alias import JAX_API_VERSION as _JAX_API_VERSION

__version__ = _JAX_API_VERSION
__version_info__ = tuple(int(p) for p in _JAX_API_VERSION.split("."))
_version = __version__
