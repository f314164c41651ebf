"""`astjax.numpy`: the NumPy API on astjax arrays, staged or eager, as `jax.numpy`.

A JAX name not implemented yet raises `MissingNameError` (a NotImplementedError and an
AttributeError; see docs/api.md); a name JAX lacks too, an AttributeError as JAX's."""
from __future__ import annotations

import numpy as _np

from ..errors import ArgumentError, MissingNameError as _MissingNameError  # noqa: F401
from ..errors import JAXAttributeError as _JAXAttributeError
from ..dtypes import finfo, iinfo, issubdtype, result_type  # noqa: F401
from .scalar_types import (bfloat16, bool_, complex64, complex128, float16, float32,  # noqa: F401
                           float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from .scalar_types import (float4_e2m1fn, float8_e3m4, float8_e4m3,  # noqa: F401
                           float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
                           float8_e5m2fnuz, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn,
                           int1, int2, int4, uint1, uint2, uint4)
from .contractions import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .indexing import _getitem, _IndexUpdateHelper, take, take_along_axis  # noqa: F401
from .reductions import *  # noqa: F401,F403
from .shapes import *  # noqa: F401,F403
from .splitting import *  # noqa: F401,F403
from .repeats import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .ufuncs import *  # noqa: F401,F403
from .ufuncs import _is_operand  # noqa: F401
from .logic import *  # noqa: F401,F403
from .windows import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .quantiles import *  # noqa: F401,F403
from .searching import *  # noqa: F401,F403
from .arrayops import *  # noqa: F401,F403
from .arrayops import take_static as _take_static  # noqa: F401
from .index_tricks import *  # noqa: F401,F403
from .polynomial import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .array_api import (__array_api_version__, __array_namespace_info__,  # noqa: F401
                        from_dlpack)
from .misc import *  # noqa: F401,F403
from .ufunc_api import *  # noqa: F401,F403  (jnp.add & co. become ufunc objects)
from . import linalg  # noqa: F401,E402
from . import fft  # noqa: F401,E402

from .contractions import dot, matmul  # noqa: F401  (explicit for readers)
from .operands import array as array, asarray as asarray  # noqa: F401  (typed re-export)
from .reductions import all, any, max, min, sum  # noqa: F401,A004
from .ufuncs import abs, divmod, pow, round  # noqa: F401,A004

ndarray = None  # set below to astjax.Array
float_ = float64
int_ = int64
uint = uint64
complex_ = complex128
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None
euler_gamma = _np.euler_gamma
integer, floating, number, inexact, complexfloating = (_np.integer, _np.floating, _np.number,
                                                       _np.inexact, _np.complexfloating)
signedinteger, unsignedinteger, generic = _np.signedinteger, _np.unsignedinteger, _np.generic
dtype = _np.dtype   # (JAX re-exports NumPy's class: `isinstance(d, jnp.dtype)`, `jnp.dtype | np.dtype`)


# The one spot where the numpy layer installs the Tracer/Array operators, methods and
# NumPy-protocol dispatch (see array_methods.py).
from . import array_methods as _array_methods  # noqa: E402
import sys as _sys  # noqa: E402
_array_methods.install(_sys.modules[__name__])

# JAX's check that operands are arrays, not lists or tuples, on the public namespaces
# (astjax's own modules call the unchecked functions; see arraylike.py).
from .arraylike import guard as _guard  # noqa: E402
_guard(_sys.modules[__name__])
_guard(linalg, "linalg.")
_guard(fft, "fft.")


# JAX 0.10.2's jax.numpy names that astjax does not have yet (docs/jax_names.json; a
# test keeps the two in step): asking for one is a MissingNameError, a NotImplementedError
# that is also an AttributeError. Any other unknown name JAX lacks too: an AttributeError,
# as JAX's, with the replacement of a name JAX removed.
_NOT_YET: frozenset = frozenset()
_REMOVED = {"fix": "trunc"}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _NOT_YET:
        raise _MissingNameError(f"astjax.numpy.{name} is not implemented",
                               hint="docs/api.md lists the implemented jnp functions")
    gone = _REMOVED.get(name)
    raise _JAXAttributeError(
        f"module 'astjax.numpy' has no attribute '{name}'"
        + (" (JAX removed it)" if gone else " (nor has jax.numpy)"),
        hint=f"use jnp.{gone}" if gone else "docs/api.md lists the jnp functions")
