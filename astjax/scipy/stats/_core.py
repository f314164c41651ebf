"""Summary statistics of `astjax.scipy.stats` that are not distributions."""
from __future__ import annotations

from ... import numpy as jnp


def sem(a, axis=0, ddof=1, nan_policy="propagate"):
    """The standard error of the mean: std(a, ddof) / sqrt(n) along `axis`
    (`axis=None` flattens). `nan_policy` 'propagate' or 'omit'."""
    if nan_policy not in ("propagate", "omit"):
        raise ValueError(f"nan_policy must be 'propagate' or 'omit', got {nan_policy!r}")
    a = jnp.asarray(a)
    if axis is None:
        a, axis = a.ravel(), 0
    if nan_policy == "omit":
        n = jnp.sum(~jnp.isnan(a), axis=axis)
        return jnp.nanstd(a, axis=axis, ddof=ddof) / jnp.sqrt(n)
    return jnp.std(a, axis=axis, ddof=ddof) / jnp.sqrt(a.shape[axis])
