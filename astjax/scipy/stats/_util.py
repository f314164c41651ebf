"""Shared by the `astjax.scipy.stats` distributions: argument promotion to one
inexact dtype and shape, as SciPy's (and JAX's) `stats` functions promote."""
from __future__ import annotations

from ... import numpy as jnp
from ...numpy.operands import promote_dtypes_inexact as _promote_dtypes_inexact


def promote(*args):
    """The arguments as arrays of one inexact dtype, broadcast to one shape: the dtype
    of JAX's `promote_args_inexact` (integers up to 32 bits and bools become float32,
    64-bit integers float64), weakly typed only when every argument is a Python scalar
    (JAX's distributions give a strong result for an array argument, mostly)."""
    out = _promote_dtypes_inexact(*args)
    if not all(isinstance(a, (bool, int, float, complex)) for a in args):
        out = [jnp.asarray(a, a.dtype) for a in out]   # (strong)
    return jnp.broadcast_arrays(*out)


def standardize(x, loc, scale):
    """(z, scale): `(x - loc) / scale` after `promote`, and the promoted scale."""
    x, loc, scale = promote(x, loc, scale)
    return (x - loc) / scale, scale
