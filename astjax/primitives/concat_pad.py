"""Arrays joined, padded and reversed along axes: rev, concatenate, pad. One block per
primitive: declaration, impl, abstract eval, lowering, transpose (all three are
linear), batch rule, printed source and the `lax.*` wrapper (`astjax.lax` re-exports
the wrappers). Reshapes, broadcasts and conversions are in `structural`."""
from __future__ import annotations

import ast

import numpy as np

from .. import core, dtypes, shape_poly
from ..core import ShapedArray, bind
from ..errors import DTypeError, ShapeError, ShapeValueError
from ..pyast import call, lax_call, pyconst
from . import elementwise as ew
from .base import (deflinear, is_zero, match_scalars, matchaxis, moveaxis, normalize_axes,
                   register, shift_axis, weak_const)
from .base import tangent_aval as _aval
from .structural import broadcast_in_dim, full

__all__ = ["rev_p", "concatenate_p", "pad_p"]

# ---- rev --------------------------------------------------------------------------
rev_p = core.new_primitive("rev")
register(rev_p,
         impl=lambda x, *, dimensions: np.flip(np.asarray(x), tuple(dimensions)).copy(),
         abstract_eval=lambda x, *, dimensions: (
             normalize_axes("rev", dimensions, x.ndim, ShapeError), x)[1],
         lowering=lambda ctx, x, *, dimensions: ctx.op1("stablehlo.reverse", [x], attrs={
             "dimensions": ctx.i64([d % ctx.avals_in[0].ndim for d in dimensions])}))


def _rev_batch(args, dims, *, dimensions):
    x, d = args[0], dims[0]
    nd = max(_aval(x).ndim - 1, 1)
    return bind(rev_p, x, dimensions=tuple(shift_axis(a % nd, d) for a in dimensions)), d


def _rev_source(gen, eqn):
    return lax_call("rev", gen, eqn, gen.value(eqn.params["dimensions"]))


deflinear(rev_p, lambda ct, x, *, dimensions: [None if is_zero(ct) else rev(ct, dimensions)])
register(rev_p, batch=_rev_batch, source=_rev_source)


def rev(operand, dimensions):
    """`lax.rev`: reverse the axes `dimensions`."""
    return bind(rev_p, operand, dimensions=tuple(int(d) for d in dimensions))

# ---- concatenate ------------------------------------------------------------------
concatenate_p = core.new_primitive("concatenate")


def _concat_ae(*xs, dimension):
    if not xs:
        raise ShapeValueError("concatenate needs at least one array")
    x0 = xs[0]
    if not 0 <= dimension < x0.ndim:
        raise ShapeError(f"concatenate: dimension {dimension} is out of bounds for arrays of "
                         f"rank {x0.ndim}")
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


def _concat_transpose(ct, *xs, dimension):
    from .slicing import slice_in_dim
    out, off = [], 0
    for x in xs:
        n = _aval(x).shape[dimension]
        if core.is_undefined(x) and not is_zero(ct):
            out.append(slice_in_dim(ct, off, off + n, axis=dimension))
        else:
            out.append(None)
        off += n
    return out


def _concatenate_batch(args, dims, *, dimension):
    size = core.axis_size()
    xs = [matchaxis(x, d, 0, size) for x, d in zip(args, dims)]
    nd = max(_aval(xs[0]).ndim - 1, 1)
    return bind(concatenate_p, *xs, dimension=dimension % nd + 1), 0


def _concat_source(gen, eqn):
    return call("lax.concatenate", [ast.List(elts=[gen.arg(a) for a in eqn.invars], ctx=ast.Load()),
                                    pyconst(eqn.params["dimension"])])


deflinear(concatenate_p, _concat_transpose)
register(concatenate_p, batch=_concatenate_batch, source=_concat_source)


def concatenate(operands, dimension):
    """`lax.concatenate` along `dimension`."""
    if len(operands) == 1 and 0 <= int(dimension) < _aval(operands[0]).ndim:
        return operands[0]
    return bind(concatenate_p, *operands, dimension=int(dimension))

# ---- pad --------------------------------------------------------------------------
pad_p = core.new_primitive("pad")


def _pad_ae(x, pv, *, padding_config):
    if pv.dtype != x.dtype:
        raise DTypeError(f"pad operand and padding_value must be same dtype: got {x.dtype} and {pv.dtype}")
    elif len(padding_config) != x.ndim:
        raise ShapeValueError(f"pad: padding_config has {len(padding_config)} entries for rank {x.ndim}")
    shape = []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ShapeValueError(f"pad: interior padding must be >= 0, got {padding_config}")
        shape.append(lo + hi + d + (max(d - 1, 0) * interior if interior else 0))
    if any(d < 0 for d in shape):
        raise ShapeValueError(f"pad: padding {tuple(padding_config)} of shape {x.shape} gives "
                              f"a negative size: {tuple(shape)}")
    return ShapedArray(shape, x.dtype, x.weak_type and pv.weak_type)   # (JAX: all weak)


def _pad_impl(x, pv, *, padding_config):
    x = np.asarray(x)
    a = ShapedArray(x.shape, x.dtype)
    out_shape = _pad_ae(a, a.update(shape=()), padding_config=padding_config).shape
    # interior padding first, then (possibly negative) edge padding
    full = [d + max(d - 1, 0) * it for d, (_, _, it) in zip(x.shape, padding_config)]
    y = np.full(full, pv, x.dtype)
    y[tuple(slice(None, None, it + 1) for (_, _, it) in padding_config)] = x
    pads = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    y = np.pad(y, pads, constant_values=pv)
    idx = tuple(slice(-min(lo, 0), y.shape[i] + min(hi, 0))
                for i, (lo, hi, _) in enumerate(padding_config))
    assert y[idx].shape == tuple(out_shape)
    return y[idx]


def _pad_lowering(ctx, x, pv, *, padding_config):
    cfg = [[c[k] for c in padding_config] for k in range(3)]   # low, high, interior
    if any(map(shape_poly.is_symbolic_dim, (d for c in cfg for d in c))):   # (jax.export)
        return ctx.op1("stablehlo.dynamic_pad", [x, pv, *map(ctx.shape_value, cfg)])
    return ctx.op1("stablehlo.pad", [x, pv], attrs=dict(zip(
        ("edge_padding_low", "edge_padding_high", "interior_padding"), map(ctx.i64, cfg))))


def _pad_transpose(ct, x, pv, *, padding_config):
    from .reductions import reduce_sum
    from .slicing import slice
    if is_zero(ct):
        return [None, None]
    t = ct
    unpad = tuple((-lo, -hi, 0) for lo, hi, _ in padding_config)
    t = pad(t, weak_const(t, 0), unpad)
    tx = slice(t, (0,) * len(padding_config), _aval(t).shape,
               tuple(it + 1 for _, _, it in padding_config))
    cx = tx if core.is_undefined(x) else None
    cpv = None
    if core.is_undefined(pv):
        total = reduce_sum(ct, tuple(range(_aval(ct).ndim)))
        cpv = bind(ew.sub_p, total, reduce_sum(tx, tuple(range(_aval(tx).ndim))))
    return [cx, cpv]


def _pad_batch(args, dims, *, padding_config):
    size = core.axis_size()
    x, pv = args
    xd, pd = dims
    x = matchaxis(x, xd, 0, size)
    cfg = ((0, 0, 0),) + tuple(padding_config)
    if pd is None:
        return bind(pad_p, x, pv, padding_config=cfg), 0
    # a per-lane padding value: pad with zero, then select the padding positions
    a = _aval(x)
    zero = np.zeros((), a.dtype)[()]
    padded = bind(pad_p, x, zero, padding_config=cfg)
    ones = full(a.shape, np.ones((), dtypes.bool_)[()], dtypes.bool_)
    mask = bind(pad_p, ones, np.bool_(False), padding_config=cfg)
    pshape = _aval(padded).shape
    pvb = broadcast_in_dim(moveaxis(pv, pd, 0), pshape, (0,))
    from .selection import select_n
    return select_n(mask, pvb, padded), 0


def _pad_source(gen, eqn):
    return lax_call("pad", gen, eqn, gen.value(tuple(tuple(c) for c in eqn.params["padding_config"])))


deflinear(pad_p, _pad_transpose)
register(pad_p, impl=_pad_impl, abstract_eval=_pad_ae, lowering=_pad_lowering, batch=_pad_batch,
         source=_pad_source)


def pad(x, padding_value, padding_config):
    """`lax.pad`: (low, high, interior) padding per axis with `padding_value`."""
    pv, config = match_scalars(x, padding_value)[1], map(shape_poly.canonical_shape, padding_config)
    return bind(pad_p, x, pv, padding_config=tuple(config))

