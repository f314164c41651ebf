"""`jax.lax`'s array conveniences that are compositions of other primitives: `collapse`,
`broadcast_to_rank`, `broadcast_like`, `index_take`, `batch_matmul`, `empty`, `stage`,
`shape_as_value`, `dtype`, `platform_dependent`, `scatter_apply` (its function applied
to each element as a scalar), and the type names `lax` exports for
annotations (`PrecisionLike`, `DotDimensionNumbers`, `ConvGeneralDilatedDimensionNumbers`).

Each function has JAX's signature, result and error class; being compositions, their
derivatives, batching rules and lowerings are those of the primitives they use.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import core, dtypes
from .api import device_put, typeof
from .batching_api import vmap
from .sharding_impls import get_abstract_mesh
from .codegen import runtime
from .codegen.stablehlo import platform_name
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError
from .primitives import ops as lax
from .primitives.cond import _switch
from .primitives.convolution import ConvDimensionNumbers
from .primitives.exported_call import (NoPlatformBranchError, platform_index_of,
                                       platform_index_p)
from .primitives.gather import GatherDimensionNumbers
from .primitives.reductions import Precision
from .primitives.spmd import reshard
from .precision_config import DotAlgorithm, DotAlgorithmPreset

__all__ = ["collapse", "broadcast_to_rank",
           "broadcast_like", "index_take", "batch_matmul",
           "empty", "full", "full_like", "stage", "shape_as_value", "dtype", "platform_dependent",
           "scatter_apply",
           "PrecisionLike",
           "DotDimensionNumbers", "ConvGeneralDilatedDimensionNumbers"]

#: what `precision=` accepts: None, a `Precision` (or its name), one per operand, or a
#: dot algorithm (a `DotAlgorithm`, a `DotAlgorithmPreset` or its name)
PrecisionLike = Union[None, str, Precision, Tuple[str, str], Tuple[Precision, Precision],
                      DotAlgorithm, DotAlgorithmPreset]
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


def empty(shape, dtype, *, out_sharding=None):
    """`lax.empty`: an array of `shape` and `dtype` whose values are unspecified (on
    CPU, as in JAX: zeros)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return lax.full(tuple(operator.index(d) for d in dims), 0, dtypes.canonicalize(
        np.dtype(dtype)))


def _placed(out, sharding):
    """An eager result put on `sharding`; inside a staged function the result is left
    as it is (JAX: "sharding will currently be ignored in jitted mode")."""
    if sharding is None or isinstance(out, core.Tracer):
        return out
    return device_put(out, sharding)


def full(shape, fill_value, dtype=None, *, sharding=None):
    """`lax.full`: an array of `shape` filled with the scalar `fill_value` (as `dtype`),
    put on `sharding` when given and not inside a staged function."""
    if _aval(_array(fill_value)).shape:
        raise ArgumentTypeError(f"full must be called with scalar fill_value, got "
                                f"fill_value.shape {_aval(_array(fill_value)).shape}.",
                                hint="pass a scalar, or use jnp.full to broadcast an array")
    return _placed(lax.full(shape, fill_value, dtype), sharding)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """`lax.full_like`: `full` with x's shape and dtype by default (weak when x is and
    no dtype is given); the result is put on `sharding`, or by default where a committed,
    strongly typed `x` of that shape lives, as JAX's (not inside a staged function)."""
    if sharding is None and shape is None and isinstance(x, core.Tracer) \
            and not get_abstract_mesh().empty and _aval(x).ndim:
        own = typeof(x).sharding    # inside jit: typed as x is on Explicit axes
        if own is not None and any(p is not None for p in own.spec):
            return reshard(lax.full_like(x, fill_value, dtype), own.spec)
    out = lax.full_like(x, fill_value, dtype, shape)
    return _placed(out, sharding) if sharding is not None else placed_like(out, x)


def placed_like(out, x):
    """An eager `out` made like `x` (`full_like`, `jnp.zeros_like`, ...) put where a
    committed, strongly typed `x` lives when `out` has its shape or `x` is replicated,
    as JAX's `full_like` places it by default."""
    own = None if isinstance(x, core.Tracer) else getattr(x, "sharding", None)
    if (own is not None and len(own.device_set) > 1 and not _aval(out).weak_type
            and (_aval(out).shape == _aval(x).shape or own.is_fully_replicated)):
        return _placed(out, own)
    return out


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
    computation is lowered for ('cpu', 'cuda', 'rocm', 'tpu', or any other name, as JAX
    compares them: verbatim), else `default(*args)`.
    Inside a staged function every branch is staged, in a `switch` on the
    `platform_index` primitive, which lowers to the index for the lowering platform (one
    constant per platform of a multi-platform export, as in JAX); run eagerly, the
    default device's branch is called."""
    branches, platforms = [], []
    for name, branch in per_platform.items():
        if not callable(branch):
            raise ArgumentTypeError(f"lax.platform_dependent: the '{name}' branch must be a "
                                    "callable.")
        if name == "gpu":
            raise ArgumentValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        if branch in branches:       # (one branch for the platforms that share it)
            i = branches.index(branch)
            platforms[i] = (*platforms[i], name)
        else:
            branches.append(branch)
            platforms.append((name,))
    if default is not None:
        if not callable(default):
            raise ArgumentTypeError("lax.platform_dependent: the 'default' branch must be a "
                                    "callable.")
        branches.append(default)
        platforms.append(None)
    if core.current_builder() is not None:     # (JAX's cond: no clamp, branches_platforms)
        index = platform_index_p.bind(platforms=tuple(platforms))
        return _switch(index, branches, args, range(len(branches)),
                       branches_platforms=tuple(platforms))
    index, missing = platform_index_of(platform_name(runtime.default_device()),
                                       tuple(platforms))
    if missing:
        raise NoPlatformBranchError(missing)
    return branches[index](*args)


def _each_element(func, dtype, what):
    """`func` mapped over the elements of its argument, each seen as a scalar (XLA's
    scatter region, which JAX stages `func` as), its results checked to be one `dtype`
    scalar each; `what` names the caller in the error."""
    def each(y):
        shape = core.get_aval(y).shape
        out = vmap(func)(lax.reshape(y, (math.prod(shape),)))
        oa = core.get_aval(out)
        if oa.dtype != dtype or oa.ndim != 1:
            raise ArgumentValueError(
                f"{what}: func must return one {dtype} element per element (the scatter "
                f"region's type), got {oa.dtype}{list(oa.shape[1:])}",
                hint=f"convert func's result with .astype({dtype.name})")
        return lax.reshape(out, shape)
    return each


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """`lax.scatter_apply`: `func` applied to each scattered element, as a scalar, once
    per time an index names it (XLA's scatter with `func` as its region, as JAX's: an
    element named k times is func(...func(x)...), k deep). `update_shape`: the updates'
    shape (scatter dims, then the window dims), as JAX's."""
    dtype = core.get_aval(operand).dtype
    return lax.scatter_apply(operand, scatter_indices,
                             _each_element(func, dtype, "lax.scatter_apply"),
                             dimension_numbers, update_shape=update_shape,
                             indices_are_sorted=indices_are_sorted,
                             unique_indices=unique_indices, mode=mode)
