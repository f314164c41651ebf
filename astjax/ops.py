"""`astjax.ops` (JAX's `jax.ops`): segment reductions -- `segment_sum`,
`segment_prod`, `segment_max`, `segment_min` -- which combine the rows of `data` that
share a segment id, as scatters into an array of `num_segments` rows.

Rows whose id is negative or `>= num_segments` are dropped (JAX's default
`FILL_OR_DROP` mode); a segment no row falls into holds the reduction's identity (0,
1, the dtype's lowest value or -inf, its highest or +inf). With `bucket_size`, the
rows are reduced in buckets of that many and the buckets' results reduced again
(more accurate sums and products of many rows)."""
from __future__ import annotations

import numpy as np

from . import core
from . import numpy as jnp
from .errors import ConcretizationError, caller_location

__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]


def _identity(kind, dtype):
    if kind == "add":
        return 0
    if kind == "mul":
        return 1
    big = kind == "min"
    if dtype == np.bool_:
        return big
    if jnp.issubdtype(dtype, jnp.inexact):
        return np.inf if big else -np.inf
    info = jnp.iinfo(dtype)
    return info.max if big else info.min


def _segments(name, kind, data, segment_ids, num_segments, indices_are_sorted,
              unique_indices, bucket_size, mode):
    data, ids = jnp.asarray(data), jnp.asarray(segment_ids)
    if num_segments is None:
        if isinstance(ids, core.Tracer) and ids.known is None:
            raise ConcretizationError(
                f"{name}: num_segments is needed when the segment ids are staged (their "
                "maximum is not known while staging)", loc=caller_location(),
                hint="pass num_segments=<a static int>")
        num_segments = int(np.max(np.asarray(ids))) + 1 if ids.size else 0
    num_segments = int(num_segments)
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    if mode not in (None, "drop", "fill", "promise_in_bounds", "clip") and \
            getattr(mode, "name", None) not in ("FILL_OR_DROP", "CLIP", "PROMISE_IN_BOUNDS"):
        raise ValueError(f"{name}: unknown mode {mode!r}")
    clip = mode == "clip" or getattr(mode, "name", None) == "CLIP"
    ids = jnp.clip(ids, 0, num_segments - 1) if clip else \
        jnp.where(ids < 0, num_segments, ids)   # negative ids are dropped, not wrapped
    init = _identity(kind, data.dtype)
    if bucket_size is None:
        out = jnp.full((num_segments,) + data.shape[1:], init, data.dtype)
        index = ids
    else:
        buckets = -(-ids.shape[0] // bucket_size)
        out = jnp.full((buckets, num_segments) + data.shape[1:], init, data.dtype)
        index = (jnp.arange(ids.shape[0]) // bucket_size, ids)
    ref = out.at[index]
    out = {"add": ref.add, "mul": ref.multiply, "max": ref.max, "min": ref.min}[kind](
        data, mode="drop", indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices)
    if bucket_size is not None:
        reduce = {"add": jnp.sum, "mul": jnp.prod, "max": jnp.max, "min": jnp.min}[kind]
        out = reduce(out, axis=0).astype(data.dtype)
    return out


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None):
    """`out[k] = sum of data[i] over the rows i with segment_ids[i] == k`, for k in
    `range(num_segments)` (default: the largest id + 1, which must be concrete)."""
    return _segments("segment_sum", "add", data, segment_ids, num_segments,
                     indices_are_sorted, unique_indices, bucket_size, mode)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False, bucket_size=None, mode=None):
    """`out[k] =` the product of the rows of segment k (1 for an empty segment)."""
    return _segments("segment_prod", "mul", data, segment_ids, num_segments,
                     indices_are_sorted, unique_indices, bucket_size, mode)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None):
    """`out[k] =` the elementwise maximum of the rows of segment k (-inf, or the
    dtype's lowest value, for an empty segment)."""
    return _segments("segment_max", "max", data, segment_ids, num_segments,
                     indices_are_sorted, unique_indices, bucket_size, mode)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None):
    """`out[k] =` the elementwise minimum of the rows of segment k (+inf, or the
    dtype's highest value, for an empty segment)."""
    return _segments("segment_min", "min", data, segment_ids, num_segments,
                     indices_are_sorted, unique_indices, bucket_size, mode)
