"""JAX's platform-independent lowerings of the LAPACK-backed primitives, for a
platform it has no kernels for (`lapack.generic_platform`: a name it does not know,
e.g. `lower(lowering_platforms=('tpu2',))`): lax operations in loops, staged and
lowered inline by the primitives' own lowering rules (`linalg`, `householder`,
`factorizations`) as JAX's `mlir.lower_fun` rules are:

- `lu_factors`: LU with partial pivoting by rank-1 updates (JAX's `_lu_python`);
- `thomas_solve`: a tridiagonal system by elimination without pivoting (JAX's
  `_tridiagonal_solve_jax`);
- `ormqr_product`: a matrix times the Q of Householder reflectors, one reflector
  per step (JAX's `_ormqr_lowering`);
- `pad_columns`, `upper_triangle`: the operations of JAX's `qr` rule (`_qr_lowering`,
  the same on every platform) around its `geqrf` and `householder_product`.

JAX's `geqrf` and `householder_product` there are custom calls XLA's TPU backend
implements (`lapack.lapack_call`); the other primitives are its NotImplementedError.
No primitive is declared here.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from .base import lax_ops
from .base import tangent_aval as _aval

__all__ = ["lu_factors", "thomas_solve", "ormqr_product", "pad_columns", "upper_triangle"]


def lu_factors(a):
    """LU with partial pivoting (the largest magnitude, the first of equal ones) by
    rank-1 updates in a `fori_loop` over the columns, batched over the leading axes:
    the lowering for a platform without LAPACK kernels, as JAX has one (its
    `_lu_python`). -> [factors, pivots]."""
    L = lax_ops()
    av = _aval(a)
    nb, (m, n) = av.ndim - 2, av.shape[-2:]
    batch, k = tuple(range(nb)), min(m, n)
    real = np.finfo(av.dtype).dtype

    def full(shape, v, dtype=av.dtype):
        return L.full(shape, v, dtype)

    def along(x, shape, dims):   # x broadcast to `shape`, its axes at `dims`
        return L.broadcast_in_dim(x, shape, dims)

    rows, cols = (L.broadcasted_iota(np.int32, av.shape, nb + d) for d in (0, 1))
    rows1 = L.broadcasted_iota(np.int32, av.shape[:-1], nb)
    cols1 = L.broadcasted_iota(np.int32, av.shape[:-2] + (n,), nb)
    zero = full(av.shape, 0)

    def row_at(x, at):   # the row of x where `at` (a bool per element) holds
        return L.reduce_sum(L.select(at, x, zero), (nb,))

    def step(j, state):
        x, piv = state
        j_full, j_col, j_row = (along(j, sh, ()) for sh in (av.shape, rows1.shape, cols1.shape))
        col = L.reduce_sum(L.select(L.eq(cols, j_full), x, zero), (nb + 1,))
        mag = L.select(L.ge(rows1, j_col), L.convert_element_type(L.abs(col), real),
                       full(col.shape, -1, real))
        p = L.argmax(mag, nb, np.int32)
        at_j, at_p = L.eq(rows, j_full), L.eq(rows, along(p, av.shape, batch))
        row_j, row_p = row_at(x, at_j), row_at(x, at_p)
        x = L.select(at_j, along(row_p, av.shape, batch + (nb + 1,)),
                     L.select(at_p, along(row_j, av.shape, batch + (nb + 1,)), x))
        col = L.reduce_sum(L.select(L.eq(cols, j_full), x, zero), (nb + 1,))
        pivot = along(L.reduce_sum(L.select(L.eq(rows1, j_col), col, full(col.shape, 0)),
                                   (nb,)), col.shape, batch)
        scaled = L.select(L.ne(pivot, full(col.shape, 0)), L.div(col, pivot), col)
        l = L.select(L.gt(rows1, j_col), scaled, full(col.shape, 0))
        u = L.select(L.gt(cols1, j_row), row_p, full(cols1.shape, 0, av.dtype))
        update = L.mul(along(l, av.shape, batch + (nb,)), along(u, av.shape, batch + (nb + 1,)))
        below = L.bitwise_and(L.eq(cols, j_full), L.gt(rows, j_full))
        x = L.sub(L.select(below, along(l, av.shape, batch + (nb,)), x), update)
        at = L.eq(L.broadcasted_iota(np.int32, piv.shape, nb), along(j, piv.shape, ()))
        return x, L.select(at, along(p, piv.shape, batch), piv)
    return list(L.fori_loop(0, k, core.RawFunction(step),
                            (a, full(av.shape[:-2] + (k,), 0, np.int32))))


def thomas_solve(dl, d, du, b):
    """The Thomas algorithm (elimination without pivoting: a forward `scan` and a
    backward one along the system's axis): the lowering for a platform without LAPACK
    kernels, as JAX's."""
    L = lax_ops()
    ba = _aval(b)
    nd = ba.ndim
    to_front = (nd - 2, *range(nd - 2))       # (..., m) -> (m, ...)
    dl, d, du = (L.transpose(x, to_front) for x in (dl, d, du))
    b = L.transpose(b, (nd - 2, *range(nd - 2), nd - 1))   # (..., m, r) -> (m, ..., r)
    m = ba.shape[-2]

    def cols(v):   # (...) -> (..., r)
        return L.broadcast_in_dim(v, _aval(v).shape + (ba.shape[-1],), tuple(range(nd - 2)))

    def rows(x, start):   # x[start:]
        av = _aval(x)
        return L.slice(x, (start,) + (0,) * (av.ndim - 1), av.shape)

    def fwd(carry, args):
        cp, dp = carry
        a, bb, c, rhs = args
        denom = L.sub(bb, L.mul(a, cp))
        return (L.div(c, denom), L.div(L.sub(rhs, L.mul(cols(a), dp)), cols(denom))), (cp, dp)

    def head(x):   # x[0]
        av = _aval(x)
        return L.squeeze(L.slice(x, (0,) * av.ndim, (1,) + av.shape[1:]), (0,))
    first = (L.div(head(du), head(d)), L.div(head(b), cols(head(d))))
    (_, final), (cp, dp) = L.scan(core.RawFunction(fwd), first,
                                  (rows(dl, 1), rows(d, 1), rows(du, 1), rows(b, 1)))

    def bwd(xn, args):
        c, p = args
        return L.sub(p, L.mul(cols(c), xn)), xn
    end, ans = L.scan(core.RawFunction(bwd), final, (cp, dp), reverse=True)
    x = L.concatenate([L.expand_dims(end, (0,)), ans], 0) if m > 1 else L.expand_dims(end, (0,))
    return L.transpose(x, (*range(1, nd - 1), 0, nd - 1))


def ormqr_product(a, taus, c, *, left, transpose):
    """`c` multiplied by the reflectors' Q, one reflector at a time in a `fori_loop`
    (c - tau v (v^H c), or c - tau (c v) v^H), without forming Q: the lowering for a
    platform without LAPACK kernels, as JAX's."""
    L = lax_ops()
    av, cv = core.get_aval(a), core.get_aval(c)
    nb, k = av.ndim - 2, core.get_aval(taus).shape[-1]
    cplx = dtypes.issubdtype(av.dtype, np.complexfloating)
    shape = av.shape[:-1] + (k,)
    rows, cols = (L.broadcasted_iota(np.int32, shape, nb + d) for d in (0, 1))
    vs = L.slice(a, (0,) * av.ndim, shape)
    vs = L.add(L.select(L.gt(rows, cols), vs, L.full(shape, 0, av.dtype)),
               L.convert_element_type(L.eq(rows, cols), av.dtype))
    taus = L.conj(taus) if transpose and cplx else taus
    reverse = left != transpose
    batch = tuple(range(nb))

    def pick(x, idx, axis):   # x's entries at index `idx` of `axis`, that axis dropped
        at = L.eq(L.broadcasted_iota(np.int32, core.get_aval(x).shape, axis),
                  L.broadcast_in_dim(idx, core.get_aval(x).shape, ()))
        return L.reduce_sum(L.select(at, x, L.full_like(x, 0)), (axis,))

    def body(i, c):
        idx = L.sub(np.int32(k - 1), i) if reverse else i
        tau = L.broadcast_in_dim(pick(taus, idx, nb), cv.shape, batch)
        v = pick(vs, idx, nb + 1)
        vh = L.conj(v) if cplx else v
        if left:   # v (v^H c)
            vhc = L.reduce_sum(L.mul(L.broadcast_in_dim(vh, cv.shape, batch + (nb,)), c),
                               (nb,))
            update = L.mul(L.broadcast_in_dim(v, cv.shape, batch + (nb,)),
                           L.broadcast_in_dim(vhc, cv.shape, batch + (nb + 1,)))
        else:      # (c v) v^H
            cvv = L.reduce_sum(L.mul(c, L.broadcast_in_dim(v, cv.shape, batch + (nb + 1,))),
                               (nb + 1,))
            update = L.mul(L.broadcast_in_dim(cvv, cv.shape, batch + (nb,)),
                           L.broadcast_in_dim(vh, cv.shape, batch + (nb + 1,)))
        return L.sub(c, L.mul(tau, update))
    return L.fori_loop(0, k, core.RawFunction(body), c)


def pad_columns(ctx, x, aval, cols):
    """x's trailing matrices zero-padded on the right to `cols` columns, written even
    when there is nothing to pad (JAX's `lax.pad` of R in a complete `qr`).
    -> (ssa, aval)."""
    out = aval.update(shape=aval.shape[:-1] + (cols,))
    zero = ctx.constant(np.zeros((), aval.dtype), aval.update(shape=()))
    flat = ctx.i64([0] * aval.ndim)
    high = ctx.i64([0] * (aval.ndim - 1) + [cols - aval.shape[-1]])
    return ctx.op1("stablehlo.pad", [x, zero], out, {
        "edge_padding_low": flat, "edge_padding_high": high, "interior_padding": flat}), out


def upper_triangle(ctx, x, aval):
    """x's trailing matrices with zeros below the diagonal, as JAX's `_triu`: a 2-D
    mask `row - 1 >= col` (broadcast over the batch) selecting zeros."""
    nb = aval.ndim - 2
    mat = core.ShapedArray(aval.shape[nb:], dtypes.int32)
    rows = ctx.op1("stablehlo.iota", [], mat, {"iota_dimension": "0 : i64"})
    shift = ctx.constant(np.int32(-1), mat.update(shape=()))
    rows = ctx.op1("stablehlo.add", [rows, _splat(ctx, shift, mat)], mat)
    cols = ctx.op1("stablehlo.iota", [], mat, {"iota_dimension": "1 : i64"})
    mask = ctx.op1("stablehlo.compare", [rows, cols], mat.update(dtype=dtypes.bool_), {
        "comparison_direction": "#stablehlo<comparison_direction GE>",
        "compare_type": "#stablehlo<comparison_type SIGNED>"})
    if nb:
        mask = ctx.op1("stablehlo.broadcast_in_dim", [mask], aval.update(dtype=dtypes.bool_),
                       {"broadcast_dimensions": ctx.i64([nb, nb + 1])})
    zeros = _splat(ctx, ctx.constant(np.zeros((), aval.dtype), aval.update(shape=())), aval)
    return ctx.op1("stablehlo.select", [mask, zeros, x], aval)


def _splat(ctx, scalar, aval):
    return ctx.op1("stablehlo.broadcast_in_dim", [scalar], aval,
                   {"broadcast_dimensions": "array<i64>"})
