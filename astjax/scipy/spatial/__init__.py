"""`astjax.scipy.spatial` (JAX's `jax.scipy.spatial`): `transform` (rotations in 3-D
as unit quaternions, and their spherical interpolation)."""
from . import transform  # noqa: F401
