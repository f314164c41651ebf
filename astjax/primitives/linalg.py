"""The triangular linear-algebra primitives: `cholesky` and `triangular_solve`.
Both take batched operands (leading dimensions are batch). On CPU they lower to
LAPACK's potrf (NaN where the matrix is not positive definite) and trsm custom calls
(primitives/lapack.py), as JAX does; elsewhere to `stablehlo.cholesky` and
`stablehlo.triangular_solve`. The factorizations (LU, QR, eigh, SVD, eig, Schur)
are in primitives/factorizations.py.

Each block also holds the jvp/transpose and batch rule (leading batch dimensions:
`deffront`); both print through the generic `bind` form.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ShapeError
from . import elementwise as ew
from . import lapack
from .elementwise import conj_p
from .base import (INEXACT, add_tangents, check_dtype, deffront, is_zero, register,
                   weak_const)
from .base import tangent_aval as _aval
from .reductions import dot_general
from .selection import select
from .structural import broadcast_in_dim, broadcasted_iota, full, full_like, transpose

__all__ = ["cholesky_p", "triangular_solve_p"]

# ---- cholesky ----------------------------------------------------------------------
cholesky_p = core.new_primitive("cholesky")


def _cholesky_ae(a, *, lower=True):
    check_dtype("cholesky", INEXACT, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"cholesky needs square matrices (..., n, n), got {a.shape}")
    return ShapedArray(a.shape, a.dtype)


def _cholesky_impl(a, *, lower=True):
    a = np.asarray(a)
    with np.errstate(all="ignore"):
        try:
            L = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            L = np.full(a.shape, np.nan, a.dtype)
    L = L.astype(a.dtype)
    return L if lower else np.conj(np.swapaxes(L, -1, -2))


def _cholesky_lowering(ctx, a, *, lower=True):
    # XLA leaves the other triangle unspecified: zero it, as JAX does
    aval = ctx.avals_in[0]
    if ctx.platform == "cpu" and np.dtype(aval.dtype) in lapack.LAPACK_DTYPES:
        info = lapack.info_aval(aval)
        out, status = lapack.lapack_call(ctx, "potrf", [a], [aval], [aval, info],
                                         uplo="L" if lower else "U")
        out = lapack.nan_unless(ctx, lapack.info_ok(ctx, status, info), info, out, aval)
    else:
        out = ctx.op1("stablehlo.cholesky", [a], attrs={"lower": "true" if lower else "false"})
    ishape = aval.update(shape=aval.shape, dtype=dtypes.int32)
    r = ctx.op1("stablehlo.iota", [], ishape,
                attrs={"iota_dimension": f"{aval.ndim - 2} : i64"})
    c = ctx.op1("stablehlo.iota", [], ishape,
                attrs={"iota_dimension": f"{aval.ndim - 1} : i64"})
    direction = "GE" if lower else "LE"
    keep = ctx.op1("stablehlo.compare", [r, c], aval.update(dtype=dtypes.bool_), attrs={
        "comparison_direction": f"#stablehlo<comparison_direction {direction}>"})
    zero = ctx.broadcast(ctx.constant(0, aval.update(shape=())), aval.update(shape=()), aval)
    return ctx.op1("stablehlo.select", [keep, out, zero])


register(cholesky_p, impl=_cholesky_impl, abstract_eval=_cholesky_ae,
         lowering=_cholesky_lowering)

# ---- triangular_solve --------------------------------------------------------------
triangular_solve_p = core.new_primitive("triangular_solve")


def _ts_ae(a, b, *, left_side=False, lower=False, transpose_a=False, conjugate_a=False,
           unit_diagonal=False):
    check_dtype("triangular_solve", INEXACT, a, b)
    if a.dtype != b.dtype:
        raise ShapeError(f"triangular_solve needs one dtype, got {a.dtype} and {b.dtype}")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or b.ndim != a.ndim or \
            a.shape[:-2] != b.shape[:-2]:
        raise ShapeError(f"triangular_solve: a {a.shape} must be (..., m, m) and b "
                         f"{b.shape} have the same batch dimensions")
    m = a.shape[-1]
    if (b.shape[-2] if left_side else b.shape[-1]) != m:
        raise ShapeError(f"triangular_solve: b {b.shape} does not match a {a.shape} "
                         f"(left_side={left_side})")
    return ShapedArray(b.shape, b.dtype)


def _ts_impl(a, b, *, left_side=False, lower=False, transpose_a=False, conjugate_a=False,
             unit_diagonal=False):
    a, b = np.asarray(a), np.asarray(b)
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        idx = np.arange(a.shape[-1])
        t = t.copy()
        t[..., idx, idx] = 1
    if conjugate_a:
        t = np.conj(t)
    if transpose_a:
        t = np.swapaxes(t, -1, -2)
    with np.errstate(all="ignore"):
        if left_side:
            x = np.linalg.solve(t, b)
        else:  # x @ t = b  <=>  t^T x^T = b^T
            x = np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2)),
                            -1, -2)
    return x.astype(b.dtype)


def _ts_lowering(ctx, a, b, *, left_side=False, lower=False, transpose_a=False,
                 conjugate_a=False, unit_diagonal=False):
    if transpose_a:
        kind = "ADJOINT" if conjugate_a else "TRANSPOSE"
    else:
        kind = "NO_TRANSPOSE"
        if conjugate_a and dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating):
            a = conj_p.lowering(ctx.__class__(ctx.mb, [ctx.avals_in[0]],
                                                          [ctx.avals_in[0]]), a)
    a_aval, b_aval = ctx.avals_in
    if ctx.platform == "cpu" and np.dtype(a_aval.dtype) in lapack.LAPACK_DTYPES:
        trans = "N" if kind == "NO_TRANSPOSE" else ("T" if kind == "TRANSPOSE" else "C")
        out, = lapack.lapack_call(ctx, "trsm", [a, b], [a_aval, b_aval], [b_aval],
                                  side="L" if left_side else "R", uplo="L" if lower else "U",
                                  trans_x=trans, diag="U" if unit_diagonal else "N")
        return out
    tf = lambda v: "true" if v else "false"  # noqa: E731
    return ctx.op1("stablehlo.triangular_solve", [a, b], attrs={
        "left_side": tf(left_side), "lower": tf(lower), "unit_diagonal": tf(unit_diagonal),
        "transpose_a": f"#stablehlo<transpose {kind}>"})


register(triangular_solve_p, impl=_ts_impl, abstract_eval=_ts_ae, lowering=_ts_lowering)


def _ts_jvp(primals, tangents, **params):
    a, b = primals
    ta, tb = tangents
    x = bind(triangular_solve_p, a, b, **params)
    ts = []
    if not is_zero(tb):
        ts.append(bind(triangular_solve_p, a, tb, **params))
    if not is_zero(ta):
        # x = op(A)^-1 b (left) or b op(A)^-1 (right): dx = -op(A)^-1 op(dA) x
        lower = params.get("lower", False)
        unit = params.get("unit_diagonal", False)
        n = _aval(a).shape[-1]
        row = broadcasted_iota(np.int32, (n, n), 0)
        col = broadcasted_iota(np.int32, (n, n), 1)
        keep = bind(ew.ge_p, row, col) if lower else bind(ew.le_p, row, col)
        if unit:
            keep = bind(ew.and_p, keep, bind(ew.ne_p, row, col))
        keep = broadcast_in_dim(keep, _aval(a).shape, (_aval(a).ndim - 2, _aval(a).ndim - 1))
        da = select(keep, ta, full_like(ta, 0))
        if params.get("transpose_a"):
            nd = _aval(a).ndim
            da = transpose(da, tuple(range(nd - 2)) + (nd - 1, nd - 2))
        nb = _aval(a).ndim - 2
        batch = (tuple(range(nb)), tuple(range(nb)))
        if params.get("left_side"):
            prod = dot_general(da, x, (((nb + 1,), (nb,)), batch))
        else:
            prod = dot_general(x, da, (((nb + 1,), (nb,)), batch))
        ts.append(bind(ew.neg_p, bind(triangular_solve_p, a, prod, **params)))
    if not ts:
        return x, core.Zero(_aval(x))
    return x, ts[0] if len(ts) == 1 else add_tangents(ts[0], ts[1])


def _ts_transpose(ct, a, b, **params):
    if core.is_undefined(a):
        raise AssertionError("triangular_solve is not linear in its matrix")
    if is_zero(ct):
        return [None, None]
    p = dict(params, transpose_a=not params.get("transpose_a", False))
    return [None, bind(triangular_solve_p, a, ct, **p)]


register(triangular_solve_p, jvp=_ts_jvp, transpose=_ts_transpose)
deffront(triangular_solve_p)


def _cholesky_jvp(primals, tangents, *, lower=True):
    a, = primals
    t, = tangents
    L = bind(cholesky_p, a, lower=True)
    out = L if lower else _adjoint(L)
    if is_zero(t):
        return out, core.Zero(_aval(out))
    nd = _aval(a).ndim
    # dL = L phi(L^-1 dA L^-H), phi: the lower triangle with the diagonal halved (the
    # tangent is used as given: the public wrappers symmetrize their input, as JAX's)
    tmp = bind(triangular_solve_p, L, t, left_side=False, lower=True, transpose_a=True,
               conjugate_a=True, unit_diagonal=False)
    inner = bind(triangular_solve_p, L, tmp, left_side=True, lower=True, transpose_a=False,
                 conjugate_a=False, unit_diagonal=False)
    n = _aval(a).shape[-1]
    row = broadcasted_iota(np.int32, (n, n), 0)
    col = broadcasted_iota(np.int32, (n, n), 1)
    scale = select(bind(ew.gt_p, row, col), full((n, n), 1.0, _aval(a).dtype),
                   select(bind(ew.eq_p, row, col), full((n, n), 0.5, _aval(a).dtype),
                          full((n, n), 0.0, _aval(a).dtype)))
    phi = bind(ew.mul_p, inner, broadcast_in_dim(scale, _aval(a).shape, (nd - 2, nd - 1)))
    nb = nd - 2
    batch = (tuple(range(nb)), tuple(range(nb)))
    dL = dot_general(L, phi, (((nb + 1,), (nb,)), batch))
    return out, (dL if lower else _adjoint(dL))


def _adjoint(x):
    nd = _aval(x).ndim
    t = transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    return bind(conj_p, t) if dtypes.issubdtype(_aval(x).dtype, np.complexfloating) else t


cholesky_p.jvp = _cholesky_jvp
deffront(cholesky_p)
