"""`astjax.scipy`: `special` (special functions), `linalg` (cholesky-based and
triangular solvers, LU), `stats` (probability distributions), `sparse.linalg` (Krylov
solvers), `optimize` (minimize), `integrate`, `interpolate`, `ndimage`, `fft` (DCT) and
`cluster.vq`, `signal` (convolutions, `detrend`, stft/istft/welch/csd) and
`spatial.transform` (`Rotation`, `Slerp`)."""
from . import (special, linalg, stats, sparse, optimize, integrate, ndimage,  # noqa: F401
               cluster, interpolate, fft, signal, spatial)
