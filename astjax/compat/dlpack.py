"""`jax.dlpack`: arrays exchanged with other libraries through DLPack --
`from_dlpack` (astjax.numpy's) and `is_supported_dtype`."""
import numpy as _np

from astjax import dtypes as _dtypes
from astjax.numpy import from_dlpack

__all__ = ["from_dlpack", "is_supported_dtype"]

_SUPPORTED = {_np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8",
                                    "uint16", "uint32", "uint64", "float16", "float32",
                                    "float64", "complex64", "complex128")}


def is_supported_dtype(dtype):
    """Whether arrays of `dtype` can be exchanged through DLPack (booleans, integers,
    floats incl. bfloat16, complex)."""
    dt = _np.dtype(dtype)
    return dt in _SUPPORTED or dt == _dtypes.bfloat16
