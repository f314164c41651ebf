"""`astjax.scipy`: `special` (special functions) and `linalg` (cholesky-based and
triangular solvers, LU)."""
from . import special, linalg  # noqa: F401
