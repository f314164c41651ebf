"""Matrix factorizations on LAPACK (`lax.linalg`): `lu`, `qr`, `eigh`, `svd`, `eig`
(`schur`: primitives/schur.py).

Each primitive takes a batch of matrices (leading dimensions are batch), lowers to
jaxlib's LAPACK kernels (primitives/lapack.py: getrf, geqrf + orgqr, syevd/heevd,
gesdd, geev, gees) as JAX does on CPU, with JAX's post-processing (0-based pivots and the
permutation, triangular R, NaN where LAPACK reports a failure), and has a NumPy
reference, JAX's JVP rule and a batch rule (the batch axis to the front: the
kernels loop over leading dimensions). Outputs come in JAX's order:

- `lu(a)` -> (lu, pivots, permutation); `qr(a, full_matrices)` -> (q, r);
- `eigh(a, lower, sort_eigenvalues)` -> (v, w) (eigenvectors in columns, ascending
  eigenvalues); `svd(a, full_matrices, compute_uv)` -> (s, u, vt) or (s,) (the
  `lax.linalg.svd` wrapper returns (u, s, vt) as JAX's does);
- `eig(a, compute_left_eigenvectors, compute_right_eigenvectors)` -> (w, [vl], [vr]).

The JVP rules are written with the `lax` wrappers of earlier families (`_mm`,
`_H`, ...: primitives/matrix_rules.py) and staged wherever the pass runs.
"""
from __future__ import annotations

import enum

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import (ArgumentTypeError, DifferentiationError, NotImplementedInAstjaxError,
                      ShapeError, ShapeValueError)
from . import cusolver, generic_linalg, lapack
from .base import (INEXACT, check_dtype, deffront, is_zero, lax_ops, lower_inline, lowering_from,
                   nondiff, register)
from .base import tangent_aval as _aval
from .gather import GatherDimensionNumbers, GatherScatterMode
from .linalg import triangular_solve_p
from .matrix_rules import (_H, _T, _as_col, _as_row, _cast, _const, _diag, _diag_matrix, _eye,
                           _is_complex, _mm, _nd, _slice, _tri, permute_rows)
from .while_loop import fori_loop

__all__ = ["lu_p", "qr_p", "eigh_p", "svd_p", "eig_p", "lu", "qr", "eigh", "svd",
           "eig", "lu_pivots_to_permutation", "lu_pivots_to_permutation_p",
           "EighImplementation", "SvdAlgorithm"]

# ---- helpers shared by the JVP rules -------------------------------------------------


def _ts(a, b, **kw):
    params = dict(left_side=False, lower=False, transpose_a=False, conjugate_a=False,
                  unit_diagonal=False)
    params.update(kw)
    return bind(triangular_solve_p, a, b, **params)


def _lu_solve(a, b):
    """a^-1 b for square a (through lu_p)."""
    lu_, _, perm = bind(lu_p, a)
    y = _ts(lu_, permute_rows(b, perm), left_side=True, lower=True, unit_diagonal=True)
    return _ts(lu_, y, left_side=True, lower=False)

def _lu_solve_h(a, b):
    """a^-H b for square a (JAX's `lu_solve(..., trans=2)` on `lu(a)`): U^H, then the
    unit L^H, then the rows back through the inverse permutation."""
    L = lax_ops()
    lu_, _, perm = bind(lu_p, a)
    y = _ts(lu_, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    y = _ts(lu_, y, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
            conjugate_a=True)
    pa = _aval(perm)
    _, inv = L.sort_key_val(perm, L.broadcasted_iota(np.int32, pa.shape, pa.ndim - 1))
    return permute_rows(y, inv)

# ---- lu_pivots_to_permutation ----------------------------------------------------------
# The row permutation (..., m) that the row swaps `pivots` (..., k), applied in order
# (i <-> pivots[i]), make of iota. Lowered as a loop over the swaps that reads and writes
# single elements (dynamic_slice / dynamic_update_slice; a gather and a select per batch
# row when there are batch dimensions), as JAX lowers it. A pivot is read as JAX's
# `perm[j]` / `perm.at[j].set(x)` reads it: negative wraps once, reads clamp, writes out
# of range are dropped. Integer-valued, so no derivative; leading batch dimensions.
lu_pivots_to_permutation_p = core.new_primitive("lu_pivots_to_permutation")


def _l2p_ae(pivots, *, permutation_size):
    if pivots.dtype != np.int32:
        raise ArgumentTypeError("lu_pivots_to_permutation takes int32 pivots, got "
                                f"{pivots.str_short(True)}")
    if pivots.ndim < 1:
        raise ShapeError("lu_pivots_to_permutation needs pivots of shape (..., k), got a "
                         "scalar")
    if permutation_size < pivots.shape[-1]:
        raise ShapeValueError(f"Output permutation size {permutation_size} has to exceed the "
                         f"trailing dimension of the pivots. Got pivots size "
                         f"{pivots.shape[-1]}")
    return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.dtype(np.int32))


def _l2p_impl(pivots, *, permutation_size):
    pivots = np.asarray(pivots)
    m = permutation_size
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), pivots.shape[:-1] + (m,)).copy()
    for idx in np.ndindex(pivots.shape[:-1]):
        row = perm[idx]
        for i, j in enumerate(pivots[idx]):
            j = int(j) + m if j < 0 else int(j)
            x, y = row[i], row[min(max(j, 0), m - 1)]
            row[i] = y
            if 0 <= j < m:
                row[j] = x
    return perm


def _l2p_fn(pivots, *, permutation_size):
    L = lax_ops()
    pa = _aval(pivots)
    k, m = pa.shape[-1], permutation_size
    batch = pa.shape[:-1]
    nb = len(batch)
    perm0 = L.broadcasted_iota(np.int32, batch + (m,), nb)
    if not (k and m):
        return perm0
    zeros = (0,) * nb
    column = batch + (1,)
    if nb:   # perm[b, j[b]] for each batch row b
        dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(nb,),
                                    start_index_map=(nb,), operand_batching_dims=tuple(range(nb)),
                                    start_indices_batching_dims=tuple(range(nb)))
        iota = L.broadcasted_iota(np.int32, batch + (m,), nb)

    def body(i, perm):
        j = L.dynamic_slice(pivots, zeros + (i,), column)
        j = L.select(L.lt(j, L.full_like(j, 0)), L.add(j, L.full_like(j, m)), j)
        x = L.dynamic_slice(perm, zeros + (i,), column)
        if not nb:   # a pivot still out of range after the shift is clamped, as JAX's
            jj = (L.reshape(j, ()),)
            y = L.dynamic_slice(perm, jj, (1,), allow_negative_indices=False)
            perm = L.dynamic_update_slice(perm, y, (i,))
            inside = L.bitwise_and(L.ge(j, L.full_like(j, 0)), L.lt(j, L.full_like(j, m)))
            old = L.dynamic_slice(perm, jj, (1,), allow_negative_indices=False)
            return L.dynamic_update_slice(perm, L.select(inside, x, old), jj,
                                          allow_negative_indices=False)
        y = L.gather(perm, j, dn, (1,) * (nb + 1), mode=GatherScatterMode.CLIP)
        perm = L.dynamic_update_slice(perm, L.reshape(y, column), zeros + (i,))
        at_j = L.eq(iota, L.broadcast_in_dim(L.reshape(j, batch), batch + (m,), tuple(range(nb))))
        return L.select(at_j, L.broadcast_in_dim(L.reshape(x, batch), batch + (m,),
                                                 tuple(range(nb))), perm)
    return fori_loop(0, k, core.RawFunction(body), perm0)


_l2p_generic = lowering_from(_l2p_fn)


def _l2p_lowering(ctx, pivots, *, permutation_size):
    if ctx.platform in cusolver.GPU_PLATFORMS:   # jaxlib's GPU kernel, as JAX
        return cusolver.lu_pivots_to_permutation(ctx, pivots)
    return _l2p_generic(ctx, pivots, permutation_size=permutation_size)


register(lu_pivots_to_permutation_p, impl=_l2p_impl, abstract_eval=_l2p_ae,
         lowering=_l2p_lowering)
nondiff(lu_pivots_to_permutation_p)
deffront(lu_pivots_to_permutation_p)


def lu_pivots_to_permutation(pivots, permutation_size):
    """`lax.linalg.lu_pivots_to_permutation`: the int32 permutation (..., m) of the
    row swaps `pivots` (int32, (..., k), k <= m = `permutation_size`), as `lu` gives
    them."""
    return bind(lu_pivots_to_permutation_p, pivots, permutation_size=int(permutation_size))

# ---- lu ------------------------------------------------------------------------------
lu_p = core.new_primitive("lu", multiple_results=True)


def _lu_ae(a):
    check_dtype("lu", INEXACT, a)
    if a.ndim < 2:
        raise ShapeError(f"lu needs matrices (..., m, n), got shape {a.shape}")
    m, n = a.shape[-2:]
    b = a.shape[:-2]
    return [ShapedArray(a.shape, a.dtype), ShapedArray(b + (min(m, n),), np.dtype(np.int32)),
            ShapedArray(b + (m,), np.dtype(np.int32))]


def _lu_impl(a):
    a = np.array(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    flat = a.reshape((-1, m, n))
    piv = np.zeros((flat.shape[0], k), np.int32)
    perm = np.tile(np.arange(m, dtype=np.int32), (flat.shape[0], 1))
    for b, x in enumerate(flat):
        for j in range(k):
            p = j + int(np.argmax(np.abs(x[j:, j])))
            piv[b, j] = p
            x[[j, p]] = x[[p, j]]
            perm[b, [j, p]] = perm[b, [p, j]]
            if x[j, j] != 0:
                x[j + 1:, j] /= x[j, j]
            x[j + 1:, j + 1:] -= np.outer(x[j + 1:, j], x[j, j + 1:])
    return [flat.reshape(a.shape), piv.reshape(a.shape[:-2] + (k,)),
            perm.reshape(a.shape[:-2] + (m,))]


def _lu_lowering(ctx, a):
    aval = ctx.avals_in[0]
    lu_aval, piv_aval, perm_aval = ctx.avals_out
    if lapack.generic_platform(ctx):   # (JAX's lowering there)
        def generic(x):
            out, piv = generic_linalg.lu_factors(x)
            return [out, piv, lu_pivots_to_permutation(piv, aval.shape[-2])]
        return lower_inline(ctx, generic, [aval], [a])
    info = lapack.info_aval(aval)
    out, piv, status = lapack.lapack_call(ctx, "getrf", [a], [aval], [lu_aval, piv_aval, info],
                                          aliases={0: 0})
    piv = ctx.op1("stablehlo.subtract", [piv, lapack.const_like(ctx, 1, piv_aval)], piv_aval)
    ok = lapack.info_ok(ctx, status, info, "GE")
    out = lapack.nan_unless(ctx, ok, info, out, lu_aval)
    m = aval.shape[-2]
    perm, = lower_inline(ctx, lambda p: [lu_pivots_to_permutation(p, m)], [piv_aval], [piv])
    return [out, piv, perm]


def _lu_jvp(primals, tangents):
    a, = primals
    da, = tangents
    lu_, piv, perm = bind(lu_p, a)
    zi = [core.Zero(_aval(piv)), core.Zero(_aval(perm))]
    if is_zero(da):
        return [lu_, piv, perm], [core.Zero(_aval(lu_))] + zi
    L = lax_ops()
    m, n = _aval(a).shape[-2:]
    k = min(m, n)
    nb = _nd(a) - 2
    zero = np.zeros((), _aval(a).dtype)
    l = _tri(_slice(lu_, cols=k), True, -1)
    l = L.pad(l, zero, [(0, 0, 0)] * (nb + 1) + [(0, m - k, 0)])
    l = L.add(l, _eye(lu_, m))
    u = L.pad(_tri(_slice(lu_, rows=k), False), zero, [(0, 0, 0)] * nb + [(0, n - k, 0),
                                                                          (0, 0, 0)])
    if n > k:
        u = L.add(u, _const(u, np.pad(np.eye(n - k), ((k, 0), (k, 0)))))
    la = _ts(l, permute_rows(da, perm), left_side=True, lower=True, unit_diagonal=True)
    lau = _ts(u, la, left_side=False, lower=False)
    dlu = L.add(_mm(l, _tri(lau, True, -1)), _mm(_tri(lau, False), u))
    return [lu_, piv, perm], [dlu] + zi


register(lu_p, impl=_lu_impl, abstract_eval=_lu_ae, lowering=_lu_lowering, jvp=_lu_jvp)
deffront(lu_p)


def lu(a):
    """`lax.linalg.lu`: LU with partial pivoting, (lu, pivots, permutation) with
    a[..., permutation, :] == L @ U (L unit lower triangle of lu, U its upper)."""
    return tuple(bind(lu_p, a))

# ---- qr ------------------------------------------------------------------------------
qr_p = core.new_primitive("qr", multiple_results=True)


def _qr_ae(a, *, full_matrices, pivoting=False):
    check_dtype("qr", INEXACT, a)
    if a.ndim < 2:
        raise ShapeError(f"qr needs matrices (..., m, n), got shape {a.shape}")
    m, n = a.shape[-2:]
    k = m if full_matrices else min(m, n)
    b = a.shape[:-2]
    out = [ShapedArray(b + (m, k), a.dtype), ShapedArray(b + (k, n), a.dtype)]
    return out + [ShapedArray(b + (n,), np.dtype(np.int32))] if pivoting else out


def _pivots(a):
    """LAPACK geqp3's column order for one matrix: at each step the remaining column
    with the largest norm outside the span of those already chosen (first on ties)."""
    a = np.asarray(a, np.result_type(a, np.float64))
    m, n = a.shape
    order, rest = [], list(range(n))
    q = np.zeros((m, 0), a.dtype)
    for _ in range(min(m, n)):
        resid = a[:, rest] - q @ (np.conj(q).T @ a[:, rest])
        j = rest[int(np.argmax(np.linalg.norm(resid, axis=0)))]
        order.append(j)
        rest.remove(j)
        q, _ = np.linalg.qr(a[:, order])
    return np.array(order + rest, np.int32)


def _qr_impl(a, *, full_matrices, pivoting=False):
    a = np.asarray(a)
    mode = "complete" if full_matrices else "reduced"
    if not pivoting:
        q, r = np.linalg.qr(a, mode=mode)
        return [q.astype(a.dtype), r.astype(a.dtype)]
    p = np.stack([_pivots(x) for x in a.reshape((-1,) + a.shape[-2:])]).reshape(
        a.shape[:-2] + a.shape[-1:])
    q, r = np.linalg.qr(np.take_along_axis(a, p[..., None, :], -1), mode=mode)
    return [q.astype(a.dtype), r.astype(a.dtype), p]


def _qr_lowering(ctx, a, *, full_matrices, pivoting=False):
    aval = ctx.avals_in[0]
    q_aval, r_aval = ctx.avals_out[:2]
    m, n = aval.shape[-2:]
    k = min(m, n)
    if m == 0 or n == 0:
        eye = np.broadcast_to(np.eye(m, q_aval.shape[-1], dtype=aval.dtype), q_aval.shape)
        out = [ctx.constant(eye, q_aval), lapack.const_like(ctx, 0, r_aval)]
        return out + [lapack.const_like(ctx, 0, ctx.avals_out[2])] if pivoting else out
    tau_aval = ShapedArray(aval.shape[:-2] + (k,), aval.dtype)
    extra = []
    if pivoting:   # geqp3 with every column free (jpvt 0); its pivots are 1-based
        p_aval = ctx.avals_out[2]
        r, jpvt, taus = lapack.lapack_call(ctx, "geqp3", [a, lapack.const_like(ctx, 0, p_aval)],
                                           [aval, p_aval], [aval, p_aval, tau_aval],
                                           aliases={0: 0, 1: 1})
        extra = [ctx.op1("stablehlo.subtract", [jpvt, lapack.const_like(ctx, 1, p_aval)],
                         p_aval)]
    else:
        r, taus = lapack.lapack_call(ctx, "geqrf", [a], [aval], [aval, tau_aval],
                                     aliases={0: 0})
    if m < n:
        h, h_aval = lapack.slice_minor(ctx, r, aval, m, m)
    elif full_matrices:   # (JAX's rule pads even by nothing, and takes R by its _triu)
        h, h_aval = generic_linalg.pad_columns(ctx, r, aval, m)
    else:
        h, h_aval = r, aval
    routine = "ungqr" if dtypes.issubdtype(aval.dtype, np.complexfloating) else "orgqr"
    q, = lapack.lapack_call(ctx, routine, [h, taus], [h_aval, tau_aval], [h_aval],
                               aliases={0: 0})
    r, r_sl = lapack.slice_minor(ctx, r, aval, r_aval.shape[-2], n)
    return [q, generic_linalg.upper_triangle(ctx, r, r_sl)] + extra


def _thin_qr_jvp(q, r, dx):
    L = lax_ops()
    dx_rinv = _ts(r, dx)
    qt = _mm(_H(q), dx_rinv)
    low = _tri(qt, True, -1)
    do = L.sub(low, _H(low))
    if _is_complex(qt):
        do = L.add(do, L.mul(_eye(qt), L.sub(qt, _cast(L.real(qt), _aval(qt).dtype))))
    dq = L.add(_mm(q, L.sub(do, qt)), dx_rinv)
    dr = _mm(L.sub(qt, do), r)
    return dq, dr


def _qr_jvp(primals, tangents, *, full_matrices, pivoting=False):
    x, = primals
    dx, = tangents
    q, r, *p = bind(qr_p, x, full_matrices=full_matrices, pivoting=pivoting)
    if is_zero(dx):
        return [q, r, *p], [core.Zero(_aval(v)) for v in (q, r, *p)]
    if pivoting:   # x[..., p] = q r: the same rule on the permuted columns
        x, dx = _T(permute_rows(_T(x), p[0])), _T(permute_rows(_T(dx), p[0]))
        dq, dr = _qr_jvp([x], [dx], full_matrices=full_matrices)[1]
        return [q, r, p[0]], [dq, dr, core.Zero(_aval(p[0]))]
    L = lax_ops()
    m, n = _aval(x).shape[-2:]
    nd = _nd(x)
    if m < n:
        dq, dr1 = _thin_qr_jvp(q, _slice(r, cols=m), _slice(dx, cols=m))
        dr2 = L.add(_mm(_H(dq), _slice(x, cols=n - m, col0=m)),
                    _mm(_H(q), _slice(dx, cols=n - m, col0=m)))
        return [q, r], [dq, L.concatenate([dr1, dr2], nd - 1)]
    q_mn = _slice(q, cols=n) if full_matrices else q
    r_nn = _slice(r, rows=n) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r], [dq_mn, dr_nn]
    # the trailing m - n columns of Q: any completion works; JAX's (through an LU solve)
    q_nn, q_pn = _slice(q_mn, rows=n), _slice(q_mn, rows=m - n, row0=n)
    q_mp = _slice(q, cols=m - n, col0=n)
    dq_nn, dq_pn = _slice(dq_mn, rows=n), _slice(dq_mn, rows=m - n, row0=n)
    z_pn_h = _lu_solve_h(L.sub(q_nn, _eye(q_nn)), _H(q_pn))
    z_pn = _H(z_pn_h)
    dq_mp = L.sub(_mm(dq_mn, z_pn_h), _mm(L.add(q_mn, _mm(q_mp, z_pn)),
                                          _H(L.sub(dq_pn, _mm(z_pn, dq_nn)))))
    zeros = _const(dr_nn, 0, _aval(dr_nn).shape[:-2] + (m - n, n))
    return [q, r], [L.concatenate([dq_mn, dq_mp], nd - 1),
                    L.concatenate([dr_nn, zeros], nd - 2)]


register(qr_p, impl=_qr_impl, abstract_eval=_qr_ae, lowering=_qr_lowering, jvp=_qr_jvp)
deffront(qr_p)


def qr(x, *, full_matrices=True, pivoting=False):
    """`lax.linalg.qr`: (q, r) with q's columns orthonormal and r upper triangular
    (LAPACK's Householder QR: geqrf + orgqr); with `pivoting`, (q, r, p) where
    x[..., p] = q r and |diag(r)| decreases (LAPACK geqp3)."""
    return tuple(bind(qr_p, x, full_matrices=bool(full_matrices), pivoting=bool(pivoting)))

# ---- eigh ----------------------------------------------------------------------------
eigh_p = core.new_primitive("eigh", multiple_results=True)


class EighImplementation(enum.Enum):
    """Which symmetric eigensolver `eigh` uses (JAX's names; `lax.linalg`'s)."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """Which SVD algorithm `svd` uses (JAX's names; `lax.linalg`'s)."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def _real_dtype(dt):
    return np.dtype(np.finfo(np.dtype(dt)).dtype)


def _eigh_ae(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    check_dtype("eigh", INEXACT, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"eigh needs square matrices (..., n, n), got shape {a.shape}")
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], _real_dtype(a.dtype))]


def _eigh_impl(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    w, v = np.linalg.eigh(np.asarray(a), UPLO="L" if lower else "U")
    return [v.astype(a.dtype), w.astype(_real_dtype(a.dtype))]


def _eigh_lowering(ctx, a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    aval = ctx.avals_in[0]
    v_aval, w_aval = ctx.avals_out
    info = lapack.info_aval(aval)
    if algorithm == EighImplementation.QDWH:
        raise NotImplementedInAstjaxError("QDWH implementation is only supported on TPU",
                                          hint="JAX 0.10.2 refuses it too off TPU")
    outs = [v_aval, w_aval, info]
    if ctx.platform in cusolver.GPU_PLATFORMS:   # cuSOLVER's (hipSOLVER's) syevd / syevj
        v, w, status = cusolver.eigh(ctx, a, outs, lower, None if algorithm is None else
                                     algorithm == EighImplementation.JACOBI)
    else:
        if algorithm == EighImplementation.JACOBI:
            raise NotImplementedInAstjaxError("Jacobi implementation is not supported on CPU",
                                              hint="JAX 0.10.2 refuses it too: pass "
                                                   "implementation=None or QR on CPU")
        routine = "heevd" if dtypes.issubdtype(aval.dtype, np.complexfloating) else "syevd"
        v, w, status = lapack.lapack_call(ctx, routine, [a], [aval], outs, aliases={0: 0},
                                          mode="V", uplo="L" if lower else "U")
    ok = lapack.info_ok(ctx, status, info)
    return [lapack.nan_unless(ctx, ok, info, v, v_aval),
            lapack.nan_unless(ctx, ok, info, w, w_aval)]


def _symmetrize(a):
    L = lax_ops()
    return L.div(L.add(a, _H(a)), _const(a, 2.0, ()))


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    a, = primals
    da, = tangents
    v, w = bind(eigh_p, _symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues,
                subset_by_index=subset_by_index, algorithm=algorithm)
    if is_zero(da):
        return [v, w], [core.Zero(_aval(v)), core.Zero(_aval(w))]
    L = lax_ops()
    shape = _aval(a).shape
    wc = _cast(w, _aval(a).dtype)
    eye = _eye(a)
    # JAX's order: (eye + w[..., None, :]) - w[..., :, None], inverted by integer_pow
    # (whose derivative, in second derivatives, is -x^-2: not a division's)
    f = L.sub(L.integer_pow(L.sub(L.add(eye, _as_row(wc, shape)), _as_col(wc, shape)), -1),
              eye)
    vav = _mm(_mm(_H(v), da), v)
    dv = _mm(v, L.mul(f, vav))
    dw = _diag(L.real(vav) if _is_complex(vav) else vav)
    return [v, w], [dv, dw]


register(eigh_p, impl=_eigh_impl, abstract_eval=_eigh_ae, lowering=_eigh_lowering,
         jvp=_eigh_jvp)
deffront(eigh_p)


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
         subset_by_index=None, implementation=None):
    """`lax.linalg.eigh`: (v, w) of Hermitian matrices, v's columns the eigenvectors
    of the ascending eigenvalues w (LAPACK syevd/heevd). `symmetrize_input`
    replaces x by (x + x^H) / 2 first; otherwise only the `lower` (or upper)
    triangle is read. `implementation` (an `EighImplementation`) is the primitive's
    `algorithm`: JACOBI lowers for CUDA only, QDWH nowhere (TPU), as in JAX."""
    n = _aval(x).shape[-1]
    if subset_by_index is not None:
        subset_by_index = tuple(subset_by_index)
        if subset_by_index != (0, n):
            raise NotImplementedInAstjaxError("subset_by_index is not supported on CPU")
    if symmetrize_input:
        x = _symmetrize(x)
    v, w = bind(eigh_p, x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                subset_by_index=subset_by_index, algorithm=implementation)
    return v, w

# ---- svd -----------------------------------------------------------------------------
svd_p = core.new_primitive("svd", multiple_results=True)


def _svd_shapes(shape, full_matrices):
    m, n = shape[-2:]
    k = min(m, n)
    b = tuple(shape[:-2])
    return b + (k,), b + (m, m if full_matrices else k), b + (n if full_matrices else k, n)


def _svd_ae(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    check_dtype("svd", INEXACT, a)
    if a.ndim < 2:
        raise ShapeError(f"svd needs matrices (..., m, n), got shape {a.shape}")
    s, u, vt = _svd_shapes(a.shape, full_matrices)
    out = [ShapedArray(s, _real_dtype(a.dtype))]
    return out + ([ShapedArray(u, a.dtype), ShapedArray(vt, a.dtype)] if compute_uv else [])


def _svd_impl(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    a = np.asarray(a)
    if not compute_uv:
        return [np.linalg.svd(a, compute_uv=False).astype(_real_dtype(a.dtype))]
    u, s, vt = np.linalg.svd(a, full_matrices=full_matrices)
    return [s.astype(_real_dtype(a.dtype)), u.astype(a.dtype), vt.astype(a.dtype)]


def _svd_choice(algorithm):
    """The `SvdAlgorithm` member's name (None: DEFAULT); anything else (a string, another
    enum) is no choice JAX knows: None."""
    if algorithm is None:
        return "DEFAULT"
    return algorithm.name if isinstance(algorithm, SvdAlgorithm) else None


def _svd_lowering(ctx, a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    aval = ctx.avals_in[0]
    m, n = aval.shape[-2:]
    s_shape, u_shape, vt_shape = _svd_shapes(aval.shape, full_matrices or not compute_uv)
    s_aval = ctx.avals_out[0]
    if m == 0 or n == 0:
        outs = [lapack.const_like(ctx, 0, s_aval)]
        for av in ctx.avals_out[1:]:
            eye = np.broadcast_to(np.eye(*av.shape[-2:], dtype=av.dtype), av.shape)
            outs.append(ctx.constant(eye, av))
        return outs
    info = lapack.info_aval(aval)
    u_aval, vt_aval = aval.update(shape=u_shape), aval.update(shape=vt_shape)
    mode = ("A" if full_matrices else "S") if compute_uv else "N"
    outs = [aval, s_aval, u_aval, vt_aval, info]
    if ctx.platform in cusolver.GPU_PLATFORMS:   # cuSOLVER's (hipSOLVER's) SVDs, as JAX
        _, s, u, vt, status = cusolver.svd(ctx, a, outs, full_matrices, compute_uv,
                                           _svd_choice(algorithm), algorithm)
    else:   # LAPACK's divide and conquer (gesdd), or QR (gesvd) when asked
        name = _svd_choice(algorithm)
        if name not in ("DEFAULT", "DIVIDE_AND_CONQUER", "QR"):
            raise NotImplementedInAstjaxError(
                "The SVD Jacobi and Polar algorithms are not implemented on CPU.",
                hint="JAX 0.10.2 refuses them too: they lower for CUDA only")
        _, s, u, vt, status = lapack.lapack_call(ctx, "gesvd" if name == "QR" else "gesdd",
                                                 [a], [aval], outs, aliases={0: 0}, mode=mode)
    ok = lapack.info_ok(ctx, status, info)
    outs = [lapack.nan_unless(ctx, ok, info, s, s_aval)]
    if compute_uv:
        outs += [lapack.nan_unless(ctx, ok, info, u, u_aval),
                 lapack.nan_unless(ctx, ok, info, vt, vt_aval)]
    return outs


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    A, = primals
    dA, = tangents
    m, n = _aval(A).shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise DifferentiationError(
            "Singular value decomposition JVP not implemented for full matrices")
    s, U, Vt = bind(svd_p, A, full_matrices=False, compute_uv=True,
                    subset_by_index=subset_by_index, algorithm=algorithm)
    outs = [s, U, Vt] if compute_uv else [s]
    if is_zero(dA):
        return outs, [core.Zero(_aval(o)) for o in outs]
    L = lax_ops()
    dt = _aval(A).dtype
    Ut, V = _H(U), _H(Vt)
    dS = _mm(_mm(Ut, dA), V)
    ds = _diag(L.real(dS) if _is_complex(dS) else dS)
    if not compute_uv:
        return outs, [ds]
    # JAX 0.10.2's formula, op for op: s as a row s[..., None, :] broadcast by each
    # operation (XLA divides by a broadcast row as a multiply by its reciprocal, as in
    # JAX's program, only when the broadcast sits at the division)
    k = _aval(s).shape[-1]
    nb = _aval(s).ndim - 1
    s_dim = L.broadcast_in_dim(s, _aval(s).shape[:-1] + (1, k), tuple(range(nb)) + (nb + 1,))
    # _T(s_dim) twice, as JAX's: one transpose per use, so that reverse mode adds the two
    # cotangents into s_dim's one at a time (in JAX's order: its rounding)
    s_diffs = L.mul(L.add(s_dim, _T(s_dim)), L.sub(s_dim, _T(s_dim)))
    eye = _eye(s_diffs)
    F = L.sub(L.div(_const(s_diffs, 1.0, ()), L.add(s_diffs, eye)), eye)
    Fc, rowc = _cast(F, dt), _cast(s_dim, dt)
    dSS, SdS = L.mul(rowc, dS), L.mul(_T(rowc), dS)
    s_zeros = _cast(L.eq(s, _const(s, 0.0, ())), _aval(s).dtype)
    s_inv = L.sub(L.div(_const(s, 1.0, ()), L.add(s, s_zeros)), s_zeros)
    s_inv_mat = _cast(_diag_matrix(s_inv), dt)
    dUdV_diag = L.mul(L.mul(_const(dS, 0.5, ()), L.sub(dS, _H(dS))), s_inv_mat)
    dU = _mm(U, L.add(L.mul(Fc, L.add(dSS, _H(dSS))), dUdV_diag))
    dV = _mm(V, L.mul(Fc, L.add(SdS, _H(SdS))))
    if m > n:
        dAV = _mm(dA, V)
        dU = L.add(dU, L.div(L.sub(dAV, _mm(U, _mm(Ut, dAV))), rowc))
    if n > m:
        dAHU = _mm(_H(dA), U)
        dV = L.add(dV, L.div(L.sub(dAHU, _mm(V, _mm(Vt, dAHU))), rowc))
    return outs, [ds, dU, _H(dV)]


register(svd_p, impl=_svd_impl, abstract_eval=_svd_ae, lowering=_svd_lowering,
         jvp=_svd_jvp)
deffront(svd_p)


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """`lax.linalg.svd`: (u, s, vt) with x = u @ diag(s) @ vt and s descending
    (LAPACK gesdd; gesvd for `algorithm=SvdAlgorithm.QR`; JACOBI and POLAR lower for
    CUDA only, as in JAX); `compute_uv=False` returns s alone."""
    k = min(_aval(x).shape[-2:])
    if subset_by_index is not None:
        subset_by_index = tuple(subset_by_index)
        if subset_by_index != (0, k):
            raise NotImplementedInAstjaxError("subset_by_index is not supported on CPU")
    outs = bind(svd_p, x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                subset_by_index=subset_by_index, algorithm=algorithm)
    return (outs[1], outs[0], outs[2]) if compute_uv else outs[0]

# ---- eig -----------------------------------------------------------------------------
eig_p = core.new_primitive("eig", multiple_results=True)


def _complex_dtype(dt):
    return np.dtype(np.complex128) if np.dtype(dt) in (np.float64, np.complex128) \
        else np.dtype(np.complex64)


def _eig_ae(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
    check_dtype("eig", INEXACT, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"eig needs square matrices (..., n, n), got shape {a.shape}")
    c = _complex_dtype(a.dtype)
    out = [ShapedArray(a.shape[:-1], c)]
    out += [ShapedArray(a.shape, c)] * (int(compute_left_eigenvectors) +
                                        int(compute_right_eigenvectors))
    return out


def _eig_impl(a, *, compute_left_eigenvectors, compute_right_eigenvectors):
    a = np.asarray(a)
    c = _complex_dtype(a.dtype)
    w, vr = np.linalg.eig(a)
    out = [w.astype(c)]
    if compute_left_eigenvectors:
        wl, vl = np.linalg.eig(np.conj(np.swapaxes(a, -1, -2)))
        # pair each left vector with its eigenvalue (conjugates of a^H's)
        order = [np.argmin(np.abs(np.conj(wl[..., None, :]) - w[..., :, None]), -1)]
        vl = np.take_along_axis(vl, order[0][..., None, :], -1)
        out.append(vl.astype(c))
    if compute_right_eigenvectors:
        out.append(vr.astype(c))
    return out


def _eig_lowering(ctx, a, *, compute_left_eigenvectors, compute_right_eigenvectors):
    aval = ctx.avals_in[0]
    c = _complex_dtype(aval.dtype)
    real = not dtypes.issubdtype(aval.dtype, np.complexfloating)
    info = lapack.info_aval(aval)
    w_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    v_aval = ShapedArray(aval.shape, c)
    outs = [w_aval, w_aval] if real else [w_aval]
    res = lapack.lapack_call(ctx, "geev", [a], [aval], outs + [v_aval, v_aval, info],
                             compute_left="V" if compute_left_eigenvectors else "N",
                             compute_right="V" if compute_right_eigenvectors else "N")
    *w, vl, vr, status = res
    wc_aval = ShapedArray(aval.shape[:-1], c)
    w = ctx.op1("stablehlo.complex", w, wc_aval) if real else w[0]
    ok = lapack.info_ok(ctx, status, info)
    out = [lapack.nan_unless(ctx, ok, info, w, wc_aval)]
    if compute_left_eigenvectors:
        out.append(lapack.nan_unless(ctx, ok, info, vl, v_aval))
    if compute_right_eigenvectors:
        out.append(lapack.nan_unless(ctx, ok, info, vr, v_aval))
    return out


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors):
    a, = primals
    da, = tangents
    if compute_left_eigenvectors or compute_right_eigenvectors:
        raise DifferentiationError(
            "The derivatives of eigenvectors are not implemented, only eigenvalues. "
            "See https://github.com/jax-ml/jax/issues/2748 for discussion.")
    w, vr = bind(eig_p, a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
    if is_zero(da):
        return [w], [core.Zero(_aval(w))]
    # dw = diag(vr^-1 da vr)
    dac = _cast(da, _aval(vr).dtype)
    return [w], [_diag(_lu_solve(vr, _mm(dac, vr)))]


register(eig_p, impl=_eig_impl, abstract_eval=_eig_ae, lowering=_eig_lowering, jvp=_eig_jvp)
deffront(eig_p)


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
        use_magma=None, implementation=None):
    """`lax.linalg.eig`: eigenvalues w (complex) of general square matrices and,
    as asked, the left and right eigenvectors (LAPACK geev), as [w, vl, vr]."""
    return list(bind(eig_p, x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                     compute_right_eigenvectors=bool(compute_right_eigenvectors)))
