"""`astjax.scipy.cluster` (JAX's `jax.scipy.cluster`): `vq`, vector quantization."""
from . import vq  # noqa: F401
