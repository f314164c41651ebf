"""`astjax.scipy`: `special` (special functions), `linalg` (cholesky-based and
triangular solvers, LU) and `stats` (probability distributions)."""
from . import (special, linalg, stats, sparse, optimize, integrate, ndimage,  # noqa: F401
               cluster, interpolate, fft)
