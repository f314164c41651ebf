"""`astjax.scipy`: `special` (special functions), `linalg` (cholesky-based and
triangular solvers, LU), `stats` (probability distributions), `sparse.linalg` (Krylov
solvers), `optimize` (minimize), `integrate`, `interpolate`, `ndimage`, `fft` (DCT) and
`cluster.vq`, and `signal`'s convolutions and `detrend`."""
from . import (special, linalg, stats, sparse, optimize, integrate, ndimage,  # noqa: F401
               cluster, interpolate, fft, signal)
