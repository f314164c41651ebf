"""`astjax.scipy.sparse` (JAX's `jax.scipy.sparse`): the iterative solvers of
`linalg` (`cg`, `gmres`, `bicgstab`)."""
from . import linalg  # noqa: F401
