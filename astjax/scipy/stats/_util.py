"""Shared by the `astjax.scipy.stats` distributions: argument promotion to one
inexact dtype and shape, as SciPy's (and JAX's) `stats` functions promote."""
from __future__ import annotations

import numpy as np

from ... import core, dtypes as _dtypes, lax, numpy as jnp
from ...numpy.operands import promote_dtypes_inexact as _promote_dtypes_inexact
from ...numpy.operands import promote_shapes as _promote_shapes


def promote(*args, consts=(0,)):
    """The arguments as arrays of one inexact dtype and one rank (JAX's rank
    promotion: a 0-d argument stays 0-d), the dtype and weak type of JAX's
    `promote_args_inexact` (integers up to 32 bits and bools become float32, 64-bit
    integers float64; weak when the promoted type is, as an int32 scalar with a Python
    float), kept weak only where the arguments at `consts` (`()` for a function with no
    such constants) are 0-d: JAX's distributions compute with `lax._const(arg, c)`
    constants of those arguments, strong for an argument of rank >= 1, which make the
    result strong.
    `consts=None`: always strong (a function whose JAX result is, as `norm.cdf`)."""
    _, weak = _dtypes.result_type(*args, return_weak_type_flag=True)
    weak = weak and consts is not None and all(np.ndim(args[i]) == 0 for i in consts)
    # (one rank, not one shape, as JAX's `promote_shapes`: a 0-d argument stays 0-d, so
    # `_lax_const` of it is weak as JAX's; lax's operations broadcast the rest)
    return [lax.convert_element_type(a, core.get_aval(a).dtype, weak_type=weak)
            for a in _promote_shapes(*_promote_dtypes_inexact(*args), ranks_only=True)]


def standardize(x, loc, scale, consts=(0,)):
    """(z, scale): `(x - loc) / scale` after `promote` (with its `consts`), and the
    promoted scale."""
    x, loc, scale = promote(x, loc, scale, consts=consts)
    return (x - loc) / scale, scale


def clamp(lo, v, hi):
    """`v` clamped into [lo, hi] by `lax.clamp` (bounds of v's dtype), as JAX's cdfs:
    outside the bounds no gradient flows, where `jnp.clip`'s would be 0 times the
    function's derivative at the bound (NaN where that is infinite)."""
    return lax.clamp(jnp.asarray(lo, v.dtype), v, jnp.asarray(hi, v.dtype))
