"""`jax.dtypes` as JAX 0.10.2 shows it: astjax's dtype functions, with `bfloat16` the
ml_dtypes scalar *type* (callable, usable in `isinstance`), as JAX's is. astjax's own
`astjax.dtypes.bfloat16` is the NumPy dtype its rules compare and key tables by;
equinox's deserialisation asks `isinstance(x, jax.dtypes.bfloat16)` and its tests make
`jax.dtypes.bfloat16(1)`."""
from __future__ import annotations

import ml_dtypes as _ml_dtypes

from astjax.dtypes import (TypePromotionError, canonicalize_dtype,  # noqa: F401
                           extended, finfo, float0, iinfo, issubdtype, itemsize_bits,
                           prng_key, result_type, scalar_type_of)

bfloat16 = _ml_dtypes.bfloat16

__all__ = ["TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo",
           "float0", "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type",
           "scalar_type_of"]
