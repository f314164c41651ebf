"""`astjax.lax`: JAX's lax API, one thin function per primitive plus the usual
conveniences (`lax.dot`, `lax.broadcast`, ...). Python scalars take the dtype of
the other operand, as in JAX; otherwise operands must already agree."""
from __future__ import annotations

import builtins

import numpy as np

from . import core, dtypes
from .core import bind
from .errors import DTypeError
from .primitives import reductions as red
from .primitives import structural as st
from .primitives.reductions import dot_dims
# The elementwise family (astjax/primitives/{comparisons,arithmetic,elementwise}.py: one
# block per primitive, its rules and this wrapper). `not`/`and`/`or`/`xor` are Python
# keywords: their wrappers are `bitwise_not`/`bitwise_and`/`bitwise_or`/`bitwise_xor`.
from .primitives.elementwise import (  # noqa: F401
    RoundingMethod, _match, abs, acos, acosh, add, add_any, asin, asinh, atan, atan2, atanh,
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clz, complex, conj, cos,
    cosh, digamma, div, eq, erf, erf_inv, erfc, exp, exp2, expm1, floor, ge, gt, imag,
    integer_pow, is_finite, le, lgamma, log, log1p, logistic, lt, max, min, mul, ne, neg,
    nextafter, population_count, pow, real, reciprocal, rem, round, rsqrt, shift_left,
    shift_right_arithmetic, shift_right_logical, sign, sin, sinh, sqrt, square, sub, tan,
    tanh)


def _aval(x):
    return core.get_aval(x)


def convert_element_type(x, new_dtype, weak_type=False):
    new_dtype = dtypes.canonicalize(new_dtype)
    a = _aval(x)
    if a.dtype == new_dtype and a.weak_type == weak_type and isinstance(x, core.Tracer):
        return x
    b = core.current_builder()
    if not isinstance(x, core.Tracer) and not hasattr(x, "_buf") and a.ndim == 0 \
            and b is not None:
        # a constant: convert now, as JAX does for Python scalars
        v = np.asarray(np.asarray(x).astype(new_dtype))
        t = b.const_tracer(v)
        if weak_type:
            t.var = core.Literal(v[()], t.aval.update(weak_type=True))
        return t
    return bind(st.convert_element_type_p, x, new_dtype=new_dtype, weak_type=bool(weak_type))


def bitcast_convert_type(x, new_dtype):
    return bind(st.bitcast_convert_type_p, x, new_dtype=np.dtype(new_dtype))


def broadcast_in_dim(x, shape, broadcast_dimensions, out_sharding=None):
    shape = tuple(int(d) for d in shape)
    if _aval(x).shape == shape and tuple(broadcast_dimensions) == tuple(range(len(shape))):
        return x
    return bind(st.broadcast_in_dim_p, x, shape=shape,
                broadcast_dimensions=tuple(int(d) for d in broadcast_dimensions), sharding=None)


def broadcast(x, sizes):
    a = _aval(x)
    n = len(sizes)
    return broadcast_in_dim(x, tuple(sizes) + a.shape, tuple(range(n, n + a.ndim)))


def reshape(x, new_sizes, dimensions=None, out_sharding=None):
    new_sizes = tuple(int(d) for d in new_sizes)
    if _aval(x).shape == new_sizes and dimensions is None:
        return x
    if dimensions is not None:
        x = transpose(x, dimensions)
    return bind(st.reshape_p, x, new_sizes=new_sizes, dimensions=None, sharding=None)


def transpose(x, permutation):
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))):
        return x
    return bind(st.transpose_p, x, permutation=permutation)


def squeeze(x, dimensions):
    nd = _aval(x).ndim
    dims = tuple(sorted(int(d) % nd for d in dimensions))
    if not dims:
        return x
    return bind(st.squeeze_p, x, dimensions=dims)


def expand_dims(x, dimensions):
    return bind(st.expand_dims_p, x, dimensions=tuple(int(d) for d in dimensions))


def rev(x, dimensions):
    return bind(st.rev_p, x, dimensions=tuple(int(d) for d in dimensions))


def concatenate(operands, dimension):
    if len(operands) == 1:
        return operands[0]
    return bind(st.concatenate_p, *operands, dimension=int(dimension))


def pad(x, padding_value, padding_config):
    padding_value = _match(x, padding_value)[1]
    return bind(st.pad_p, x, padding_value,
                padding_config=tuple((int(a), int(b), int(c)) for a, b, c in padding_config))


def slice(x, start_indices, limit_indices, strides=None):  # noqa: A001
    return bind(st.slice_p, x, start_indices=tuple(int(i) for i in start_indices),
                limit_indices=tuple(int(i) for i in limit_indices),
                strides=None if strides is None else tuple(int(s) for s in strides))


def slice_in_dim(x, start_index, limit_index, stride=1, axis=0):
    a = _aval(x)
    starts, limits, strides = [0] * a.ndim, list(a.shape), [1] * a.ndim
    starts[axis] = start_index if start_index is not None else 0
    limits[axis] = limit_index if limit_index is not None else a.shape[axis]
    strides[axis] = stride
    return slice(x, starts, limits, None if stride == 1 else strides)


def index_in_dim(x, index, axis=0, keepdims=True):
    r = slice_in_dim(x, index, index + 1, 1, axis)
    return r if keepdims else squeeze(r, (axis,))


def _index_scalar(i):
    if dtypes.is_weak_scalar(i) or isinstance(i, (np.integer, builtins.int)):
        return np.asarray(i, dtypes.canonicalize(dtypes.int32))[()]
    a = _aval(i)
    if a.dtype != dtypes.int32 and dtypes.is_int(a.dtype) and a.dtype.itemsize < 4:
        return convert_element_type(i, dtypes.int32)
    return i


def dynamic_slice(x, start_indices, slice_sizes):
    idx = [_index_scalar(i) for i in start_indices]
    return bind(st.dynamic_slice_p, x, *idx, slice_sizes=tuple(int(s) for s in slice_sizes))


def dynamic_update_slice(x, update, start_indices):
    idx = [_index_scalar(i) for i in start_indices]
    return bind(st.dynamic_update_slice_p, x, update, *idx)


def dynamic_slice_in_dim(x, start_index, slice_size, axis=0):
    a = _aval(x)
    starts = [0] * a.ndim
    starts[axis] = start_index
    sizes = list(a.shape)
    sizes[axis] = slice_size
    return dynamic_slice(x, starts, sizes)


def dynamic_index_in_dim(x, index, axis=0, keepdims=True):
    r = dynamic_slice_in_dim(x, index, 1, axis)
    return r if keepdims else squeeze(r, (axis,))


def dynamic_update_slice_in_dim(x, update, start_index, axis):
    starts = [0] * _aval(x).ndim
    starts[axis] = start_index
    return dynamic_update_slice(x, update, starts)


def dynamic_update_index_in_dim(x, update, index, axis):
    if _aval(update).ndim == _aval(x).ndim - 1:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(x, update, index, axis)


def select_n(which, *cases):
    return bind(st.select_n_p, which, *cases)


def select(pred, on_true, on_false):
    return bind(st.select_n_p, pred, on_false, on_true)


def clamp(min, x, max):  # noqa: A002
    min, x = _match(min, x)
    max, x = _match(max, x)
    return bind(st.clamp_p, min, x, max)


def iota(dtype, size):
    return bind(st.iota_p, dtype=dtypes.canonicalize(dtype), shape=(int(size),), dimension=0,
                sharding=None)


def broadcasted_iota(dtype, shape, dimension):
    return bind(st.iota_p, dtype=dtypes.canonicalize(dtype), shape=tuple(int(s) for s in shape),
                dimension=int(dimension), sharding=None)


def copy_p(x):
    return bind(st.copy_p, x)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    out_dtype = (dtypes.canonicalize(preferred_element_type) if preferred_element_type is not None
                 else _aval(lhs).dtype)
    params = dict(dimension_numbers=dot_dims((lc, rc), (lb, rb)),
                  preferred_element_type=out_dtype)
    if precision is not None:
        params["precision"] = precision
    return bind(red.dot_general_p, lhs, rhs, **params)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    la, ra = _aval(lhs), _aval(rhs)
    if la.ndim not in (1, 2) or ra.ndim not in (1, 2):
        raise DTypeError(f"lax.dot needs rank-1 or rank-2 operands, got {la.shape}, {ra.shape}")
    return dot_general(lhs, rhs, (((la.ndim - 1,), (0,)), ((), ())), precision,
                       preferred_element_type)


def _reduce(p):
    def f(x, axes):
        return bind(p, x, axes=tuple(int(a) for a in axes), out_sharding=None)
    f.__name__ = p.name
    return f


reduce_sum = _reduce(red.reduce_sum_p)
reduce_prod = _reduce(red.reduce_prod_p)
reduce_max = _reduce(red.reduce_max_p)
reduce_min = _reduce(red.reduce_min_p)
reduce_and = _reduce(red.reduce_and_p)
reduce_or = _reduce(red.reduce_or_p)


def full(shape, fill_value, dtype=None):
    shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    dt = dtypes.canonicalize(dtype) if dtype is not None else dtypes.result_type(fill_value)
    weak = dtype is None and dtypes.is_weak_scalar(fill_value)
    v = convert_element_type(fill_value, dt, weak_type=weak)
    return broadcast(v, shape) if shape else v


def full_like(x, fill_value, dtype=None, shape=None):
    a = _aval(x)
    return full(a.shape if shape is None else shape, fill_value, dtype or a.dtype)


def zeros_like_array(x):
    return full_like(x, 0)


def stop_gradient(x):
    from .transforms.ad import stop_gradient as sg
    return sg(x)


# Control flow (cond, switch, while_loop, fori_loop, scan, map) lives in its own module.
from .core import closure_convert, join_consts  # noqa: E402,F401
from .primitives.cond import cond, stage_sub, switch  # noqa: E402,F401
from .primitives.scan import map, scan  # noqa: E402,F401
from .primitives.while_loop import fori_loop, while_loop  # noqa: E402,F401
from .lax_indexing import *  # noqa: E402,F401,F403
from .lax_parallel import *  # noqa: E402,F401,F403  (psum, pmean, all_gather, axis_index, ...)
