"""Reductions and contractions: reduce_sum/max/min/prod/and/or and dot_general (the
one contraction primitive; jnp.dot/matmul/einsum lower onto it). Each block holds the
declaration, impl, abstract eval, lowering, jvp/transpose, batch rule, printed source
and the `lax.*` wrappers (`reduce_*`, `dot_general`, `dot`); argmax/argmin are in
`cumulative`."""
from __future__ import annotations

import ast

import numpy as np

from .. import core, dtypes
from ..config import config
from ..core import ShapedArray, bind
from ..errors import ArgumentValueError, DTypeError, ShapeError
from ..precision_config import (Precision, attribute_types, canonicalize_precision,  # noqa: F401
                                check_platform, compute_types, is_algorithm,
                                precision_config_attribute, source_value)
from ..pyast import dtype_expr, lax_call
from . import elementwise as ew
from .base import (ANY, INT_BOOL, NUMBER, bilinear, deflinear, defreducer, is_zero,
                   lax_ops, max_value, min_value, moveaxis, nondiff, register, reducer,
                   shift_axis)
from .base import tangent_aval as _aval
from .slicing import slice_in_dim
from .concat_pad import concatenate, pad
from .structural import (batched_layout, broadcast_in_dim, convert_element_type, full, laid_out,
                         out_layout, reshape, squeeze, transpose)

__all__ = ["reduce_sum_p", "reduce_prod_p", "reduce_max_p", "reduce_min_p", "reduce_and_p",
           "reduce_or_p", "dot_general_p", "DotDims", "dot_dims"]

reduce_sum_p = reducer("reduce_sum", np.sum, "stablehlo.add", lambda d: 0, NUMBER)
reduce_prod_p = reducer("reduce_prod", np.prod, "stablehlo.multiply", lambda d: 1, NUMBER)
reduce_max_p = reducer("reduce_max", lambda x, axis: np.max(x, axis=axis, initial=min_value(x.dtype)),
                       "stablehlo.maximum", min_value, ANY)  # initial: empty axes give the identity
reduce_min_p = reducer("reduce_min", lambda x, axis: np.min(x, axis=axis, initial=max_value(x.dtype)),
                       "stablehlo.minimum", max_value, ANY)
# bitwise on integers (JAX's meaning); identity: all ones / zero
reduce_and_p = reducer("reduce_and", np.bitwise_and.reduce, "stablehlo.and",
                       lambda d: ~np.zeros((), d), INT_BOOL)
reduce_or_p = reducer("reduce_or", np.bitwise_or.reduce, "stablehlo.or",
                      lambda d: np.zeros((), d), INT_BOOL)


def _reduce_source(gen, eqn):
    return lax_call(eqn.primitive.name, gen, eqn, axes=gen.value(tuple(eqn.params["axes"])))


def _reduce(p):
    """The `lax.<name>(x, axes)` wrapper of reducer `p` (JAX's params: `out_sharding`
    only for reduce_sum)."""
    extra = {"out_sharding": None} if p.name == "reduce_sum" else {}

    def f(x, axes):
        return bind(p, x, axes=tuple(int(a) for a in axes), **extra)
    f.__name__ = p.name
    f.__doc__ = f"`lax.{p.name}`: reduce x over `axes`."
    return f


for _p in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p):
    register(_p, source=_reduce_source)
    defreducer(_p)
del _p
nondiff(reduce_and_p, reduce_or_p)
reduce_sum = _reduce(reduce_sum_p)
reduce_prod = _reduce(reduce_prod_p)
reduce_max = _reduce(reduce_max_p)
reduce_min = _reduce(reduce_min_p)
reduce_and = _reduce(reduce_and_p)
reduce_or = _reduce(reduce_or_p)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    if is_zero(ct):
        return [None]
    shape = x.aval.shape
    axes = tuple(a % len(shape) for a in axes) if shape else ()
    keep = tuple(d for d in range(len(shape)) if d not in axes)
    return [broadcast_in_dim(ct, shape, keep)]


deflinear(reduce_sum_p, _reduce_sum_transpose)
_reduce_sum_shape = reduce_sum_p.abstract_eval


def _reduce_sum_abstract_eval(x, *, axes, out_sharding=None):
    # jax_allow_f16_reductions=False refuses summing several float16/bfloat16 values
    if x.dtype in (np.float16, dtypes.bfloat16) and \
            not config.read("jax_allow_f16_reductions") and \
            any(x.shape[a] != 1 for a in axes):
        raise ValueError(f"reduce_sum on operand {x.str_short(True)} is not allowed when "
                         "jax_allow_f16_reductions=False.")
    return _reduce_sum_shape(x, axes=axes, out_sharding=out_sharding)


reduce_sum_p.def_abstract_eval(_reduce_sum_abstract_eval)


def _fold_axes(x, keep, axes, k):
    """x with its `axes` moved last and merged into one axis of size `k`."""
    shape = _aval(x).shape
    perm = keep + axes
    if perm != tuple(range(len(shape))):
        x = transpose(x, perm)
    new = tuple(shape[d] for d in keep) + (k,)
    return x if _aval(x).shape == new else reshape(x, new)


def _unfold_axes(xf, shape, keep, axes):
    """The inverse of `_fold_axes`: xf's last axis split into `axes`, moved back."""
    x = reshape(xf, tuple(shape[d] for d in keep + axes))
    perm = tuple(int(i) for i in np.argsort(keep + axes))
    return x if perm == tuple(range(len(shape))) else transpose(x, perm)


def _reduce_chooser_jvp(p, arg):
    """The tangent of the max (min): the mean of t over the elements equal to it (ties
    share, as JAX). XLA may evaluate x more than once with different rounding (an FMA
    contracted in one fusion only, e.g. in a fully unrolled scan body), so a mask
    `x == max(x)` and its count, computed in different fusions, can disagree (fuzz seed
    2103435: an all-false mask with a count of 1, a lost tangent; JAX's own
    `scan(unroll=n)` loses it too). So for floats the location is the element `arg`
    (argmax/argmin: one pass over x) picks -- a one-hot that every consumer reads the
    same -- unless more than one element compares equal (a tie, shared as JAX); a NaN
    result gives NaN tangents and NaN gradients everywhere, as JAX's rule evaluated
    op by op (its `jit` gives a 0 gradient there: XLA's select rewrite)."""
    def rule(primals, tangents, *, axes, out_sharding=None):
        lax = lax_ops()
        x, = primals
        t, = tangents
        out = bind(p, x, axes=axes)   # (JAX's reduce_max / reduce_min: no out_sharding)
        if is_zero(t):
            return out, core.Zero(_aval(out))
        shape = _aval(x).shape
        axes_ = tuple(sorted(a % len(shape) for a in axes)) if shape else ()
        keep = tuple(d for d in range(len(shape)) if d not in axes_)
        k = int(np.prod([shape[a] for a in axes_], dtype=np.int64))
        loc = bind(ew.eq_p, x, broadcast_in_dim(out, shape, keep))
        if k and dtypes.is_float(_aval(x).dtype):
            # the one-hot of `arg` along the folded axes, unfolded to x's layout
            i32 = dtypes.int32
            xf = _fold_axes(x, keep, axes_, k)
            full_shape, ax = _aval(xf).shape, len(keep)
            keep_dims = tuple(range(ax))
            at = lax.eq(lax.broadcasted_iota(i32, full_shape, ax),
                        broadcast_in_dim(arg(xf, ax, i32), full_shape, keep_dims))
            at = _unfold_axes(at, shape, keep, axes_)
            tie = lax.gt(reduce_sum(convert_element_type(loc, i32), axes_), np.int32(1))
            loc = lax.select(broadcast_in_dim(tie, shape, keep), loc, at)
            # A NaN result has no location: JAX's mask is all false, 0/0 and inf*0 give
            # NaN tangents and cotangents. XLA rewrites `mul(g, convert(mask))` into a
            # select, which would make that cotangent 0, so the NaN is in the weights.
            is_num = broadcast_in_dim(lax.eq(out, out), shape, keep)
            locf = lax.select(is_num, convert_element_type(loc, _aval(x).dtype),
                              lax.full_like(x, np.nan))
        else:
            locf = convert_element_type(loc, _aval(x).dtype)
        # JAX's form: sums over x's own axes (a sum over the folded axis rounds otherwise)
        counts = reduce_sum(locf, axes_)
        return out, bind(ew.div_p, reduce_sum(bind(ew.mul_p, t, locf), axes_), counts)
    p.jvp = rule


_reduce_chooser_jvp(reduce_max_p, lambda x, ax, dt: lax_ops().argmax(x, ax, dt))
_reduce_chooser_jvp(reduce_min_p, lambda x, ax, dt: lax_ops().argmin(x, ax, dt))


def mul_jvp_pair(xa, ta, xb, tb):
    """JAX's jvp of `mul` on (value, tangent) pairs: (xa * xb, ta * xb + xa * tb)."""
    return bind(ew.mul_p, xa, xb), bind(ew.add_any_p, bind(ew.mul_p, ta, xb),
                                        bind(ew.mul_p, xa, tb))


def _reduce_prod_jvp(primals, tangents, *, axes, out_sharding=None):
    """JAX's form: the reduced axes moved first and flattened, then halved repeatedly
    (the second half padded with 1 when odd) and the halves multiplied with `mul`'s
    jvp; the primal is that tree's product too, as JAX's."""
    x, = primals
    t, = tangents
    shape = _aval(x).shape
    axes_ = tuple(a % len(shape) for a in axes) if shape else ()
    rest = tuple(d for d in range(len(shape)) if d not in axes_)
    n = int(np.prod([shape[a] for a in axes_], dtype=np.int64))
    if is_zero(t) or n == 0:  # the empty product is the constant 1
        out = bind(reduce_prod_p, x, axes=axes)   # (JAX's reduce_prod: no out_sharding)
        return out, core.Zero(_aval(out))
    new = (n,) + tuple(shape[d] for d in rest)
    perm = axes_ + rest
    xs, ts = ((v if perm == tuple(range(len(shape))) else transpose(v, perm)) for v in (x, t))
    xs, ts = reshape(xs, new), reshape(ts, new)
    while n > 1:
        n1 = (n + 1) // 2
        x1, t1 = (slice_in_dim(v, 0, n1, axis=0) for v in (xs, ts))
        x2, t2 = (slice_in_dim(v, n1, n, axis=0) for v in (xs, ts))
        if n - n1 != n1:
            config = [(0, 1, 0)] + [(0, 0, 0)] * (len(new) - 1)
            dt = _aval(x).dtype
            x2, t2 = pad(x2, np.ones((), dt), config), pad(t2, np.zeros((), dt), config)
        xs, ts = mul_jvp_pair(x1, t1, x2, t2)
        n = n1
    return squeeze(xs, (0,)), squeeze(ts, (0,))


reduce_prod_p.jvp = _reduce_prod_jvp


class DotDims(tuple):
    """dot_general's dimension_numbers; prints as JAX does: (([1], [0]), ([], []))."""

    def __str__(self):
        (lc, rc), (lb, rb) = self
        return f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"


def dot_dims(contract, batch=((), ())) -> DotDims:
    (lc, rc), (lb, rb) = contract, batch
    return DotDims(((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))))


dot_general_p = core.new_primitive("dot_general")


def _dot_ae(x, y, *, dimension_numbers, precision=None, preferred_element_type=None,
            out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    for side, dims, a in (("lhs", tuple(lc) + tuple(lb), x), ("rhs", tuple(rc) + tuple(rb), y)):
        if any(not 0 <= d < a.ndim for d in dims) or len(set(dims)) != len(dims):
            raise ShapeError(f"dot_general: the {side} contracting and batch dimensions "
                             f"{list(dims)} must be distinct axes of an array of rank {a.ndim}")
    if len(lc) != len(rc) or len(lb) != len(rb) or any(
            x.shape[a] != y.shape[b] for a, b in zip(lc + lb, rc + rb)):
        raise ShapeError(f"dot_general: shapes {x.shape} and {y.shape} do not match along "
                         f"contracting dimensions {list(lc)}/{list(rc)} (batch "
                         f"{list(lb)}/{list(rb)})")
    batch = [x.shape[a] for a in lb]
    lfree = [d for i, d in enumerate(x.shape) if i not in lc and i not in lb]
    rfree = [d for i, d in enumerate(y.shape) if i not in rc and i not in rb]
    dt = _dot_dtype(x.dtype, y.dtype, preferred_element_type)
    if (preferred_element_type is not None and x.dtype == y.dtype and dt != x.dtype
            and not is_algorithm(precision) and not dtypes.issubdtype(x.dtype, np.floating)
            and _bit_width(dt) < _bit_width(x.dtype)):   # (JAX's check: XLA's MaybeUpcast)
        raise DTypeError(f"`preferred_element_type` must not be narrower than the original "
                         f"type, got preferred_element_type of {np.dtype(dt)} for result "
                         f"type of {x.dtype}.", hint="ask for a type at least as wide")
    return ShapedArray(batch + lfree + rfree, dt, x.weak_type and y.weak_type)


def _dot_dtype(x_dtype, y_dtype, preferred_element_type):
    """dot_general's result dtype: `preferred_element_type`, else (None, as `lax.dot` and
    `lax.dot_general` leave it) the operands' promoted dtype, as JAX's dtype rule."""
    if preferred_element_type is not None:
        return np.dtype(preferred_element_type)
    return x_dtype if x_dtype == y_dtype else dtypes.promote((x_dtype, False),
                                                              (y_dtype, False))[0]


def _bit_width(dt) -> int:
    """Bits of one value of `dt` as XLA counts them (complex: of one part; bool: 1)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return 1
    return dt.itemsize * (4 if dt.kind == "c" else 8)


def _dot_impl(x, y, *, dimension_numbers, precision=None, preferred_element_type=None,
              out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    x, y = np.asarray(x), np.asarray(y)
    lfree = [i for i in range(x.ndim) if i not in lc and i not in lb]
    rfree = [i for i in range(y.ndim) if i not in rc and i not in rb]
    xt = np.transpose(x, list(lb) + lfree + list(lc))
    yt = np.transpose(y, list(rb) + list(rc) + rfree)
    nb = len(lb)
    bshape = xt.shape[:nb]
    m = int(np.prod(xt.shape[nb:nb + len(lfree)], dtype=np.int64))
    k = int(np.prod(xt.shape[nb + len(lfree):], dtype=np.int64))
    n = int(np.prod(yt.shape[nb + len(rc):], dtype=np.int64))
    acc = np.float64 if dtypes.is_float(x.dtype) else None
    out_dtype = result_dtype = _dot_dtype(x.dtype, y.dtype, preferred_element_type)
    if is_algorithm(precision):
        # round the operands to the algorithm's types, and the sum to its accumulator
        lt, rt, acc_t = compute_types(precision, x.dtype, y.dtype, out_dtype)
        xt, yt = xt.astype(lt).astype(np.float64), yt.astype(rt).astype(np.float64)
        out_dtype = acc_t or out_dtype
    r = np.matmul(xt.reshape(bshape + (m, k)).astype(acc or x.dtype),
                  yt.reshape(bshape + (k, n)).astype(acc or y.dtype))
    out = r.reshape(bshape + xt.shape[nb:nb + len(lfree)] + yt.shape[nb + len(rc):])
    return out.astype(out_dtype).astype(result_dtype)


def _algorithm_attribute(ctx, algorithm, lhs_dtype, rhs_dtype):
    fields = attribute_types(algorithm, lhs_dtype, rhs_dtype)
    if fields is None:
        return {}
    *types, lcc, rcc, passes, imprecise = fields
    lt, rt, at = (t if isinstance(t, str) else ctx.elt(t) for t in types)
    return {"algorithm": f"#stablehlo.dot_algorithm<lhs_precision_type = {lt}, "
                         f"rhs_precision_type = {rt}, accumulation_type = {at}, "
                         f"lhs_component_count = {lcc}, rhs_component_count = {rcc}, "
                         f"num_primitive_operations = {passes}, allow_imprecise_accumulation"
                         f" = {str(bool(imprecise)).lower()}>"}


def _dot_lowering(ctx, x, y, *, dimension_numbers, precision=None,
                  preferred_element_type=None, out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    a, b = ctx.avals_in
    out = ctx.avals_out[0]
    acc = out
    algorithm = {}
    if is_algorithm(precision):
        # JAX's lowering: the operands are converted to the algorithm's types and the
        # result from its accumulator; the platform must honour the algorithm
        check_platform(precision, ctx.platform)
        lt, rt, at = compute_types(precision, a.dtype, b.dtype, out.dtype)
        if lt != a.dtype:
            x = ctx.op1("stablehlo.convert", [x], a.update(dtype=lt))
        if rt != b.dtype:
            y = ctx.op1("stablehlo.convert", [y], b.update(dtype=rt))
        acc = out.update(dtype=at or out.dtype)
        algorithm = _algorithm_attribute(ctx, precision, lt, rt)
    else:
        # as JAX lowers it on CPU and GPU: operands of one dtype feed the result type
        # directly (bf16 products keep their rounding; float operands with an integer
        # `preferred_element_type` are multiplied as floats), mixed ones are converted
        if a.dtype != b.dtype:
            x = ctx.op1("stablehlo.convert", [x], a.update(dtype=out.dtype))
            y = ctx.op1("stablehlo.convert", [y], b.update(dtype=out.dtype))
    dn = (f"#stablehlo.dot<lhs_batching_dimensions = [{', '.join(map(str, lb))}], "
          f"rhs_batching_dimensions = [{', '.join(map(str, rb))}], "
          f"lhs_contracting_dimensions = [{', '.join(map(str, lc))}], "
          f"rhs_contracting_dimensions = [{', '.join(map(str, rc))}]>")
    attrs = {"dot_dimension_numbers": dn, "precision_config": precision_config_attribute(precision)}
    attrs.update(algorithm)
    r = ctx.op1("stablehlo.dot_general", [x, y], acc, attrs=attrs)
    if acc.dtype != out.dtype:
        r = ctx.op1("stablehlo.convert", [r], out)
    return laid_out(ctx, r, out_sharding)


register(dot_general_p, impl=_dot_impl, abstract_eval=_dot_ae, lowering=_dot_lowering)


def _ranges_like(*xs):
    start = 0
    for x in xs:
        x_len = len(x)
        yield range(start, start + x_len)
        start += x_len


def _remaining(original, *removed_lists):
    removed = set()
    for r in removed_lists:
        removed |= set(r)
    return [i for i in original if i not in removed]


def _dot_transpose_lhs(ct, x_aval, y, *, dimension_numbers, preferred_element_type=None,
                       swap_ans=False, **params):
    # JAX 0.10.2's formula (same product, same operand order, then a transpose), so
    # the cotangent's bits are JAX's; `swap_ans`: x is the product's right operand
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_ndim = x_aval.ndim
    y_aval = _aval(y)
    x_kept = _remaining(range(x_ndim), x_contract, x_batch)
    y_kept = _remaining(range(y_aval.ndim), y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, y_kept), (ans_batch, y_batch))
    x_contract_sorted_by_y = list(np.take(x_contract, np.argsort(y_contract)))
    unsorted_axes = list(x_batch) + x_kept + x_contract_sorted_by_y
    out_axes = np.argsort(unsorted_axes)
    ct = convert_element_type(ct, y_aval.dtype) if _aval(ct).dtype != y_aval.dtype else ct
    d = dot_general(ct, y, ((tuple(dims[0][0]), tuple(dims[0][1])),
                            (tuple(dims[1][0]), tuple(dims[1][1]))),
                    params.get("precision"), preferred_element_type=x_aval.dtype)
    return transpose(d, tuple(int(a) for a in out_axes))


def _dot_transpose_rhs(ct, x, y_aval, *, dimension_numbers, preferred_element_type=None,
                       **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_aval = _aval(x)
    x_kept = _remaining(range(x_aval.ndim), x_contract, x_batch)
    sizes = [x_aval.shape[a] for a in x_kept]   # (a symbolic size: a sum, as JAX's)
    if not all(type(d) is int for d in sizes) or int(np.prod(sizes, dtype=np.int64)) != 1:
        # a real sum over x's free axes: JAX's formula (the lhs rule, operands swapped),
        # whose summation order XLA keeps -- so the bits are JAX's
        return _dot_transpose_lhs(ct, y_aval, x, dimension_numbers=(
            (y_contract, x_contract), (y_batch, x_batch)), swap_ans=True, **params)
    # An outer product (each element one x * ct, the same bits in either operand
    # order): dot_general(x, ct), its free axes in y's axis order for the usual layouts
    # (a weight [contracting..., kept...]), so no transpose follows. XLA folds JAX's
    # transpose into a real matrix product, but not into the outer product a
    # per-example weight gradient is (vmap of a one-row `x @ W`): there it became a
    # transposing fusion plus a copy per weight.
    y_kept = _remaining(range(y_aval.ndim), y_contract, y_batch)
    ans_batch, ans_x, _ = _ranges_like(x_batch, x_kept, y_kept)
    # the product's axes: batch (paired as x_batch), x's contracting axes in x's order
    # (each is one of y's contracting axes), then ct's axes of y_kept, in y's order
    y_of_x = dict(zip(x_contract, y_contract))
    axes = list(y_batch) + [y_of_x[a] for a in sorted(x_contract)] + y_kept
    ct = convert_element_type(ct, x_aval.dtype) if _aval(ct).dtype != x_aval.dtype else ct
    d = dot_general(x, ct, ((tuple(x_kept), tuple(ans_x)), (tuple(x_batch), tuple(ans_batch))),
                    params.get("precision"), preferred_element_type=y_aval.dtype)
    if axes == list(range(y_aval.ndim)):
        return d
    return transpose(d, tuple(int(a) for a in np.argsort(axes)))


def _dot_general_batch(args, dims, *, dimension_numbers, **params):
    lhs, rhs = args
    ld, rd = dims
    (lc, rc), (lb, rb) = dimension_numbers
    la, ra = _aval(lhs), _aval(rhs)
    if ld is not None and rd is not None:
        lhs, rhs = moveaxis(lhs, ld, 0), moveaxis(rhs, rd, 0)
        dn = dot_dims(([c + 1 for c in lc], [c + 1 for c in rc]),
                      ([0] + [b + 1 for b in lb], [0] + [b + 1 for b in rb]))
        out_d = 0
    elif ld is not None:
        lc2, lb2 = [shift_axis(c, ld) for c in lc], [shift_axis(b, ld) for b in lb]
        dn = dot_dims((lc2, rc), (lb2, rb))
        free = [i for i in range(la.ndim) if i not in lc2 and i not in lb2]
        out_d = len(lb) + free.index(ld)
    else:
        rc2, rb2 = [shift_axis(c, rd) for c in rc], [shift_axis(b, rd) for b in rb]
        dn = dot_dims((lc, rc2), (lb, rb2))
        n_lfree = la.ndim - len(lc) - len(lb)
        free = [i for i in range(ra.ndim) if i not in rc2 and i not in rb2]
        out_d = len(lb) + n_lfree + free.index(rd)
    if params.get("out_sharding") is not None:
        params = dict(params, out_sharding=batched_layout(params["out_sharding"], out_d))
    return bind(dot_general_p, lhs, rhs, dimension_numbers=dn, **params), out_d


def _dot_source(gen, eqn):
    x, y = eqn.invars
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    pet = eqn.params.get("preferred_element_type")
    same = pet is None or np.dtype(pet) == x.aval.dtype == y.aval.dtype
    if (same and eqn.params.get("precision") is None and not lb and not rb
            and x.aval.ndim in (1, 2) and y.aval.ndim in (1, 2)
            and tuple(lc) == (x.aval.ndim - 1,) and tuple(rc) == (0,)
            and isinstance(x, core.Var) and isinstance(y, core.Var)):
        return ast.BinOp(left=gen.arg(x), op=ast.MatMult(), right=gen.arg(y))
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    kw = {}
    if pet is not None and np.dtype(pet) != x.aval.dtype:
        kw["preferred_element_type"] = dtype_expr(pet)
    if eqn.params.get("precision") is not None:
        kw["precision"] = gen.value(source_value(eqn.params["precision"]))
    return lax_call("dot_general", gen, eqn, gen.value(dn), **kw)


register(dot_general_p, **bilinear(dot_general_p, _dot_transpose_lhs, _dot_transpose_rhs),
         batch=_dot_general_batch, source=_dot_source)
# printed as JAX's pp rule: None params hidden, out_sharding implied by the result type
dot_general_p.pp_shown = lambda params: {k: v for k, v in params.items()
                                         if v is not None and k != "out_sharding"}


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    """`lax.dot_general`: contract ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)).
    `out_sharding` (a NamedSharding, or a PartitionSpec under `set_mesh`) lays the
    result out: in a partitioned program, and as its type on an Explicit mesh."""
    (lc, rc), (lb, rb) = dimension_numbers
    # JAX's params: all four keys always, None where the caller gave none
    return bind(dot_general_p, lhs, rhs, dimension_numbers=dot_dims((lc, rc), (lb, rb)),
                precision=canonicalize_precision(precision),
                preferred_element_type=(None if preferred_element_type is None else
                                        dtypes.canonicalize(preferred_element_type)),
                out_sharding=(None if out_sharding is None else
                              out_layout(out_sharding, "dot_general")))


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
    """`lax.dot` (JAX 0.10.2's signature: everything after the operands by keyword):
    `dot_general` with `dimension_numbers`, which may be left out for a vector/matrix
    product of rank-1 or rank-2 operands. `precision` is a `Precision` (or pair), a
    `DotAlgorithmPreset` (or its name) or a `DotAlgorithm`."""
    if dimension_numbers is None:
        ls, rs = _aval(lhs).shape, _aval(rhs).shape
        if not (1 <= len(ls) <= 2 and 1 <= len(rs) <= 2 and ls[-1] == rs[0]):
            raise ArgumentValueError(
                "jax.lax.dot: dimension_numbers must be specified when not performing simple"
                " un-batched matrix-matrix, matrix-vector, or vector-vector products;"
                f" got lhs_shape={ls} rhs_shape={rs}")
        dimension_numbers = (((len(ls) - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                       out_sharding=out_sharding)
