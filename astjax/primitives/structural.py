"""Shape, layout and type primitives: convert_element_type, broadcast_in_dim, reshape,
transpose, squeeze, expand_dims, rev, concatenate, pad, slice, dynamic_slice,
dynamic_update_slice, select_n, clamp, iota, copy, bitcast_convert_type."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, ShapeError
from .base import normalize_axes, register

# ---- convert_element_type ---------------------------------------------------------
convert_element_type_p = core.new_primitive("convert_element_type")


def _convert_impl(x, *, new_dtype, weak_type=False, sharding=None):
    x = np.asarray(x)
    if np.issubdtype(x.dtype, np.complexfloating) and not dtypes.issubdtype(new_dtype, np.complexfloating):
        x = x.real
    if dtypes.is_inexact(x.dtype) and dtypes.is_int(new_dtype):
        # XLA saturates: NaN -> 0, out-of-range -> the nearest bound (in float64, where
        # the bounds are exact or round up to 2**63 / 2**64)
        info = dtypes.iinfo(new_dtype)
        xf = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0, posinf=np.inf, neginf=-np.inf)
        hi, lo = xf >= float(info.max), xf <= float(info.min)
        out = np.where(hi | lo, 0, xf).astype(new_dtype)
        out[hi] = info.max
        out[lo] = info.min
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(new_dtype)


def _convert_lowering(ctx, x, *, new_dtype, weak_type=False, sharding=None):
    a_in, a_out = ctx.avals_in[0], ctx.avals_out[0]
    if a_in.dtype == a_out.dtype:
        return x
    if np.issubdtype(a_in.dtype, np.complexfloating) and not np.issubdtype(a_out.dtype, np.complexfloating):
        a_in = a_in.update(dtype=dtypes.float64 if a_in.dtype == dtypes.complex128 else dtypes.float32)
        x = ctx.op1("stablehlo.real", [x], a_in)
        if a_in.dtype == a_out.dtype:
            return x
    if a_out.dtype == dtypes.bool_ and a_in.dtype != dtypes.bool_:
        zero = ctx.broadcast(ctx.constant(0, a_in.update(shape=())), a_in.update(shape=()), a_in)
        return ctx.op1("stablehlo.compare", [x, zero], attrs={
            "comparison_direction": "#stablehlo<comparison_direction NE>"})
    return ctx.op1("stablehlo.convert", [x])


register(convert_element_type_p,
         impl=_convert_impl,
         abstract_eval=lambda x, *, new_dtype, weak_type=False, sharding=None:
             ShapedArray(x.shape, new_dtype, weak_type),
         lowering=_convert_lowering)

# ---- broadcast_in_dim -------------------------------------------------------------
broadcast_in_dim_p = core.new_primitive("broadcast_in_dim")


def _bid_shape(x, shape, broadcast_dimensions):
    if len(broadcast_dimensions) != x.ndim or any(
            not 0 <= d < len(shape) for d in broadcast_dimensions) or any(
            x.shape[i] not in (1, shape[d]) for i, d in enumerate(broadcast_dimensions)) or \
            list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise ShapeError(f"cannot broadcast shape {x.shape} to {tuple(shape)} with "
                         f"broadcast_dimensions={tuple(broadcast_dimensions)}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _bid_impl(x, *, shape, broadcast_dimensions, sharding=None):
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape).copy()


register(broadcast_in_dim_p,
         impl=_bid_impl,
         abstract_eval=lambda x, *, shape, broadcast_dimensions, sharding=None:
             _bid_shape(x, shape, broadcast_dimensions),
         lowering=lambda ctx, x, *, shape, broadcast_dimensions, sharding=None: ctx.op1(
             "stablehlo.broadcast_in_dim", [x],
             attrs={"broadcast_dimensions": ctx.i64(broadcast_dimensions)}))

# ---- reshape ----------------------------------------------------------------------
reshape_p = core.new_primitive("reshape")


def _reshape_ae(x, *, new_sizes, dimensions=None, sharding=None):
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise ShapeError(f"cannot reshape an array of shape {x.shape} (size {x.size}) "
                         f"into shape {tuple(new_sizes)}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


register(reshape_p,
         impl=lambda x, *, new_sizes, dimensions=None, sharding=None:
             np.reshape(np.asarray(x), new_sizes),
         abstract_eval=_reshape_ae,
         lowering=lambda ctx, x, **_: ctx.op1("stablehlo.reshape", [x]))

# ---- transpose --------------------------------------------------------------------
transpose_p = core.new_primitive("transpose")


def _transpose_ae(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise ShapeError(f"transpose permutation {tuple(permutation)} does not fit an "
                         f"array of rank {x.ndim}")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


register(transpose_p,
         impl=lambda x, *, permutation: np.transpose(np.asarray(x), permutation).copy(),
         abstract_eval=_transpose_ae,
         lowering=lambda ctx, x, *, permutation: ctx.op1(
             "stablehlo.transpose", [x], attrs={"permutation": ctx.i64(permutation)}))

# ---- squeeze / expand_dims --------------------------------------------------------
squeeze_p = core.new_primitive("squeeze")


def _squeeze_ae(x, *, dimensions):
    dims = normalize_axes("squeeze", dimensions, x.ndim)
    for d in dims:
        if x.shape[d] != 1:
            raise ShapeError(f"cannot squeeze axis {d} of shape {x.shape}: its size is not 1")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dims), x.dtype,
                       x.weak_type)


register(squeeze_p,
         impl=lambda x, *, dimensions: np.squeeze(np.asarray(x), tuple(dimensions)),
         abstract_eval=_squeeze_ae,
         lowering=lambda ctx, x, **_: ctx.op1("stablehlo.reshape", [x]))

expand_dims_p = core.new_primitive("expand_dims")


def _expand_ae(x, *, dimensions):
    shape = list(x.shape)
    nd = x.ndim + len(dimensions)
    for d in sorted(a % nd for a in dimensions):
        shape.insert(d, 1)
    return ShapedArray(shape, x.dtype, x.weak_type)


register(expand_dims_p,
         impl=lambda x, *, dimensions: np.expand_dims(np.asarray(x), tuple(dimensions)),
         abstract_eval=_expand_ae,
         lowering=lambda ctx, x, **_: ctx.op1("stablehlo.reshape", [x]))

# ---- rev --------------------------------------------------------------------------
rev_p = core.new_primitive("rev")
register(rev_p,
         impl=lambda x, *, dimensions: np.flip(np.asarray(x), tuple(dimensions)).copy(),
         abstract_eval=lambda x, *, dimensions: (normalize_axes("rev", dimensions, x.ndim), x)[1],
         lowering=lambda ctx, x, *, dimensions: ctx.op1(
             "stablehlo.reverse", [x], attrs={"dimensions": ctx.i64(dimensions)}))

# ---- concatenate ------------------------------------------------------------------
concatenate_p = core.new_primitive("concatenate")


def _concat_ae(*xs, dimension):
    x0 = xs[0]
    for x in xs[1:]:
        if x.ndim != x0.ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, x0.shape))
                                    if i != dimension):
            raise ShapeError("concatenate needs arrays whose shapes agree except along "
                             f"axis {dimension}, got {', '.join(str(y.shape) for y in xs)}")
        if x.dtype != x0.dtype:
            raise DTypeError(f"concatenate needs one dtype, got {x0.dtype} and {x.dtype}")
    shape = list(x0.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, x0.dtype, all(x.weak_type for x in xs))


register(concatenate_p,
         impl=lambda *xs, dimension: np.concatenate([np.asarray(x) for x in xs], dimension),
         abstract_eval=_concat_ae,
         lowering=lambda ctx, *xs, dimension: ctx.op1(
             "stablehlo.concatenate", list(xs), attrs={"dimension": f"{dimension} : i64"}))

# ---- pad --------------------------------------------------------------------------
pad_p = core.new_primitive("pad")


def _pad_ae(x, pv, *, padding_config):
    if len(padding_config) != x.ndim:
        raise ShapeError(f"pad: padding_config has {len(padding_config)} entries for rank {x.ndim}")
    shape = []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        shape.append(lo + hi + d + max(d - 1, 0) * interior)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _pad_impl(x, pv, *, padding_config):
    x = np.asarray(x)
    out_shape = _pad_ae(ShapedArray(x.shape, x.dtype), None, padding_config=padding_config).shape
    # interior padding first, then (possibly negative) edge padding
    full = [d + max(d - 1, 0) * it for d, (_, _, it) in zip(x.shape, padding_config)]
    y = np.full(full, pv, x.dtype)
    y[tuple(slice(None, None, it + 1) for (_, _, it) in padding_config)] = x
    pads = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    y = np.pad(y, pads, constant_values=pv)
    idx = tuple(slice(-min(lo, 0), y.shape[i] + min(hi, 0))
                for i, (lo, hi, _) in enumerate(padding_config))
    y = y[idx]
    assert y.shape == tuple(out_shape)
    return y


register(pad_p,
         impl=_pad_impl,
         abstract_eval=_pad_ae,
         lowering=lambda ctx, x, pv, *, padding_config: ctx.op1("stablehlo.pad", [x, pv], attrs={
             "edge_padding_low": ctx.i64([c[0] for c in padding_config]),
             "edge_padding_high": ctx.i64([c[1] for c in padding_config]),
             "interior_padding": ctx.i64([c[2] for c in padding_config])}))

# ---- slice ------------------------------------------------------------------------
slice_p = core.new_primitive("slice")


def _slice_ae(x, *, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * x.ndim
    if not (len(start_indices) == len(limit_indices) == len(strides) == x.ndim) or any(
            not 0 <= s <= l <= d for s, l, d in zip(start_indices, limit_indices, x.shape)):
        raise ShapeError(f"slice {tuple(start_indices)}:{tuple(limit_indices)} is out of "
                         f"bounds for shape {x.shape}")
    shape = [(l - s + st - 1) // st for s, l, st in zip(start_indices, limit_indices, strides)]
    return ShapedArray(shape, x.dtype, x.weak_type)


register(slice_p,
         impl=lambda x, *, start_indices, limit_indices, strides=None: np.asarray(x)[tuple(
             slice(s, l, st) for s, l, st in zip(start_indices, limit_indices,
                                                  strides or (1,) * len(start_indices)))].copy(),
         abstract_eval=_slice_ae,
         lowering=lambda ctx, x, *, start_indices, limit_indices, strides=None: ctx.op1(
             "stablehlo.slice", [x], attrs={
                 "start_indices": ctx.i64(start_indices), "limit_indices": ctx.i64(limit_indices),
                 "strides": ctx.i64(strides or (1,) * len(start_indices))}))

# ---- dynamic_slice / dynamic_update_slice -----------------------------------------
dynamic_slice_p = core.new_primitive("dynamic_slice")


def _clamp_starts(shape, sizes, starts):
    return [int(np.clip(int(s), 0, d - z)) for s, d, z in zip(starts, shape, sizes)]


def _ds_ae(x, *idx, slice_sizes):
    if len(idx) != x.ndim or len(slice_sizes) != x.ndim or any(
            not 0 <= z <= d for z, d in zip(slice_sizes, x.shape)):
        raise ShapeError(f"dynamic_slice of size {tuple(slice_sizes)} does not fit shape {x.shape}")
    for i in idx:
        if i.shape != () or not dtypes.is_int(i.dtype):
            raise DTypeError("dynamic_slice indices must be integer scalars")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _ds_impl(x, *idx, slice_sizes):
    x = np.asarray(x)
    st = _clamp_starts(x.shape, slice_sizes, idx)
    return x[tuple(slice(s, s + z) for s, z in zip(st, slice_sizes))].copy()


register(dynamic_slice_p,
         impl=_ds_impl,
         abstract_eval=_ds_ae,
         lowering=lambda ctx, x, *idx, slice_sizes: ctx.op1(
             "stablehlo.dynamic_slice", [x, *idx], attrs={"slice_sizes": ctx.i64(slice_sizes)}))

dynamic_update_slice_p = core.new_primitive("dynamic_update_slice")


def _dus_ae(x, upd, *idx):
    if upd.ndim != x.ndim or any(u > d for u, d in zip(upd.shape, x.shape)) or len(idx) != x.ndim:
        raise ShapeError(f"dynamic_update_slice: update of shape {upd.shape} does not fit {x.shape}")
    if upd.dtype != x.dtype:
        raise DTypeError(f"dynamic_update_slice: update dtype {upd.dtype} is not {x.dtype}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _dus_impl(x, upd, *idx):
    x = np.array(x)
    upd = np.asarray(upd)
    st = _clamp_starts(x.shape, upd.shape, idx)
    x[tuple(slice(s, s + z) for s, z in zip(st, upd.shape))] = upd
    return x


register(dynamic_update_slice_p,
         impl=_dus_impl,
         abstract_eval=_dus_ae,
         lowering=lambda ctx, x, upd, *idx: ctx.op1("stablehlo.dynamic_update_slice", [x, upd, *idx]))

# ---- select_n / clamp -------------------------------------------------------------
select_n_p = core.new_primitive("select_n")


def _select_n_ae(which, *cases):
    if which.dtype != dtypes.bool_ and not dtypes.is_int(which.dtype):
        raise DTypeError(f"select_n predicate must be boolean or integer, got {which.dtype}")
    c0 = cases[0]
    for c in cases[1:]:
        if c.shape != c0.shape or c.dtype != c0.dtype:
            raise ShapeError("select_n cases must have one shape and dtype, got "
                             f"{', '.join(c.str_short() for c in cases)}")
    if which.shape not in ((), c0.shape):
        raise ShapeError(f"select_n predicate shape {which.shape} does not match {c0.shape}")
    return ShapedArray(c0.shape, c0.dtype, all(c.weak_type for c in cases))


def _select_n_impl(which, *cases):
    if len(cases) == 1:
        return np.array(cases[0])
    which = np.asarray(which)
    if which.dtype == np.bool_:
        which = which.astype(np.int32)
    return np.choose(np.broadcast_to(which, np.shape(cases[0])), [np.asarray(c) for c in cases])


def _select_n_lowering(ctx, which, *cases):
    wa = ctx.avals_in[0]
    out = ctx.avals_out[0]
    if len(cases) == 1:
        return cases[0]
    if wa.dtype == dtypes.bool_:
        pred = ctx.broadcast(which, wa, out.update(dtype=dtypes.bool_)) if out.shape else which
        if wa.shape == () and out.shape:
            pred = which  # stablehlo.select accepts a scalar predicate
        return ctx.op1("stablehlo.select", [pred, cases[1], cases[0]])
    # integer index: a chain of selects, comparing against each case index
    result = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        k = ctx.constant(i, wa.update(shape=()))
        k = ctx.broadcast(k, wa.update(shape=()), wa)
        is_i = ctx.op1("stablehlo.compare", [which, k], wa.update(dtype=dtypes.bool_),
                       attrs={"comparison_direction": "#stablehlo<comparison_direction EQ>"})
        result = ctx.op1("stablehlo.select", [is_i, cases[i], result])
    return result


register(select_n_p, impl=_select_n_impl, abstract_eval=_select_n_ae,
         lowering=_select_n_lowering)

clamp_p = core.new_primitive("clamp")


def _clamp_ae(lo, x, hi):
    for b in (lo, hi):
        if b.shape not in ((), x.shape) or b.dtype != x.dtype:
            raise ShapeError(f"clamp bounds {b.str_short()} do not match operand {x.str_short()}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


register(clamp_p,
         impl=lambda lo, x, hi: np.minimum(np.maximum(np.asarray(x), lo), hi).astype(np.asarray(x).dtype),
         abstract_eval=_clamp_ae,
         lowering=lambda ctx, lo, x, hi: ctx.op1("stablehlo.clamp", [lo, x, hi]))

# ---- iota / copy / bitcast --------------------------------------------------------
iota_p = core.new_primitive("iota")


def _iota_impl(*, dtype, shape, dimension, sharding=None):
    r = np.arange(shape[dimension], dtype=dtype)
    sh = [1] * len(shape)
    sh[dimension] = shape[dimension]
    return np.broadcast_to(r.reshape(sh), shape).copy()


register(iota_p,
         impl=_iota_impl,
         abstract_eval=lambda *, dtype, shape, dimension, sharding=None: ShapedArray(shape, dtype),
         lowering=lambda ctx, *, dtype, shape, dimension, sharding=None: ctx.op1(
             "stablehlo.iota", [], attrs={"iota_dimension": f"{dimension} : i64"}))

copy_p = core.new_primitive("copy")
register(copy_p, impl=lambda x: np.array(x), abstract_eval=lambda x: x,
         lowering=lambda ctx, x: x)

bitcast_convert_type_p = core.new_primitive("bitcast_convert_type")


def _bitcast_ae(x, *, new_dtype):
    a, b = np.dtype(x.dtype).itemsize, np.dtype(new_dtype).itemsize
    if a == b:
        return ShapedArray(x.shape, new_dtype)
    if a > b:
        return ShapedArray(x.shape + (a // b,), new_dtype)
    if x.shape[-1:] != (b // a,):
        raise ShapeError(f"bitcast from {x.dtype} to {new_dtype} needs a last axis of {b // a}")
    return ShapedArray(x.shape[:-1], new_dtype)


def _bitcast_impl(x, *, new_dtype):
    x = np.ascontiguousarray(x)
    out = _bitcast_ae(ShapedArray(x.shape, x.dtype), new_dtype=new_dtype)
    return x.view(new_dtype).reshape(out.shape)


register(bitcast_convert_type_p, impl=_bitcast_impl, abstract_eval=_bitcast_ae,
         lowering=lambda ctx, x, *, new_dtype: ctx.op1("stablehlo.bitcast_convert", [x]))
