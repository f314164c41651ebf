"""`sort`: a variadic, optionally stable sort along one dimension by the first
`num_keys` operands (lexicographically), carrying the other operands along.

Order: JAX's total order (`_sort_lt_comparator`): -0.0 and 0.0 compare equal (a
stable sort keeps them in input order), every NaN sorts after +inf, complex numbers
compare by real part, then imaginary part. Lowered with `stablehlo.sort` and a
comparator region that canonicalizes zeros and NaNs and compares with TOTALORDER.

The block also holds the jvp (tangents follow the sort permutation), batch rule,
printed source and the `lax.*` wrappers `sort` and `sort_key_val` (`top_k` is its own
primitive: primitives/top_k.py).
"""
from __future__ import annotations

import ast

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ShapeError, ShapeValueError
from ..pyast import call, pyconst
from .cumulative import check_axis, compare
from .base import as_operand, is_zero, matchaxis, register
from .base import tangent_aval as _aval
from .concat_pad import concatenate
from .structural import broadcasted_iota, reshape
from . import gather as ix

sort_p = core.new_primitive("sort", multiple_results=True)


def _sort_ae(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise ShapeError("sort needs at least one operand")
    shape = operands[0].shape
    for o in operands[1:]:
        if o.shape != shape:
            raise ShapeError("sort operands must have one shape, got "
                             f"{', '.join(str(x.shape) for x in operands)}")
    if not 0 <= dimension < max(len(shape), 1) or not shape:
        raise ShapeValueError(f"sort: dimension {dimension} is out of bounds for shape {shape}")
    if not 1 <= num_keys <= len(operands):
        raise ShapeValueError(f"sort: num_keys={num_keys} must be in [1, {len(operands)}]")
    return list(operands)


def _np_keys(x):
    """NumPy sort keys (most significant first) equivalent to JAX's total order."""
    x = np.asarray(x)
    if x.dtype == dtypes.bfloat16 or x.dtype == dtypes.float16:
        x = x.astype(np.float32)
    if np.iscomplexobj(x):
        return [_zero_nan(x.real), _zero_nan(x.imag)]
    if dtypes.is_float(x.dtype):
        return [_zero_nan(x)]
    return [x]


def _zero_nan(x):
    x = np.where(x == 0, np.zeros((), x.dtype), x)  # -0.0 == 0.0
    return np.where(np.isnan(x), np.asarray(np.nan, x.dtype), x)


def _sort_impl(*operands, dimension, is_stable, num_keys):
    ops = [np.asarray(o) for o in operands]
    keys = [k for o in ops[:num_keys] for k in _np_keys(o)]
    if len(keys) == 1:
        perm = np.argsort(keys[0], axis=dimension, kind="stable")
    else:
        perm = np.lexsort(keys[::-1], axis=dimension)
    return [np.take_along_axis(o, perm, axis=dimension) for o in ops]


def _canonical(ctx, x, s):
    """-0.0 -> 0.0 and any NaN -> the canonical NaN, so that TOTALORDER compares as
    JAX's comparator does."""
    mb = ctx.mb
    b1 = s.update(dtype=dtypes.bool_)
    zero = ctx.constant(0, s)
    is0 = mb.op("stablehlo.compare", [x, zero], [b1], attrs={
        "comparison_direction": "#stablehlo<comparison_direction EQ>",
        "compare_type": "#stablehlo<comparison_type FLOAT>"})[0]
    x = mb.op("stablehlo.select", [is0, zero, x], [s])[0]
    isnan = compare(ctx, x, x, "NE", s, "FLOAT")
    return mb.op("stablehlo.select", [isnan, ctx.constant(np.nan, s), x], [s])[0]


def _lt_eq(ctx, a, b, s):
    """(a < b, a == b) under the total order, for scalars of aval `s`."""
    mb = ctx.mb
    dt = s.dtype
    if dtypes.issubdtype(dt, np.complexfloating):
        r = s.update(dtype=dtypes.float64 if dt == dtypes.complex128 else dtypes.float32)
        ar, br = (mb.op("stablehlo.real", [v], [r])[0] for v in (a, b))
        ai, bi = (mb.op("stablehlo.imag", [v], [r])[0] for v in (a, b))
        lt_r, eq_r = _lt_eq(ctx, ar, br, r)
        lt_i, eq_i = _lt_eq(ctx, ai, bi, r)
        b1 = s.update(dtype=dtypes.bool_)
        lt = mb.op("stablehlo.or", [lt_r, mb.op("stablehlo.and", [eq_r, lt_i], [b1])[0]], [b1])[0]
        return lt, mb.op("stablehlo.and", [eq_r, eq_i], [b1])[0]
    if dtypes.is_float(dt):
        a, b = _canonical(ctx, a, s), _canonical(ctx, b, s)
        return compare(ctx, a, b, "LT", s, "TOTALORDER"), compare(ctx, a, b, "EQ", s, "TOTALORDER")
    return compare(ctx, a, b, "LT", s), compare(ctx, a, b, "EQ", s)


def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in]
    b1 = ShapedArray((), dtypes.bool_)
    mb = ctx.mb

    def comparator(*args):
        lhs, rhs = args[0::2], args[1::2]
        result = None
        for k in reversed(range(num_keys)):  # lt0 | (eq0 & (lt1 | (eq1 & ...)))
            lt, eq = _lt_eq(ctx, lhs[k], rhs[k], scalars[k])
            if result is None:
                result = lt
            else:
                result = mb.op("stablehlo.or", [lt, mb.op("stablehlo.and", [eq, result], [b1])[0]],
                               [b1])[0]
        return [result]

    arg_avals = [a for s in scalars for a in (s, s)]
    region = ctx.region(arg_avals, comparator)
    return ctx.op("stablehlo.sort", list(operands), regions=[region], attrs={
        "dimension": f"{dimension} : i64", "is_stable": "true" if is_stable else "false"})


register(sort_p, impl=_sort_impl, abstract_eval=_sort_ae, lowering=_sort_lowering)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = _aval(primals[0]).shape
    iota = broadcasted_iota(np.int32, shape, dimension)
    outs = bind(sort_p, *primals, iota, dimension=dimension, is_stable=is_stable,
                num_keys=num_keys)
    perm = outs[-1]
    outs = outs[:-1]
    tout = []
    for t, o in zip(tangents, outs):
        if is_zero(t):
            tout.append(core.Zero(_aval(o)))
        else:
            tout.append(_take_along(t, perm, dimension))
    return outs, tout


def _take_along(x, idx, axis):
    """x[..., idx, ...] along `axis` (idx has x's shape) as a gather."""
    a = _aval(x)
    nd = a.ndim
    if a.size == 0:  # nothing to take (a gather of slices of 1 would not fit)
        return x
    # index vector: one coordinate per dimension, with iotas for the other axes
    coords = []
    for d in range(nd):
        c = idx if d == axis else broadcasted_iota(np.int32, a.shape, d)
        coords.append(reshape(c, a.shape + (1,)))
    indices = concatenate(coords, nd) if nd > 1 else coords[0]
    dn = ix.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=tuple(range(nd)),
                                   start_index_map=tuple(range(nd)))
    return bind(ix.gather_p, x, indices, dimension_numbers=dn, slice_sizes=(1,) * nd,
                indices_are_sorted=False, unique_indices=True,
                mode=ix.GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None)


def _sort_batch(args, dims, *, dimension, **params):
    size = core.axis_size()
    xs = [matchaxis(x, d, 0, size) for x, d in zip(args, dims)]
    nd = max(_aval(xs[0]).ndim - 1, 1)
    outs = bind(sort_p, *xs, dimension=dimension % nd + 1, **params)
    return outs, [0] * len(outs)


def _sort_source(gen, eqn):
    p = eqn.params
    kw = {"dimension": pyconst(int(p["dimension"]))}
    if not p.get("is_stable", True):
        kw["is_stable"] = pyconst(False)
    if p.get("num_keys", 1) != 1:
        kw["num_keys"] = pyconst(int(p["num_keys"]))
    ops = [gen.arg(a) for a in eqn.invars]
    operand = ops[0] if len(ops) == 1 else ast.Tuple(elts=ops, ctx=ast.Load())
    return call("lax.sort", [operand], **kw)


_sort_source.unpacks_single = True
register(sort_p, jvp=_sort_jvp, batch=_sort_batch, source=_sort_source)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort one array, or a sequence of arrays by the first `num_keys` of them."""
    if isinstance(operand, (tuple, list)):
        ops = [as_operand(o) for o in operand]
        if not ops:
            return type(operand)()
        dim = check_axis(dimension, core.get_aval(ops[0]).ndim, "sort")
        out = bind(sort_p, *ops, dimension=dim, is_stable=bool(is_stable),
                   num_keys=int(num_keys))
        return tuple(out) if isinstance(operand, tuple) else list(out)
    operand = as_operand(operand)
    dim = check_axis(dimension, core.get_aval(operand).ndim, "sort")
    return bind(sort_p, operand, dimension=dim, is_stable=bool(is_stable),
                num_keys=int(num_keys))[0]


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """`lax.sort_key_val`: sort `values` by `keys`."""
    k, v = sort((keys, values), dimension, is_stable, 1)
    return k, v


__all__ = ["sort_p"]
