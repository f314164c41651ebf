"""`jax._src.dtypes`: JAX's internal dtype module, as far as libraries use it."""
from __future__ import annotations

import numpy as np

from astjax.dtypes import (TypePromotionError, bfloat16, canonicalize_dtype, extended,  # noqa: F401
                           finfo, float0, iinfo, issubdtype, itemsize_bits, prng_key,
                           result_type, scalar_type_of)
from astjax.dtypes import dtype  # noqa: F401

DType = np.dtype


class ExtendedDType:
    """Base of user-defined extended dtypes (a `type` that is a subclass of
    `extended`, a `name`); astjax computes with none yet, libraries may declare them."""
    type: type
    name: str

    def __repr__(self):
        return getattr(self, "name", type(self).__name__)


def supports_inf(dt) -> bool:
    """Can `dt` represent infinity? (False for integers and finite-only float8 types.)"""
    dt = np.dtype(dt)
    if not issubdtype(dt, np.inexact):
        return False
    try:
        return bool(np.isinf(np.array(np.inf, dt)))
    except (OverflowError, ValueError):
        return False
