"""`jax.experimental`: `io_callback` (and `pure_callback`), and the x64 context
managers."""
from astjax.callbacks_api import io_callback, pure_callback  # noqa: F401
