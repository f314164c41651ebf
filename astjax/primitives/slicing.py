"""Slicing primitives: `slice` (static), `dynamic_slice` and `dynamic_update_slice`
(start indices are operands, clamped into bounds as XLA does), each one block:
declaration, impl, abstract eval, lowering, jvp/transpose, batch rule, printed source
and the `lax.*` wrappers (`slice`, `slice_in_dim`, `index_in_dim`, `dynamic_slice`,
`dynamic_update_slice` and their `*_in_dim` forms)."""
from __future__ import annotations

import ast
import builtins

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import DTypeError, JAXIndexError, ShapeError, ShapeValueError
from ..pyast import call, lax_call
from ..shape_poly import canonical_shape, is_symbolic_dim
from .base import (deflinear, instantiate, is_zero, matchaxis, moveaxis, register,
                   weak_const)
from .base import tangent_aval as _aval
from .concat_pad import concatenate, pad_p
from .structural import convert_element_type, expand_dims, reshape, squeeze
from .structural import broadcast_in_dim

__all__ = ["slice_p", "dynamic_slice_p", "dynamic_update_slice_p"]

# ---- slice ------------------------------------------------------------------------
slice_p = core.new_primitive("slice")


def _slice_ae(x, *, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * x.ndim
    if any(st < 1 for st in strides):
        raise ShapeError(f"slice strides must be positive, got {tuple(strides)}")
    if not (len(start_indices) == len(limit_indices) == len(strides) == x.ndim) or any(
            not 0 <= s <= l <= d for s, l, d in zip(start_indices, limit_indices, x.shape)):
        raise ShapeError(f"slice {tuple(start_indices)}:{tuple(limit_indices)} is out of "
                         f"bounds for shape {x.shape}")
    shape = [(l - s + st - 1) // st for s, l, st in zip(start_indices, limit_indices, strides)]
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    if any(map(is_symbolic_dim, (*start_indices, *limit_indices))):
        # a bound is a symbolic dimension (jax.export): the bounds as values
        return ctx.op1("stablehlo.real_dynamic_slice", [
            x, ctx.shape_value(start_indices), ctx.shape_value(limit_indices),
            ctx.shape_value(strides)])
    return ctx.op1("stablehlo.slice", [x], attrs={
        "start_indices": ctx.i64(start_indices), "limit_indices": ctx.i64(limit_indices),
        "strides": ctx.i64(strides)})


register(slice_p,
         impl=lambda x, *, start_indices, limit_indices, strides=None: np.asarray(x)[tuple(
             builtins.slice(s, l, st) for s, l, st in zip(start_indices, limit_indices,
                                                  strides or (1,) * len(start_indices)))].copy(),
         abstract_eval=_slice_ae, lowering=_slice_lowering)


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides=None):
    if is_zero(ct):
        return [None]
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    out_shape = _aval(ct).shape
    cfg = []
    unit = all(st_ == 1 for st_ in strides)
    for s, n_out, st_, d, lim in zip(start_indices, out_shape, strides, shape, limit_indices):
        # (JAX's padding computed with NumPy: np.int64 high (and interior, if strided)
        # entries in the printed params; no comparison of a symbolic size)
        if unit:
            cfg.append((s, _np_int(d - lim), 0))
            continue
        real_limit = s + (n_out - 1) * st_ + 1 if n_out > 0 else s
        cfg.append((s, _np_int(d - real_limit), np.int64(st_ - 1 if n_out > 0 else 0)))
    return [bind(pad_p, ct, weak_const(ct, 0), padding_config=tuple(cfg))]


def _np_int(v):
    return v if is_symbolic_dim(v) else np.int64(v)


def _slice_batch(args, dims, *, start_indices, limit_indices, strides=None):
    x, d = args[0], dims[0]
    size = _aval(x).shape[d]
    st, li = list(start_indices), list(limit_indices)
    st.insert(d, 0)
    li.insert(d, size)
    if strides is not None:
        strides = list(strides)
        strides.insert(d, 1)
        strides = tuple(strides)
    return bind(slice_p, x, start_indices=tuple(st), limit_indices=tuple(li),
                strides=strides), d


def _slice_source(gen, eqn):
    p = eqn.params
    extra = [gen.value(tuple(p["start_indices"])), gen.value(tuple(p["limit_indices"]))]
    if p.get("strides") is not None and any(s != 1 for s in p["strides"]):
        extra.append(gen.value(tuple(p["strides"])))
    return lax_call("slice", gen, eqn, *extra)


deflinear(slice_p, _slice_transpose)
register(slice_p, batch=_slice_batch, source=_slice_source)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """`lax.slice`: operand[start:limit:stride] per axis."""
    return bind(slice_p, operand, start_indices=canonical_shape(start_indices),
                limit_indices=canonical_shape(limit_indices),
                strides=None if strides is None else tuple(int(s) for s in strides))


def _in_dim_axis(axis, ndim, name):
    """The `axis` of a `*_in_dim` wrapper, made non-negative (JAX: an IndexError)."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise JAXIndexError(f"`{name}`: axis {axis} is out of bounds for an array of rank "
                            f"{ndim}", hint="axes count from 0 (or from -1 backwards)")
    return axis % ndim


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """`lax.slice_in_dim`: a slice along one axis."""
    a = _aval(operand)
    axis = _in_dim_axis(axis, a.ndim, "slice_in_dim")
    starts, limits, strides = [0] * a.ndim, list(a.shape), [1] * a.ndim
    n = a.shape[axis]
    start = 0 if start_index is None else start_index
    limit = n if limit_index is None else limit_index
    starts[axis] = start + n if start < 0 else start    # negative bounds count from the end
    limits[axis] = limit + n if limit < 0 else limit
    strides[axis] = stride
    return slice(operand, starts, limits, strides)   # (JAX passes the strides, ones too)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """`lax.index_in_dim`: operand[..., index, ...] along `axis` (a negative index counts
    from the end; out of bounds: JAX's IndexError)."""
    a = _aval(operand)
    axis = _in_dim_axis(axis, a.ndim, "index_in_dim")
    n = a.shape[axis]
    i = index + n if index < 0 else index
    if not 0 <= i < n:
        raise JAXIndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    r = slice_in_dim(operand, i, i + 1, 1, axis)
    return r if keepdims else squeeze(r, (axis,))


# ---- dynamic_slice / dynamic_update_slice -----------------------------------------
dynamic_slice_p = core.new_primitive("dynamic_slice")


def _clamp_starts(shape, sizes, starts):
    return [int(np.clip(int(s), 0, d - z)) for s, d, z in zip(starts, shape, sizes)]


def _ds_ae(x, *idx, slice_sizes):
    if len(idx) != x.ndim:
        raise ShapeValueError(f"dynamic_slice needs one start index per axis of {x.shape}, "
                              f"got {len(idx)}")
    if len(slice_sizes) != x.ndim or any(
            not 0 <= z <= d for z, d in zip(slice_sizes, x.shape)):
        raise ShapeError(f"dynamic_slice of size {tuple(slice_sizes)} does not fit shape {x.shape}")
    _check_indices("dynamic_slice", idx)
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _check_indices(what, idx):
    for i in idx:
        if i.shape != () or not dtypes.is_int(i.dtype):
            raise DTypeError(f"{what} indices must be integer scalars")
    if len({i.dtype for i in idx}) > 1:
        raise DTypeError(f"index arguments to {what} must be integers of the same type, got: "
                         f"{', '.join(str(i.dtype) for i in idx)}")


def _ds_impl(x, *idx, slice_sizes):
    x = np.asarray(x)
    st = _clamp_starts(x.shape, slice_sizes, idx)
    return x[tuple(builtins.slice(s, s + z) for s, z in zip(st, slice_sizes))].copy()


register(dynamic_slice_p,
         impl=_ds_impl,
         abstract_eval=_ds_ae,
         lowering=lambda ctx, x, *idx, slice_sizes: ctx.op1(
             "stablehlo.dynamic_slice", [x, *idx], attrs={"slice_sizes": ctx.i64(slice_sizes)}))


def _ds_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals
    out = bind(dynamic_slice_p, x, *idx, slice_sizes=slice_sizes)
    if is_zero(tangents[0]):
        return out, core.Zero(_aval(out))
    return out, bind(dynamic_slice_p, tangents[0], *idx, slice_sizes=slice_sizes)


def _ds_transpose(ct, x, *idx, slice_sizes):
    if is_zero(ct):
        return [None] * (1 + len(idx))
    z = instantiate(core.Zero(x.aval))
    return [bind(dynamic_update_slice_p, z, ct, *idx)] + [None] * len(idx)


def _index_matrix(idx, idx_dims, size):
    """Per-example scalar indices (some mapped, shape (B,)) -> int32 (B, n)."""
    cols = []
    for i, d in zip(idx, idx_dims):
        if _aval(i).dtype != dtypes.int32:
            i = convert_element_type(i, dtypes.int32)
        if d is None:
            col = broadcast_in_dim(i, (size, 1), ())
        else:
            col = reshape(i, (size, 1))
        cols.append(col)
    return concatenate(cols, 1) if len(cols) > 1 else cols[0]


def _zero_index(idx):
    """The start index of the batch axis, of the other indices' type (int64 ones under
    x64 stay int64: the primitive takes indices of one type)."""
    return np.zeros((), _aval(idx[0]).dtype) if idx else np.int32(0)


def _dynamic_slice_batch(args, dims, *, slice_sizes):
    x, idx = args[0], list(args[1:])
    xd, idx_d = dims[0], list(dims[1:])
    size = core.axis_size()
    if all(d is None for d in idx_d):
        idx.insert(xd, _zero_index(idx))
        sizes = list(slice_sizes)
        sizes.insert(xd, size)
        return bind(dynamic_slice_p, x, *idx, slice_sizes=tuple(sizes)), xd
    from .gather import GatherDimensionNumbers, GatherScatterMode, gather_p
    n = len(slice_sizes)
    ind = _index_matrix(idx, idx_d, size)
    if xd is None:
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(),
                                    start_index_map=tuple(range(n)))
        sizes = tuple(slice_sizes)
    else:
        x = moveaxis(x, xd, 0)
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)), collapsed_slice_dims=(),
                                    start_index_map=tuple(range(1, n + 1)),
                                    operand_batching_dims=(0,), start_indices_batching_dims=(0,))
        sizes = (min(size, 1),) + tuple(slice_sizes)  # an empty batch takes no slice
    return bind(gather_p, x, ind, dimension_numbers=dn, slice_sizes=sizes,
                indices_are_sorted=False, unique_indices=False, mode=GatherScatterMode.CLIP,
                fill_value=None), 0


def _ds_source(gen, eqn):
    x, *idx = eqn.invars
    return call("lax.dynamic_slice", [gen.arg(x), ast.Tuple(elts=[gen.arg(i) for i in idx], ctx=ast.Load()),
                                      gen.value(tuple(eqn.params["slice_sizes"]))])


register(dynamic_slice_p, jvp=_ds_jvp, transpose=_ds_transpose, batch=_dynamic_slice_batch,
         source=_ds_source)


def _index_scalar(i):
    if dtypes.is_weak_scalar(i) or isinstance(i, (np.integer, builtins.int)):
        return np.asarray(i, dtypes.canonicalize(dtypes.int32))[()]
    a = _aval(i)
    if a.dtype != dtypes.int32 and dtypes.is_int(a.dtype) and a.dtype.itemsize < 4:
        return convert_element_type(i, dtypes.int32)
    return i


def _start_indices(start_indices, what):
    """Start indices as integer scalars of one dtype. Array indices of different dtypes
    are JAX's TypeError; a Python or NumPy scalar adopts theirs (int32, or int64 when one
    of them is: where JAX raises for a NumPy scalar of another dtype)."""
    typed = [_aval(i).dtype for i in start_indices
             if not (dtypes.is_weak_scalar(i) or isinstance(i, (builtins.int, np.integer)))]
    if len(set(typed)) > 1 and all(dtypes.is_int(k) for k in typed):
        sep = ":" if what == "dynamic_slice" else ""
        raise DTypeError(f"index arguments to {what} must be integers of the same type, got"
                         f"{sep} {', '.join(np.dtype(k).name for k in typed)}",
                         hint="convert the indices to one dtype, e.g. i.astype(jnp.int32)")
    idx = [_index_scalar(i) for i in start_indices]
    kinds = {_aval(i).dtype for i in idx}
    if len(kinds) > 1 and all(dtypes.is_int(k) for k in kinds):
        wide = dtypes.canonicalize(dtypes.int64 if any(np.dtype(k).itemsize == 8 for k in kinds)
                                   else dtypes.int32)
        idx = [i if _aval(i).dtype == wide else convert_element_type(i, wide) for i in idx]
    return idx


def dynamic_slice(operand, start_indices, slice_sizes):
    """`lax.dynamic_slice`: a `slice_sizes` window at traced `start_indices` (clamped)."""
    idx = _start_indices(start_indices, "dynamic_slice")
    return bind(dynamic_slice_p, operand, *idx, slice_sizes=tuple(int(s) for s in slice_sizes))


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    """`lax.dynamic_slice_in_dim`: a dynamic slice along one axis."""
    a = _aval(operand)
    axis = _in_dim_axis(axis, a.ndim, "dynamic_slice_in_dim")
    starts = [0] * a.ndim
    starts[axis] = start_index
    sizes = list(a.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """`lax.dynamic_index_in_dim`: operand[..., index, ...] at a traced index."""
    r = dynamic_slice_in_dim(operand, index, 1, axis)
    return r if keepdims else squeeze(r, (axis,))


dynamic_update_slice_p = core.new_primitive("dynamic_update_slice")


def _dus_ae(x, upd, *idx):
    if len(idx) != x.ndim:   # (checked first, as JAX's wrapper does)
        raise ShapeValueError(f"dynamic_update_slice needs one start index per axis of "
                              f"{x.shape}, got {len(idx)}")
    if upd.ndim != x.ndim or any(u > d for u, d in zip(upd.shape, x.shape)) or len(idx) != x.ndim:
        raise ShapeError(f"dynamic_update_slice: update of shape {upd.shape} does not fit {x.shape}")
    if upd.dtype != x.dtype:
        raise DTypeError(f"dynamic_update_slice: update dtype {upd.dtype} is not {x.dtype}")
    _check_indices("dynamic_update_slice", idx)
    # JAX's standard weak-type rule: weak only when every operand is, indices included
    return ShapedArray(x.shape, x.dtype, all(a.weak_type for a in (x, upd, *idx)))


def _dus_impl(x, upd, *idx):
    x = np.array(x)
    upd = np.asarray(upd)
    st = _clamp_starts(x.shape, upd.shape, idx)
    x[tuple(builtins.slice(s, s + z) for s, z in zip(st, upd.shape))] = upd
    return x


register(dynamic_update_slice_p,
         impl=_dus_impl,
         abstract_eval=_dus_ae,
         lowering=lambda ctx, x, upd, *idx: ctx.op1("stablehlo.dynamic_update_slice", [x, upd, *idx]))


def _dus_jvp(primals, tangents):
    x, u, *idx = primals
    tx, tu = tangents[:2]
    out = bind(dynamic_update_slice_p, x, u, *idx)
    if is_zero(tx) and is_zero(tu):
        return out, core.Zero(_aval(out))
    return out, bind(dynamic_update_slice_p, instantiate(tx, _aval(x)),
                     instantiate(tu, _aval(u)), *idx)


def _dus_transpose(ct, x, u, *idx):
    if is_zero(ct):
        return [None] * (2 + len(idx))
    ua = _aval(u)
    cx = bind(dynamic_update_slice_p, ct, instantiate(core.Zero(ua)), *idx) \
        if core.is_undefined(x) else None
    cu = bind(dynamic_slice_p, ct, *idx, slice_sizes=ua.shape) if core.is_undefined(u) else None
    return [cx, cu] + [None] * len(idx)


def _dynamic_update_slice_batch(args, dims):
    x, upd, idx = args[0], args[1], list(args[2:])
    xd, ud, idx_d = dims[0], dims[1], list(dims[2:])
    size = core.axis_size()
    x = matchaxis(x, xd, 0, size)
    upd = matchaxis(upd, ud, 0, size)
    if all(d is None for d in idx_d):
        return bind(dynamic_update_slice_p, x, upd, _zero_index(idx), *idx), 0
    from .gather import GatherScatterMode
    from .scatter import ScatterDimensionNumbers, scatter_p
    n = len(idx)
    ind = _index_matrix(idx, idx_d, size)
    dn = ScatterDimensionNumbers(update_window_dims=tuple(range(1, n + 1)),
                                 inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=tuple(range(1, n + 1)),
                                 operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    return bind(scatter_p, x, ind, upd, dimension_numbers=dn, indices_are_sorted=True,
                unique_indices=True, mode=GatherScatterMode.CLIP, update_jaxpr=None,
                update_consts=()), 0


def _dus_source(gen, eqn):
    x, upd, *idx = eqn.invars
    return call("lax.dynamic_update_slice", [gen.arg(x), gen.arg(upd),
                                             ast.Tuple(elts=[gen.arg(i) for i in idx], ctx=ast.Load())])


register(dynamic_update_slice_p, jvp=_dus_jvp, transpose=_dus_transpose,
         batch=_dynamic_update_slice_batch, source=_dus_source)


def dynamic_update_slice(operand, update, start_indices):
    """`lax.dynamic_update_slice`: operand with `update` written at traced `start_indices`."""
    idx = _start_indices(start_indices, "dynamic_update_slice")
    return bind(dynamic_update_slice_p, operand, update, *idx)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    """`lax.dynamic_update_slice_in_dim`: a dynamic update along one axis."""
    axis = _in_dim_axis(axis, _aval(operand).ndim, "dynamic_update_slice_in_dim")
    starts = [0] * _aval(operand).ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis):
    """`lax.dynamic_update_index_in_dim`: write `update` at operand[..., index, ...]."""
    if _aval(update).ndim == _aval(operand).ndim - 1:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)
