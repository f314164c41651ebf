"""`jnp.float32` and friends: dtypes that can also be called, as in JAX
(`jnp.float32(3.0)` is an array of that dtype). NumPy accepts them wherever a
dtype goes, through their `dtype` attribute."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .. import dtypes
from .operands import asarray


class ScalarType:
    """A scalar type such as `jnp.float32`: a dtype that can be called.

    Shared by every scalar type object (`jnp.bool_`, `jnp.int32`, `jnp.float32`,
    `jnp.bfloat16`, the float8/int4 types, ...); `.dtype` is its NumPy dtype.

    Calling it, `jnp.float32(x)`, converts `x` to an array of that dtype.
    Args:
      x: a Python scalar, sequence or array.
    Returns:
      An astjax Array of this dtype (0-d for scalars).
    Differs from NumPy: the result is a JAX-style Array, not a NumPy scalar, and
    64-bit types follow JAX's x64 setting.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.float32(3)
      Array(3., dtype=float32)
      >>> jnp.int8([1, 2])
      Array([1, 2], dtype=int8)
    """
    __slots__ = ("dtype", "__name__")

    def __init__(self, dt):
        self.dtype = np.dtype(dt)
        self.__name__ = self.dtype.name

    def __call__(self, x):
        """Convert `x` to an array of this scalar type's dtype."""
        return asarray(x, dtype=self.dtype)

    def __eq__(self, other):
        try:
            return self.dtype == np.dtype(other)
        except (TypeError, ValueError):  # not a dtype-like (`"text: a, b"` is a bad one)
            return NotImplemented

    def __hash__(self):   # as JAX's: equal to NumPy's scalar type's (`np.int32 in {jnp.int32}`)
        return hash(self.dtype.type)

    def __repr__(self):
        return f"<class 'astjax.numpy.{self.__name__}'>"


bool_ = ScalarType(dtypes.bool_)
int8, int16, int32, int64 = (ScalarType(d) for d in (dtypes.int8, dtypes.int16, dtypes.int32,
                                                      dtypes.int64))
uint8, uint16, uint32, uint64 = (ScalarType(d) for d in (dtypes.uint8, dtypes.uint16,
                                                          dtypes.uint32, dtypes.uint64))
bfloat16, float16, float32, float64 = (ScalarType(d) for d in (
    dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64))
complex64, complex128 = ScalarType(dtypes.complex64), ScalarType(dtypes.complex128)

# ml_dtypes' narrow types: usable as dtypes and scalar constructors; arrays of them
# compute where XLA's CPU backend does. Where jaxlib cannot (float6_* buffers, int1/uint1
# programs), its JaxRuntimeError is raised, as under JAX.
(float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
 float8_e5m2fnuz, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, int1, int2,
 int4, uint1, uint2, uint4) = (
    ScalarType(getattr(ml_dtypes, n)) for n in (
        "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
        "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
        "float4_e2m1fn", "int1", "int2", "int4", "uint1", "uint2", "uint4"))

