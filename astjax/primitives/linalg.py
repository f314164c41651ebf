"""Linear-algebra primitives with native StableHLO ops: `cholesky` and
`triangular_solve` (XLA expands both into plain HLO on CPU, so no LAPACK custom
call is needed). Both take batched operands (leading dimensions are batch).

Factorizations that need LAPACK custom calls in JAX (LU, QR, eigh, SVD) are not
primitives here: `astjax.numpy.linalg` builds LU/QR from lax ops instead.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import ShapeError
from .base import INEXACT, check_dtype, register

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
            from .elementwise import conj_p
            a = core.lowering_rules[conj_p](ctx.__class__(ctx.mb, [ctx.avals_in[0]],
                                                          [ctx.avals_in[0]]), a)
    tf = lambda v: "true" if v else "false"  # noqa: E731
    return ctx.op1("stablehlo.triangular_solve", [a, b], attrs={
        "left_side": tf(left_side), "lower": tf(lower), "unit_diagonal": tf(unit_diagonal),
        "transpose_a": f"#stablehlo<transpose {kind}>"})


register(triangular_solve_p, impl=_ts_impl, abstract_eval=_ts_ae, lowering=_ts_lowering)
