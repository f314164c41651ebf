"""`jax.lax`'s array conveniences that are compositions of other primitives (`split`,
`stack`/`unstack` and `tile` are primitives: primitives/restructure.py): `collapse`, `broadcast_to_rank`, `broadcast_like`,
`index_take`, `batch_matmul`, `approx_max_k`/`approx_min_k`, `empty`,
`stage`, `shape_as_value`, `dtype`, `platform_dependent`, and the type names `lax` exports for annotations
(`PrecisionLike`, `DotDimensionNumbers`, `ConvGeneralDilatedDimensionNumbers`).

Each function has JAX's signature, result and error class; being compositions, their
derivatives, batching rules and lowerings are those of the primitives they use.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import core, dtypes
from .codegen import runtime
from .errors import (ArgumentTypeError, ArgumentValueError, DTypeError,
                     NotImplementedInAstjaxError, ShapeError)
from .primitives import ops as lax
from .primitives.convolution import ConvDimensionNumbers
from .primitives.gather import GatherDimensionNumbers
from .primitives.reductions import Precision
from .primitives.restructure import checked_axis

__all__ = ["collapse", "broadcast_to_rank",
           "broadcast_like", "index_take", "batch_matmul", "approx_max_k",
           "approx_min_k", "empty", "stage", "shape_as_value", "dtype", "platform_dependent",
           "PrecisionLike",
           "DotDimensionNumbers", "ConvGeneralDilatedDimensionNumbers"]

#: what `precision=` accepts: None, a `Precision` (or its name), or one per operand
PrecisionLike = Union[None, str, Precision, Tuple[str, str], Tuple[Precision, Precision]]
#: `dot_general`'s ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))
DotDimensionNumbers = Tuple[Tuple[Sequence[int], Sequence[int]],
                            Tuple[Sequence[int], Sequence[int]]]
#: `conv_general_dilated`'s layouts: None, three layout strings, or index tuples
ConvGeneralDilatedDimensionNumbers = Optional[Union[Tuple[str, str, str],
                                                    ConvDimensionNumbers]]


def _array(x):
    """`x` as an operand with an abstract value (lists/tuples as arrays)."""
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtypes.canonicalize(np.asarray(x).dtype))
    return x


def _aval(x):
    return core.get_aval(x)


def _is_array(x):
    """A staged value or a device array (not a Python or NumPy constant)."""
    return isinstance(x, core.Tracer) or (hasattr(x, "aval") and not isinstance(x, core.WeakConst))


def collapse(operand, start_dimension, stop_dimension=None):
    """`lax.collapse`: axes `[start_dimension, stop_dimension)` merged into one
    (row-major); `stop_dimension=None` means through the last axis."""
    shape = _aval(operand).shape
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ArgumentValueError(f"Invalid dimension range passed to collapse: {shape}"
                                 f"[{start_dimension}:{stop_dimension}]")
    return lax.reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def broadcast_to_rank(x, rank):
    """`lax.broadcast_to_rank`: leading axes of size 1 added to give `x` rank `rank`."""
    x = _array(x)
    nd = _aval(x).ndim
    if nd == rank:
        return stage(x)
    return lax.broadcast(x, (1,) * (rank - nd))


def broadcast_like(arr, like_arr):
    """`lax.broadcast_like`: `arr` broadcast (NumPy rules: trailing axes aligned) to
    the shape of `like_arr`."""
    arr = _array(arr)
    shape, target = _aval(arr).shape, _aval(like_arr).shape
    lead = len(target) - len(shape)
    if lead < 0 or any(n not in (1, t) for n, t in zip(shape, target[lead:])):
        raise ArgumentValueError(f"Incompatible shapes for broadcasting: {shape} and "
                                 f"requested shape {target}")
    keep = [i for i, (n, t) in enumerate(zip(shape, target[lead:])) if n == t]
    squeezed = lax.reshape(arr, tuple(shape[i] for i in keep))
    return lax.broadcast_in_dim(squeezed, target, tuple(lead + i for i in keep))


def index_take(src, idxs, axes):
    """`lax.index_take`: `src` indexed by one integer array per axis in `axes` (all of
    one shape `(n,)`), indices taken modulo the axis size; the indexed axes become
    one leading axis of size n."""
    axes = tuple(operator.index(a) for a in axes)
    shape = _aval(src).shape
    idxs = [_array(i) for i in idxs]
    indices = lax.concatenate([lax.expand_dims(i, (1,)) for i in idxs], 1)
    iaval = _aval(indices)
    bound = np.broadcast_to(np.array([shape[a] for a in axes], iaval.dtype), iaval.shape)
    indices = lax.rem(lax.add(lax.rem(indices, bound), bound), bound)  # Python's modulo
    sizes = tuple(1 if d in axes else n for d, n in enumerate(shape))
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, len(shape) - len(axes) + 1)),
                                   collapsed_slice_dims=axes, start_index_map=axes)
    return lax.gather(src, indices, dimension_numbers=dnums, slice_sizes=sizes)


def batch_matmul(lhs, rhs, precision=None):
    """`lax.batch_matmul`: matrix products over the last two axes, every leading axis
    a batch axis (both operands of one rank >= 2)."""
    ln, rn = _aval(lhs).ndim, _aval(rhs).ndim
    if min(ln, rn) < 2:
        raise ArgumentValueError(f"Arguments to batch_matmul must be at least 2D, got {ln}, {rn}")
    if ln != rn:
        raise ArgumentValueError(f"Arguments to batch_matmul must have same ndim, got {ln}, {rn}")
    batch = tuple(range(ln - 2))
    return lax.dot_general(lhs, rhs, (((ln - 1,), (rn - 2,)), (batch, batch)),
                           precision=precision)


def _approx_top_k(operand, k, reduction_dimension, recall_target, is_max_k,
                  reduction_input_size_override, aggregate_to_topk):
    name = "approx_max_k" if is_max_k else "approx_min_k"
    operand = _array(operand)
    aval = _aval(operand)
    k = operator.index(k)
    if k <= 0:
        raise ArgumentValueError(f"k must be positive, got {k}")
    if not aval.shape:
        raise ShapeError(f"approx_top_k operand must have >= 1 dimension, got {aval.shape}")
    dim = checked_axis(reduction_dimension, aval.ndim, name)
    if aval.shape[dim] < k:
        raise ArgumentValueError(f"k must be smaller than the size of reduction_dim "
                                 f"{aval.shape[dim]}, got {k}")
    if not dtypes.issubdtype(aval.dtype, np.floating):
        raise ArgumentValueError("operand must be a floating type")
    if not aggregate_to_topk:
        k = _partial_output_size(aval.shape[dim], aval.ndim, k, recall_target,
                                 reduction_input_size_override)
    # the exact top k (what XLA's CPU fallback of ApproxTopK computes): a stable sort
    # of the values, largest (max) or smallest (min) first
    last = aval.ndim - 1
    x = lax.transpose(operand, [d for d in range(aval.ndim) if d != dim] + [dim]) \
        if dim != last else operand
    if is_max_k:
        vals, idx = lax.top_k(x, k)
    else:
        iota = lax.broadcasted_iota(dtypes.int32, _aval(x).shape, last)
        vals, idx = lax.sort((x, iota), dimension=last, num_keys=1)
        vals, idx = (lax.slice_in_dim(v, 0, k, axis=last) for v in (vals, idx))
    if dim != last:
        back = list(range(last))
        back.insert(dim, last)
        vals, idx = lax.transpose(vals, back), lax.transpose(idx, back)
    return [vals, idx]


def _log2_floor(n):
    return n.bit_length() - 1 if n > 0 else 0


def _log2_ceil(n):
    return (n - 1).bit_length() if n > 0 else 0


def _partial_output_size(size, rank, k, recall_target, size_override):
    """How many entries `approx_max_k(..., aggregate_to_topk=False)` returns: XLA's
    ApproxTopK output size (the accelerator kernel's reduced size: a multiple of the
    TPU tiling, 1024 for rank 1 and 128 otherwise, large enough for the recall
    target); on CPU they are the exact best entries of that count, sorted."""
    tiling = 1024 if rank == 1 else 128
    if size <= tiling:
        return size
    if 0 <= size_override < size:
        raise ArgumentValueError(f"reduction_input_size_override: {size_override} should be "
                                 f"greater equals to operands[reduction_dim]: {size}")
    logical = size_override if size_override >= 0 else size
    if k == 1:
        return tiling
    target = float(np.float32(recall_target))
    if target >= 1.0:
        return size
    # windows needed so that the top k collide with the recall target's probability
    windows = min(max(int((1.0 - k) / math.log(target)), tiling), size)
    steps = _log2_floor(logical // windows)
    if steps == 0:
        return size
    steps = min(steps, _log2_ceil(size // tiling))
    return -(-(-(-size // tiling)) // (1 << steps)) * tiling


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """`lax.approx_max_k`: the `k` largest values along `reduction_dimension` and
    their int32 indices, as a list `[values, indices]`, largest first. On CPU the
    result is exact (ties: lower index first). With `aggregate_to_topk=False` it
    holds as many entries as XLA's accelerator kernel would return before its final
    aggregation (`recall_target` and `reduction_input_size_override` set that count),
    again the exact largest ones, sorted."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, True,
                         reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """`lax.approx_min_k`: the `k` smallest values along `reduction_dimension` and
    their int32 indices, as a list `[values, indices]`, smallest first (exact on CPU,
    ties: lower index first; `aggregate_to_topk=False` as for `approx_max_k`)."""
    return _approx_top_k(operand, k, reduction_dimension, recall_target, False,
                         reduction_input_size_override, aggregate_to_topk)


def empty(shape, dtype, *, out_sharding=None):
    """`lax.empty`: an array of `shape` and `dtype` whose values are unspecified (on
    CPU, as in JAX: zeros)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return lax.full(tuple(operator.index(d) for d in dims), 0, dtypes.canonicalize(
        np.dtype(dtype)))


def stage(x, /):
    """`lax.stage`: the identity, which makes a Python scalar or NumPy array an array
    of the current computation (a staged value under a transformation)."""
    x = _array(x)
    if _is_array(x):
        return x
    aval = _aval(x)
    return lax.convert_element_type(x, aval.dtype, weak_type=aval.weak_type)


def shape_as_value(shape):
    """`lax.shape_as_value`: a (static) shape as a 1-D integer array."""
    dims = tuple(operator.index(d) for d in shape)
    dt = dtypes.canonicalize(np.int64)
    if not dims:
        return lax.full((0,), 0, dt)
    return np.asarray(dims, dt)


def dtype(x: Any) -> np.dtype:
    """`lax.dtype`: the canonical dtype of a value or dtype-like (Python scalars and
    NumPy values take the dtype JAX would give them: 32-bit unless x64 is on)."""
    if x is None:
        raise ArgumentValueError(f"Invalid argument to dtype: {x}.")
    if _is_array(x):
        return np.dtype(x.dtype)
    return dtypes.canonicalize(dtypes.dtype(x))


def platform_dependent(*args, default=None, **per_platform):
    """`lax.platform_dependent`: `per_platform[p]` called on `args` for the platform `p` the
    computation runs on ('cpu', 'cuda', 'rocm', 'tpu'), else `default(*args)`. astjax
    compiles for one platform, the default device's, so only that branch is staged."""
    for name, branch in per_platform.items():
        if not callable(branch):
            raise ArgumentTypeError(f"lax.platform_dependent: the '{name}' branch must be a "
                                    "callable.")
        if name == "gpu":
            raise ArgumentValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    if default is not None and not callable(default):
        raise ArgumentTypeError("lax.platform_dependent: the 'default' branch must be a "
                                "callable.")
    device = runtime.default_device()
    names = [device.platform]
    if device.platform == "gpu":  # jaxlib's name for both; the plugin tells which
        version = str(getattr(device.client, "platform_version", "")).lower()
        names = ["rocm"] if "rocm" in version else ["cuda"]
    for name in names:
        if name in per_platform:
            return per_platform[name](*args)
    if default is not None:
        return default(*args)
    raise NotImplementedInAstjaxError(
        f"lax.platform_dependent has no branch for platform {names[0]} (branches: "
        f"{sorted(per_platform)}) and no default", hint="add a default= branch")
