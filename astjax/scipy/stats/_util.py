"""Shared by the `astjax.scipy.stats` distributions: argument promotion to one
inexact dtype and shape, as SciPy's (and JAX's) `stats` functions promote."""
from __future__ import annotations

from ... import numpy as jnp


def promote(*args):
    """The arguments as arrays of one inexact dtype, broadcast to one shape (integer
    and bool inputs become the default float type; Python scalars stay weak)."""
    dt = jnp.result_type(*args)
    if not jnp.issubdtype(dt, jnp.inexact):
        dt = jnp.result_type(float)
    return jnp.broadcast_arrays(*(jnp.asarray(a, dt) for a in args))


def standardize(x, loc, scale):
    """(z, scale): `(x - loc) / scale` after `promote`, and the promoted scale."""
    x, loc, scale = promote(x, loc, scale)
    return (x - loc) / scale, scale
