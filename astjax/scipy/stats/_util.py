"""Shared by the `astjax.scipy.stats` distributions: argument promotion to one
inexact dtype and shape, as SciPy's (and JAX's) `stats` functions promote."""
from __future__ import annotations

from ... import lax, numpy as jnp
from ...numpy.operands import promote_dtypes_inexact as _promote_dtypes_inexact


def promote(*args):
    """The arguments as arrays of one inexact dtype, broadcast to one shape: the dtype
    and weak type of JAX's `promote_args_inexact` (integers up to 32 bits and bools
    become float32, 64-bit integers float64), weakly typed only when every argument is:
    Python scalars, or weak values under `jit` (an integer array with a Python float
    is strong, as JAX's distributions give)."""
    out = _promote_dtypes_inexact(*args)
    if not all(isinstance(a, (bool, int, float, complex)) or getattr(a, "weak_type", False)
               for a in args):
        out = [jnp.asarray(a, a.dtype) for a in out]   # (strong)
    return jnp.broadcast_arrays(*out)


def standardize(x, loc, scale):
    """(z, scale): `(x - loc) / scale` after `promote`, and the promoted scale."""
    x, loc, scale = promote(x, loc, scale)
    return (x - loc) / scale, scale


def clamp(lo, v, hi):
    """`v` clamped into [lo, hi] by `lax.clamp` (bounds of v's dtype), as JAX's cdfs:
    outside the bounds no gradient flows, where `jnp.clip`'s would be 0 times the
    function's derivative at the bound (NaN where that is infinite)."""
    return lax.clamp(jnp.asarray(lo, v.dtype), v, jnp.asarray(hi, v.dtype))
