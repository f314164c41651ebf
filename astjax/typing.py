"""`jax.typing`: annotations for functions that take arrays.

- `ArrayLike`: what an array argument accepts -- an `astjax.Array` (or a staged
  value), a NumPy array or scalar, or a Python bool/int/float/complex.
- `DTypeLike`: what a `dtype=` argument accepts -- a dtype name, a NumPy dtype or
  scalar type, or a Python type.
"""
from __future__ import annotations

from typing import Any, Union

import numpy as np

from .codegen.runtime import Array
from .core import Tracer

__all__ = ["ArrayLike", "DTypeLike", "DType", "Shape"]

ArrayLike = Union[Array, Tracer, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type[Any], np.dtype]
DType = np.dtype
Shape = tuple[int, ...]
