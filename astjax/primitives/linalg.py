"""The triangular linear-algebra primitives: `cholesky` and `triangular_solve`.
Both take batched operands (leading dimensions are batch). On CPU they lower to
LAPACK's potrf (NaN where the matrix is not positive definite) and trsm custom calls
(primitives/lapack.py), as JAX does; on CUDA cholesky to cuSOLVER's potrf
(primitives/cusolver.py, as the other primitives here: gtsv2, syrk, JAX's
cholesky_update kernel); elsewhere to `stablehlo.cholesky` and
`stablehlo.triangular_solve`. The factorizations (LU, QR, eigh, SVD, eig, Schur)
are in primitives/factorizations.py.

Each block also holds the jvp/transpose and batch rule (leading batch dimensions:
`deffront`); both print through the generic `bind` form.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import NotImplementedInAstjaxError, ShapeError, ShapeValueError
from . import elementwise as ew
from . import cusolver, generic_linalg, lapack
from .elementwise import conj_p
from .base import (FLOAT, INEXACT, add_tangents, check_dtype, deffront, is_zero, lax_ops,
                   lowering_from, mark_unsupported, register, weak_const)
from .base import tangent_aval as _aval
from .reductions import dot_general
from .selection import select
from .slicing import slice as slice_
from .concat_pad import pad
from .structural import broadcast_in_dim, broadcasted_iota, full, full_like, transpose

__all__ = ["cholesky_p", "triangular_solve_p", "tridiagonal_solve_p", "tridiagonal_solve",
           "symmetric_product_p", "symmetric_product", "cholesky_update_p", "cholesky_update"]

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
            L = np.full(a.shape, lapack.nan_of(a.dtype), a.dtype)
    L = L.astype(a.dtype)
    return L if lower else np.conj(np.swapaxes(L, -1, -2))


def _cholesky_lowering(ctx, a, *, lower=True):
    # XLA leaves the other triangle unspecified: zero it, as JAX does
    aval = ctx.avals_in[0]
    if ctx.platform in ("cpu",) + cusolver.GPU_PLATFORMS and \
            np.dtype(aval.dtype) in lapack.LAPACK_DTYPES:
        info = lapack.info_aval(aval)
        out, status = lapack.lapack_call(ctx, "potrf", [a], [aval], [aval, info],
                                         aliases={0: 0}, uplo="L" if lower else "U")
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
                                  aliases={1: 0}, side="L" if left_side else "R", uplo="L" if lower else "U",
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
    ts = []   # JAX's order: the matrix's tangent first, then the right-hand side's
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
        da = bind(ew.neg_p, da)
        if params.get("transpose_a"):
            nd = _aval(a).ndim
            da = transpose(da, tuple(range(nd - 2)) + (nd - 1, nd - 2))
        if params.get("conjugate_a") and np.issubdtype(_aval(a).dtype, np.complexfloating):
            da = bind(ew.conj_p, da)
        nb = _aval(a).ndim - 2
        batch = (tuple(range(nb)), tuple(range(nb)))

        def dot(u, v):
            return dot_general(u, v, (((nb + 1,), (nb,)), batch))

        def a_inverse(rhs):
            return bind(triangular_solve_p, a, rhs, **params)
        # JAX's order, the cheaper one: op(A)^-1 (-dA X) when b has more rows than
        # columns, else (op(A)^-1 (-dA)) X (and mirrored on the right): other roundings
        m, k = _aval(b).shape[-2:]
        if params.get("left_side"):
            ts.append(a_inverse(dot(da, x)) if m > k else dot(a_inverse(da), x))
        else:
            ts.append(a_inverse(dot(x, da)) if m < k else dot(x, a_inverse(da)))
    if not is_zero(tb):
        ts.append(bind(triangular_solve_p, a, tb, **params))
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

# ---- tridiagonal_solve ---------------------------------------------------------------
# A X = B for tridiagonal A given by its three diagonals (..., m): dl[i] = A[i, i-1]
# (dl[0] unused), d[i] = A[i, i], du[i] = A[i, i+1] (du[m-1] unused). LAPACK's gtsv on
# CPU (NaN where A is singular, as JAX). Linear in b: the transpose solves with A^T,
# whose diagonals are du and dl shifted by one.
tridiagonal_solve_p = core.new_primitive("tridiagonal_solve")


def _tds_ae(dl, d, du, b, *, perturb_singular=False):
    check_dtype("tridiagonal_solve", INEXACT, dl, d, du, b)
    if len({dl.dtype, d.dtype, du.dtype, b.dtype}) != 1:
        raise ShapeError("tridiagonal_solve needs one dtype, got "
                         f"{dl.dtype}, {d.dtype}, {du.dtype} and {b.dtype}")
    if dl.shape != d.shape or dl.shape != du.shape:
        raise ShapeError("tridiagonal_solve requires that all diagonal arguments have the "
                         f"same shape, got {dl.shape}, {d.shape} and {du.shape}")
    if b.ndim < 2 or dl.shape != b.shape[:-1]:
        raise ShapeError("tridiagonal_solve requires that the leading ndim-1 dimensions of "
                         f"b equal the dimensions of the diagonal arguments, got b {b.shape} "
                         f"and diagonals {dl.shape}")
    return ShapedArray(b.shape, b.dtype)


def _tridiagonal_dense(dl, d, du):
    m = d.shape[-1]
    a = np.zeros(d.shape + (m,), d.dtype)
    i = np.arange(m)
    a[..., i, i] = d
    a[..., i[1:], i[:-1]] = dl[..., 1:]
    a[..., i[:-1], i[1:]] = du[..., :-1]
    return a


def _safe_pivot(piv, row, perturb, dt):
    """A pivot below one moved away from zero (by `perturb`, doubling) until
    `row / piv` cannot overflow, or, when it is tiny but `row` is too, both scaled
    up by 1/safemin (LAPACK xLAGTS's rule)."""
    info = np.finfo(dt)
    safemin = max(float(info.tiny), (1 / float(info.max)) * (1 + float(info.eps)))
    bignum = 1 / safemin
    if abs(piv) >= 1:
        return piv, row
    perturb = np.copysign(max(abs(perturb), safemin), np.real(piv))
    big = float(np.abs(row).max()) if row.size else 0.0
    while abs(piv) < 1:
        if abs(piv) < safemin and (piv == 0 or big * safemin > abs(piv)) or \
                safemin <= abs(piv) and big > abs(piv) * bignum:
            piv, perturb = piv + perturb, perturb * 2
        elif abs(piv) < safemin:
            return piv * bignum, row * bignum
        else:
            break
    return piv, row


def _perturbed_solve(a, b):
    """a^-1 b by Gaussian elimination with partial pivoting, where the back
    substitution moves a tiny pivot of U away from zero on the scale of
    eps * max|U| (`_safe_pivot`): a finite answer for a numerically singular `a`,
    the solution of a nearby system (what jaxlib's perturbing kernel computes, up to
    the choice of pivots and the size of the perturbation)."""
    n = a.shape[0]
    u, x = a.copy(), b.copy()
    for k in range(n - 1):
        if abs(u[k + 1, k]) > abs(u[k, k]):
            u[[k, k + 1]], x[[k, k + 1]] = u[[k + 1, k]], x[[k + 1, k]]
        if u[k, k] != 0:
            f = u[k + 1, k] / u[k, k]
            u[k + 1] -= f * u[k]
            x[k + 1] -= f * x[k]
    perturb = np.finfo(a.dtype).eps * float(np.abs(u).max(initial=0))
    for k in range(n - 1, -1, -1):
        piv, row = _safe_pivot(u[k, k], x[k] - u[k, k + 1:] @ x[k + 1:], perturb, a.dtype)
        x[k] = row / piv
    return x


def _tds_impl(dl, d, du, b, *, perturb_singular=False):
    dl, d, du, b = map(np.asarray, (dl, d, du, b))
    a = _tridiagonal_dense(dl, d, du)
    out = np.empty_like(b)
    for idx in np.ndindex(b.shape[:-2]):
        if perturb_singular:
            out[idx] = _perturbed_solve(a[idx], b[idx])
            continue
        try:
            out[idx] = np.linalg.solve(a[idx], b[idx])
        except np.linalg.LinAlgError:
            out[idx] = np.nan
    return out


_tds_generic = lowering_from(generic_linalg.thomas_solve)   # (JAX's for other platforms)


def _tds_lowering(ctx, dl, d, du, b, *, perturb_singular=False):
    b_aval = ctx.avals_in[3]
    if lapack.generic_platform(ctx):
        if perturb_singular:
            raise NotImplementedInAstjaxError(
                "perturb_singular=True is not supported on this platform.",
                hint="JAX's lowering for this platform solves without perturbing")
        return _tds_generic(ctx, dl, d, du, b)
    if ctx.platform in cusolver.GPU_PLATFORMS:
        return cusolver.tridiagonal_solve(ctx, dl, d, du, b, perturb_singular)
    if perturb_singular:   # jaxlib's own kernel (not LAPACK's gtsv): never NaN
        x, = lapack.lapack_call(ctx, "tridiagonal_solve_perturbed", [dl, d, du, b],
                                ctx.avals_in, [b_aval],
                                target_name="tridiagonal_solve_perturbed_ffi")
        return x
    info = lapack.info_aval(b_aval)
    *_, x, status = lapack.lapack_call(ctx, "gtsv", [dl, d, du, b], ctx.avals_in,
                                       list(ctx.avals_in) + [info],
                                       aliases={0: 0, 1: 1, 2: 2, 3: 3})
    return lapack.nan_unless(ctx, lapack.info_ok(ctx, status, info), info, x, b_aval)


def _tridiagonal_product(dl, d, du, x):
    """A @ x for the tridiagonal A of (dl, d, du) and x (..., m, n)."""
    a = _aval(x)
    nd, (m, n) = a.ndim, a.shape[-2:]
    batch = a.shape[:-2]

    def col(v):   # (..., m) -> (..., m, n)
        return broadcast_in_dim(v, a.shape, tuple(range(nd - 1)))

    def rows(v, lo, hi):
        return slice_(v, (0,) * (nd - 2) + (lo, 0), batch + (hi, n))

    zero = np.zeros((), a.dtype)
    no_pad = [(0, 0, 0)] * (nd - 2)
    y = bind(ew.mul_p, col(d), x)
    if m > 1:
        below = bind(ew.mul_p, rows(col(dl), 1, m), rows(x, 0, m - 1))
        above = bind(ew.mul_p, rows(col(du), 0, m - 1), rows(x, 1, m))
        y = bind(ew.add_p, y, pad(below, zero, no_pad + [(1, 0, 0), (0, 0, 0)]))
        y = bind(ew.add_p, y, pad(above, zero, no_pad + [(0, 1, 0), (0, 0, 0)]))
    return y


def _tds_jvp(primals, tangents, *, perturb_singular=False):
    dl, d, du, b = primals
    x = bind(tridiagonal_solve_p, dl, d, du, b, perturb_singular=perturb_singular)
    tdl, td, tdu, tb = tangents
    rhs = tb
    if not (is_zero(tdl) and is_zero(td) and is_zero(tdu)):
        dense = [full_like(v, 0) if is_zero(t) else t for v, t in zip((dl, d, du),
                                                                     (tdl, td, tdu))]
        prod = bind(ew.neg_p, _tridiagonal_product(*dense, x))
        rhs = prod if is_zero(tb) else add_tangents(tb, prod)
    if is_zero(rhs):
        return x, core.Zero(_aval(x))
    return x, bind(tridiagonal_solve_p, dl, d, du, rhs, perturb_singular=perturb_singular)


def _tds_transpose(ct, dl, d, du, b, *, perturb_singular=False):
    if any(core.is_undefined(v) for v in (dl, d, du)):
        raise AssertionError("tridiagonal_solve is linear in b only")
    if is_zero(ct):
        return [None] * 4
    a = _aval(d)
    m, batch, nd = a.shape[-1], a.shape[:-1], a.ndim
    zero = np.zeros((), a.dtype)
    no_pad = [(0, 0, 0)] * (nd - 1)
    # A^T: its subdiagonal is du shifted down one, its superdiagonal dl shifted up one
    dl_t = pad(slice_(du, (0,) * nd, batch + (m - 1,)), zero, no_pad + [(1, 0, 0)])
    du_t = pad(slice_(dl, (0,) * (nd - 1) + (1,), batch + (m,)), zero, no_pad + [(0, 1, 0)])
    return [None, None, None, bind(tridiagonal_solve_p, dl_t, d, du_t, ct,
                                   perturb_singular=perturb_singular)]


register(tridiagonal_solve_p, impl=_tds_impl, abstract_eval=_tds_ae, lowering=_tds_lowering,
         jvp=_tds_jvp, transpose=_tds_transpose)
deffront(tridiagonal_solve_p)


def tridiagonal_solve(dl, d, du, b, *, perturb_singular=False):
    """`lax.linalg.tridiagonal_solve`: X with A X = b for the tridiagonal A of the
    diagonals dl (sub, dl[..., 0] unused), d and du (super, du[..., -1] unused), each
    (..., m); b is (..., m, n). A singular A gives NaN, unless `perturb_singular`:
    then pivots of its LU factorization below eps * max|U| are perturbed to that
    size, so a numerically singular system gets a finite (large) solution, as for
    inverse iteration (JAX's CPU kernel)."""
    return bind(tridiagonal_solve_p, dl, d, du, b, perturb_singular=bool(perturb_singular))


def _mT(x):
    nd = _aval(x).ndim
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))

# ---- symmetric_product ---------------------------------------------------------------
# alpha * A A^T + beta * C for A (..., m, n) and symmetric C (..., m, m) (BLAS syrk).
# Lowered as the matmul (JAX's generic lowering); JAX gives it no derivative rule.
symmetric_product_p = core.new_primitive("symmetric_product")


def _symprod_ae(a, c, *, alpha, beta):
    check_dtype("symmetric_product", FLOAT, a, c)
    if a.ndim < 2 or c.ndim < 2 or a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1] \
            or a.shape[:-2] != c.shape[:-2] or a.dtype != c.dtype:
        raise ShapeValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a "
                         f"square matrix of shape (n, n). Got shapes {a.shape} and {c.shape}.")
    return ShapedArray(c.shape, c.dtype)


def _symprod_impl(a, c, *, alpha, beta):
    a, c = np.asarray(a), np.asarray(c)
    return (alpha * (a @ np.swapaxes(a, -1, -2)) + beta * c).astype(c.dtype)


def _symprod_fn(a, c, *, alpha, beta):
    L = lax_ops()
    dt = _aval(a).dtype
    nd = _aval(a).ndim
    batch = tuple(range(nd - 2))
    aat = dot_general(a, _mT(a), (((nd - 1,), (nd - 2,)), (batch, batch)),
                      precision=L.Precision.HIGHEST)
    return L.add(L.mul(np.asarray(alpha, dt), aat), L.mul(np.asarray(beta, dt), c))


_symprod_generic = lowering_from(_symprod_fn)


def _symprod_lowering(ctx, a, c, *, alpha, beta):
    if ctx.platform == "cuda":   # cuBLAS syrk, as JAX
        return cusolver.symmetric_product(ctx, a, c, alpha, beta)
    return _symprod_generic(ctx, a, c, alpha=alpha, beta=beta)


register(symmetric_product_p, impl=_symprod_impl, abstract_eval=_symprod_ae,
         lowering=_symprod_lowering)
mark_unsupported(symmetric_product_p, "jvp",
                 "JAX defines no differentiation rule for symmetric_product")
deffront(symmetric_product_p)


def symmetric_product(a_matrix, c_matrix, *, alpha=1., beta=0., symmetrize_output=False):
    """`lax.linalg.symmetric_product`: alpha * A A^T + beta * C for A (..., m, n)
    and symmetric C (..., m, m); only the lower triangle is guaranteed, unless
    `symmetrize_output` fills the upper one with its transpose."""
    out = bind(symmetric_product_p, a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        out = _lower_part(out, 0)
        out = bind(ew.add_p, out, _mT(_lower_part(out, -1)))
    return out


def _lower_part(x, k):
    """x's elements on and below diagonal k of its trailing matrices, zeros above."""
    a = _aval(x)
    m, n = a.shape[-2:]
    keep = broadcast_in_dim(np.tri(m, n, k, dtype=bool), a.shape, (a.ndim - 2, a.ndim - 1))
    return select(keep, x, full_like(x, 0))

# ---- cholesky_update -----------------------------------------------------------------
# The upper Cholesky factor of A + w w^T given the upper factor R of A = R^T R: a
# rank-one update by Givens rotations (LAPACK's drotg, scaled against overflow),
# O(n^2). Lowered as that loop (JAX's generic lowering); JAX gives it neither a
# derivative nor a batching rule -- here leading batch dimensions are accepted.
cholesky_update_p = core.new_primitive("cholesky_update")


def _cholupd_ae(r, w):
    check_dtype("cholesky_update", FLOAT, r, w)
    if r.ndim < 2 or r.shape[-1] != r.shape[-2] or w.shape != r.shape[:-1] \
            or r.dtype != w.dtype:
        raise ShapeValueError(
            "Rank-1 update to Cholesky decomposition takes a square matrix and a vector of "
            f"the same size as input. Got shapes {r.shape} and {w.shape} instead")
    return ShapedArray(r.shape, r.dtype)


def _givens(x, y):
    """(c, s) with c x - s y = hypot and c y + s x = 0 (c = 1, s = 0 when y == 0)."""
    ax, ay = abs(x), abs(y)
    den = max(ax, ay)
    if y == 0:
        return 1.0, 0.0
    xs, ys = x / den, y / den
    rh = 1 / np.sqrt(xs * xs + ys * ys)
    return xs * rh, -ys * rh


def _cholupd_impl(r, w):
    r, w = np.array(r), np.array(w)
    for idx in np.ndindex(r.shape[:-2]):
        rr, ww = r[idx], w[idx]
        for k in range(rr.shape[0]):
            c, s = _givens(rr[k, k], ww[k])
            row = rr[k].copy()
            rr[k] = c * row - s * ww
            ww[:] = c * ww + s * row
    return r


def _cholupd_fn(r, w):
    L = lax_ops()
    ra = _aval(r)
    nd, n, dt = ra.ndim, ra.shape[-1], ra.dtype
    one, zero = np.asarray(1, dt), np.asarray(0, dt)

    def last(v, k):   # v[..., k]
        return L.index_in_dim(v, k, _aval(v).ndim - 1, keepdims=False)

    def per_row(v):   # (...) -> (..., n)
        return L.broadcast_in_dim(v, ra.shape[:-1], tuple(range(nd - 2)))
    for k in range(n):
        row = L.index_in_dim(r, k, nd - 2, keepdims=False)
        # R[k, k] sliced from R itself, not from `row`, as JAX's R[k, k]: XLA then fuses
        # as it fuses JAX's program (which gives JAX's last bits, FMAs included)
        x, y = last(L.index_in_dim(r, k, nd - 2, keepdims=False), k), last(w, k)
        ax, ay = L.abs(x), L.abs(y)
        den = L.select(L.gt(ax, ay), ax, ay)
        xs, ys = L.div(x, den), L.div(y, den)
        rh = L.div(L.full_like(y, one), L.sqrt(L.add(L.mul(xs, xs), L.mul(ys, ys))))
        is0 = L.eq(y, L.full_like(y, 0))
        c = per_row(L.select(is0, L.full_like(y, one), L.mul(xs, rh)))
        s = per_row(L.select(is0, L.full_like(y, zero), L.mul(L.neg(ys), rh)))
        new_row = L.sub(L.mul(c, row), L.mul(s, w))
        w = L.add(L.mul(c, w), L.mul(s, row))
        r = L.dynamic_update_slice(r, L.expand_dims(new_row, (nd - 2,)),
                                   (0,) * (nd - 2) + (k, 0))
    return r


_cholupd_generic = lowering_from(_cholupd_fn)


def _cholupd_lowering(ctx, r, w):
    if ctx.platform == "cuda" and ctx.avals_in[0].ndim == 2:   # jaxlib's kernel, as JAX
        return cusolver.cholesky_update(ctx, r, w)   # (one matrix: JAX has no batching)
    return _cholupd_generic(ctx, r, w)


register(cholesky_update_p, impl=_cholupd_impl, abstract_eval=_cholupd_ae,
         lowering=_cholupd_lowering)
mark_unsupported(cholesky_update_p, "jvp",
                 "JAX defines no differentiation rule for cholesky_update")
deffront(cholesky_update_p)


def cholesky_update(r_matrix, w_vector):
    """`lax.linalg.cholesky_update`: the upper Cholesky factor of A + w w^T, given
    the upper factor R of A = R^T R (r (..., n, n), w (..., n))."""
    return bind(cholesky_update_p, r_matrix, w_vector)
