"""Summary statistics of `astjax.scipy.stats` that are not distributions: `sem`,
`mode`, `rankdata`."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ... import numpy as jnp
from ...batching_api import vmap
from ...numpy.arraylike import check_arraylike as _check_arraylike
from ...numpy.ufuncs import promote_args_inexact as _promote_args_inexact
from ...numpy.util import library_jit as _library_jit


@_library_jit(static_argnames=("axis", "nan_policy", "keepdims"))  # compiled, as JAX's
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean: std(a, ddof) / sqrt(n) along `axis`
    (`axis=None`: over every element); `keepdims` keeps the reduced axes with size 1.
    `nan_policy` 'propagate' or 'omit' (NaNs left out of the count and the std)."""
    _check_arraylike("sem", a)
    [b] = _promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        n = b.size if axis is None else b.shape[axis]
        return jnp.std(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(n).astype(b.dtype)
    if nan_policy == "omit":
        n = jnp.sum(~jnp.isnan(b), axis, keepdims=keepdims)
        return (jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
                / jnp.sqrt(n).astype(b.dtype))
    raise ValueError(f"{nan_policy} is not supported (nan_policy: 'propagate' or 'omit')")


class ModeResult(NamedTuple):
    """`mode`'s result: the modal values and how often each occurs."""
    mode: Any
    count: Any


def _nan_policy(name, nan_policy):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy != "propagate":   # JAX's: data-dependent NaN handling does not compile
        raise NotImplementedError(f"{name}: nan_policy={nan_policy!r} is not supported "
                                  "(JAX supports 'propagate' only); check for NaNs before "
                                  "the call")


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most common value along `axis` (None: of the flattened array) and its
    count; of several equally common values, the smallest."""
    _nan_policy("mode", nan_policy)
    x = jnp.atleast_1d(jnp.asarray(a))
    if axis is None:
        out_shape = (1,) * x.ndim if keepdims else ()
        x, axis = x.ravel(), 0
    else:
        axis = axis % x.ndim
        out_shape = tuple(1 if i == axis else n for i, n in enumerate(x.shape)
                          if keepdims or i != axis)
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    if x.shape[0] == 0:
        empty = jnp.full((x.shape[1],), np.nan, jnp.result_type(float))
        return ModeResult(empty.reshape(out_shape), jnp.zeros_like(empty).reshape(out_shape))

    def column(v):
        vals, counts = jnp.unique(v, return_counts=True, size=v.size)
        return vals[jnp.argmax(counts)], counts.max()
    vals, counts = vmap(column, in_axes=1)(x)
    return ModeResult(vals.reshape(out_shape), counts.reshape(out_shape))


_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks of the data, from 1 (`axis=None`: of the flattened array); ties get
    the `method`'s rank: 'average', 'min', 'max', 'dense' (consecutive ranks of the
    distinct values) or 'ordinal' (order of appearance). Any NaN makes every rank
    NaN. Ranks are of the default float type."""
    _nan_policy("rankdata", nan_policy)
    if method not in _RANK_METHODS:
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(lambda v: rankdata(v, method), axis, jnp.asarray(a))
    a = jnp.ravel(jnp.asarray(a))
    ftype = jnp.result_type(float)
    order = jnp.argsort(a, stable=True)
    srt = a[order]
    where = jnp.zeros(a.size, order.dtype).at[order].set(jnp.arange(a.size, dtype=order.dtype))
    if method == "ordinal":
        ranks = (where + 1).astype(ftype)
    else:
        first = jnp.concatenate([jnp.ones(min(a.size, 1), bool), srt[1:] != srt[:-1]])
        dense = jnp.cumsum(first)[where]
        # starts[k]: the sorted position where the k-th distinct value begins (then n)
        starts = jnp.nonzero(first, size=a.size + 1, fill_value=a.size)[0].astype(ftype)
        ranks = {"dense": lambda: dense.astype(ftype), "max": lambda: starts[dense],
                 "min": lambda: starts[dense - 1] + 1,
                 "average": lambda: 0.5 * (starts[dense] + starts[dense - 1] + 1)}[method]()
    return jnp.where(jnp.any(jnp.isnan(a)), jnp.full_like(ranks, np.nan), ranks)
