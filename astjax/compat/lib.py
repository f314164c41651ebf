"""`jax.lib`: the version of the jaxlib astjax runs on (`jax.lib.__version__`)."""
import jaxlib as _jaxlib

__version__ = _jaxlib.__version__
