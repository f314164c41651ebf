"""`jax._src.dtypes`: JAX's internal dtype module, as far as libraries use it."""
from __future__ import annotations

import numpy as np

from astjax.dtypes import (ExtendedDType, TypePromotionError, bfloat16, canonicalize_dtype, extended,  # noqa: F401
                           finfo, float0, iinfo, issubdtype, itemsize_bits, prng_key,
                           result_type, scalar_type_of)
from astjax.dtypes import dtype  # noqa: F401

DType = np.dtype


def supports_inf(dt) -> bool:
    """Can `dt` represent infinity? (False for integers and finite-only float8 types.)"""
    dt = np.dtype(dt)
    if not issubdtype(dt, np.inexact):
        return False
    try:
        return bool(np.isinf(np.array(np.inf, dt)))
    except (OverflowError, ValueError):
        return False
