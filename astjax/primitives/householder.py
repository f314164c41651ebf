"""Householder-reflector primitives on LAPACK: `geqrf` (QR in LAPACK's packed form),
`householder_product` (orgqr / ungqr: the Q those reflectors make), `ormqr` (ormqr /
unmqr: a matrix multiplied by that Q), `hessenberg` (gehrd: the Hessenberg reduction,
packed) and `tridiagonal` (sytrd / hetrd: its Hermitian counterpart). As in JAX none has a derivative rule;
each has a NumPy reference, a LAPACK lowering (primitives/lapack.py) and a batch rule
(batch axis to the front). `jnp.linalg.qr(mode='raw')`, `slogdet(method='qr')`,
`scipy.linalg.hessenberg` and `qr_multiply` are built on them.

Packed form: below the diagonal (geqrf) or the subdiagonal (gehrd) of the result
are the reflectors' vectors v_i (with an implicit leading 1); `taus` their scales:
H_i = I - tau_i v_i v_i^H.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import ShapeError
from . import generic_linalg, lapack
from .base import INEXACT, check_dtype, deffront, lowering_from, mark_unsupported, register

__all__ = ["geqrf_p", "householder_product_p", "hessenberg_p", "tridiagonal_p", "ormqr_p",
           "geqrf", "householder_product", "hessenberg", "tridiagonal", "ormqr"]

_NO_JVP = "JAX defines no derivative for {}: differentiate qr / eig instead"


def _reflector(x):
    """LAPACK's larfg: (beta, tau, v) with (I - tau v v^H)^H x = beta e_1, v[0] = 1."""
    alpha, rest = x[0], x[1:]
    xnorm = np.linalg.norm(rest)
    if xnorm == 0 and np.imag(alpha) == 0:
        return alpha, np.zeros((), x.dtype), np.concatenate([[1], np.zeros_like(rest)])
    beta = -np.copysign(np.sqrt(abs(alpha) ** 2 + xnorm ** 2), np.real(alpha))
    tau = (beta - alpha) / beta
    return beta, tau, np.concatenate([[1], rest / (alpha - beta)])


def _per_matrix(fn, *arrays):
    """Apply fn to each matrix of a batch (leading dimensions)."""
    batch = arrays[0].shape[:-2]
    flat = [a.reshape((-1,) + a.shape[len(batch):]) for a in arrays]
    outs = [fn(*xs) for xs in zip(*flat)]
    if isinstance(outs[0], tuple):
        return tuple(np.stack(o).reshape(batch + o[0].shape) for o in zip(*outs))
    return np.stack(outs).reshape(batch + outs[0].shape)

# ---- geqrf ---------------------------------------------------------------------------
geqrf_p = core.new_primitive("geqrf", multiple_results=True)


def _geqrf_ae(a):
    check_dtype("geqrf", INEXACT, a)
    if a.ndim < 2:
        raise ShapeError(f"geqrf needs matrices (..., m, n), got shape {a.shape}")
    return [ShapedArray(a.shape, a.dtype),
            ShapedArray(a.shape[:-2] + (min(a.shape[-2:]),), a.dtype)]


def _geqrf_impl(a):
    a = np.asarray(a)
    h, tau = np.linalg.qr(a, mode="raw")
    return [np.swapaxes(h, -1, -2).astype(a.dtype), tau.astype(a.dtype)]


def _geqrf_lowering(ctx, a):
    return lapack.lapack_call(ctx, "geqrf", [a], ctx.avals_in, ctx.avals_out, aliases={0: 0})


register(geqrf_p, impl=_geqrf_impl, abstract_eval=_geqrf_ae, lowering=_geqrf_lowering)
mark_unsupported(geqrf_p, "jvp", _NO_JVP.format("geqrf"))
deffront(geqrf_p)


def geqrf(a):
    """`lax.linalg.geqrf`: (packed QR, taus) as LAPACK's geqrf returns them."""
    return tuple(bind(geqrf_p, a))

# ---- householder_product -------------------------------------------------------------
householder_product_p = core.new_primitive("householder_product")


def _hp_ae(a, taus):
    check_dtype("householder_product", INEXACT, a, taus)
    if a.ndim < 2 or taus.ndim != a.ndim - 1 or taus.shape[:-1] != a.shape[:-2]:
        raise ShapeError(f"householder_product needs a (..., m, n) and taus (..., k), got "
                         f"{a.shape} and {taus.shape}")
    m, n = a.shape[-2:]
    if m < n:
        raise ShapeError("The first argument to householder_product must have at least as "
                         f"many rows as columns, got shape {a.shape}")
    if taus.shape[-1] > min(m, n):
        raise ShapeError("The second argument to householder_product must not have more rows "
                         "than the minimum of the first argument's rows and columns.")
    return ShapedArray(a.shape, a.dtype)


def _hp_one(a, taus):
    m, n = a.shape
    q = np.eye(m, n, dtype=np.result_type(a, np.float64))
    for i in reversed(range(taus.shape[0])):
        v = np.concatenate([np.zeros(i), [1], a[i + 1:, i]])
        q = q - taus[i] * np.outer(v, np.conj(v) @ q)
    return q


def _hp_impl(a, taus):
    a, taus = np.asarray(a), np.asarray(taus)
    return _per_matrix(_hp_one, a, taus).astype(a.dtype)


def _hp_lowering(ctx, a, taus):
    routine = "ungqr" if dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating) \
        else "orgqr"
    out, = lapack.lapack_call(ctx, routine, [a, taus], ctx.avals_in, ctx.avals_out,
                              aliases={0: 0})
    return out


register(householder_product_p, impl=_hp_impl, abstract_eval=_hp_ae, lowering=_hp_lowering)
mark_unsupported(householder_product_p, "jvp", _NO_JVP.format("householder_product"))
deffront(householder_product_p)


def householder_product(a, taus):
    """`lax.linalg.householder_product`: the first n columns of H_0 H_1 ... H_{k-1}."""
    return bind(householder_product_p, a, taus)

# ---- hessenberg ----------------------------------------------------------------------
hessenberg_p = core.new_primitive("hessenberg", multiple_results=True)


def _hess_ae(a):
    check_dtype("hessenberg", INEXACT, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"Argument to Hessenberg reduction must have shape [..., n, n], got "
                         f"shape {a.shape}")
    return [ShapedArray(a.shape, a.dtype),
            ShapedArray(a.shape[:-2] + (max(a.shape[-1] - 1, 0),), a.dtype)]


def _hess_one(a):
    a = np.array(a, dtype=np.result_type(a, np.float64))
    n = a.shape[0]
    taus = np.zeros(max(n - 1, 0), a.dtype)
    for j in range(n - 2):
        beta, tau, v = _reflector(a[j + 1:, j])
        taus[j] = tau
        h = np.eye(n - j - 1, dtype=a.dtype) - tau * np.outer(v, np.conj(v))
        a[j + 1:, j:] = np.conj(h).T @ a[j + 1:, j:]
        a[:, j + 1:] = a[:, j + 1:] @ h
        a[j + 1, j] = beta
        a[j + 2:, j] = v[1:]
    return a, taus


def _hess_impl(a):
    a = np.asarray(a)
    h, t = _per_matrix(_hess_one, a)
    return [h.astype(a.dtype), t.astype(a.dtype)]


def _hess_lowering(ctx, a):
    aval = ctx.avals_in[0]
    n = aval.shape[-1]
    info = lapack.info_aval(aval)
    h, taus, status = lapack.lapack_call(ctx, "gehrd", [a], [aval], ctx.avals_out + [info],
                                         aliases={0: 0}, low=1, high=n)
    ok = lapack.info_ok(ctx, status, info)
    return [lapack.nan_unless(ctx, ok, info, h, ctx.avals_out[0]),
            lapack.nan_unless(ctx, ok, info, taus, ctx.avals_out[1])]


register(hessenberg_p, impl=_hess_impl, abstract_eval=_hess_ae, lowering=_hess_lowering)
mark_unsupported(hessenberg_p, "jvp", _NO_JVP.format("hessenberg"))
deffront(hessenberg_p)


def hessenberg(a):
    """`lax.linalg.hessenberg`: (packed Hessenberg form, taus) as LAPACK's gehrd."""
    return tuple(bind(hessenberg_p, a))

# ---- tridiagonal ---------------------------------------------------------------------
# LAPACK's sytrd / hetrd: Q^H A Q = T for Hermitian A, read from one triangle (the
# other is returned untouched). Outputs (packed a, d, e, taus): d the diagonal and e
# the off-diagonal of T (real), the reflectors packed outside T's band.
tridiagonal_p = core.new_primitive("tridiagonal", multiple_results=True)


def _real(dtype):
    return np.dtype(np.finfo(dtype).dtype)


def _trid_ae(a, *, lower=True):
    check_dtype("tridiagonal", INEXACT, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.shape[-1] == 0:
        raise ShapeError(f"The input to tridiagonal must be a square matrix. Got shape "
                         f"{a.shape}.")
    n, batch = a.shape[-1], a.shape[:-2]
    return [ShapedArray(a.shape, a.dtype), ShapedArray(batch + (n,), _real(a.dtype)),
            ShapedArray(batch + (n - 1,), _real(a.dtype)),
            ShapedArray(batch + (n - 1,), a.dtype)]


def _trid_one(a, lower):
    wide = np.result_type(a, np.float64)
    out = np.array(a, dtype=wide)
    n = a.shape[0]
    tri = np.tril(out) if lower else np.triu(out)
    full = tri + np.conj(np.tril(out, -1) if lower else np.triu(out, 1)).T
    full[np.diag_indices(n)] = np.real(np.diag(full))
    taus = np.zeros(n - 1, wide)
    e = np.zeros(n - 1)
    # lower: reflector j acts on rows j+1.., annihilating column j below the
    # subdiagonal; upper: from the last column back, on rows ..j, reversed
    for j in (range(n - 1) if lower else reversed(range(n - 1))):
        idx = np.arange(j + 1, n) if lower else np.arange(j, -1, -1)
        col = j if lower else j + 1
        beta, tau, v = _reflector(full[idx, col])
        taus[j], e[j] = tau, np.real(beta)
        h = np.eye(n, dtype=wide)
        h[np.ix_(idx, idx)] -= tau * np.outer(v, np.conj(v))
        full = np.conj(h).T @ full @ h
        out[idx[0], col] = beta
        out[idx[1:], col] = v[1:]
    d = np.real(np.diag(full))
    band = np.arange(n)
    out[band, band] = d
    return out, d, e, taus


def _trid_impl(a, *, lower=True):
    a = np.asarray(a)
    out, d, e, taus = _per_matrix(lambda m: _trid_one(m, lower), a)
    real = _real(a.dtype)
    return [out.astype(a.dtype), d.astype(real), e.astype(real), taus.astype(a.dtype)]


def _trid_lowering(ctx, a, *, lower=True):
    aval = ctx.avals_in[0]
    routine = "hetrd" if dtypes.issubdtype(aval.dtype, np.complexfloating) else "sytrd"
    info = lapack.info_aval(aval)
    *outs, status = lapack.lapack_call(ctx, routine, [a], [aval], ctx.avals_out + [info],
                                       aliases={0: 0}, uplo="L" if lower else "U")
    ok = lapack.info_ok(ctx, status, info)
    return [lapack.nan_unless(ctx, ok, info, x, av) for x, av in zip(outs, ctx.avals_out)]


register(tridiagonal_p, impl=_trid_impl, abstract_eval=_trid_ae, lowering=_trid_lowering)
mark_unsupported(tridiagonal_p, "jvp", _NO_JVP.format("tridiagonal"))
deffront(tridiagonal_p)


def tridiagonal(a, *, lower=True):
    """`lax.linalg.tridiagonal`: (packed a, d, e, taus) -- the reduction of a
    Hermitian matrix read from its `lower` (or upper) triangle to the tridiagonal T
    with diagonal d and off-diagonal e, as LAPACK's sytrd / hetrd."""
    return tuple(bind(tridiagonal_p, a, lower=lower))

# ---- ormqr ---------------------------------------------------------------------------
# LAPACK's ormqr / unmqr: c multiplied by the Q of geqrf's reflectors (a, taus) without
# forming Q: Q c, Q^H c (left) or c Q, c Q^H.
ormqr_p = core.new_primitive("ormqr")


def _ormqr_ae(a, taus, c, *, left=True, transpose=False):
    check_dtype("ormqr", INEXACT, a, taus, c)
    if a.ndim < 2 or c.ndim != a.ndim or taus.ndim != a.ndim - 1:
        raise ShapeError(f"ormqr needs a (..., m, n), taus (..., k) and c (..., p, q), got "
                         f"{a.shape}, {taus.shape} and {c.shape}")
    m = a.shape[-2]
    if left and c.shape[-2] != m:
        raise ShapeError("ormqr with left=True expects c to have the same number of rows as "
                         f"the Householder matrix a. Got a shape {a.shape} and c shape "
                         f"{c.shape}.")
    if not left and c.shape[-1] != m:
        raise ShapeError("ormqr with left=False expects c to have the same number of "
                         f"columns as the Householder matrix a has rows. Got a shape "
                         f"{a.shape} and c shape {c.shape}.")
    return ShapedArray(c.shape, c.dtype)


def _ormqr_one(a, taus, c, left, transpose):
    m = a.shape[0]
    q = np.eye(m, dtype=np.result_type(a, np.float64))
    for i in reversed(range(taus.shape[0])):
        v = np.concatenate([np.zeros(i), [1], a[i + 1:, i]])
        q = q - taus[i] * np.outer(v, np.conj(v) @ q)
    q = np.conj(q).T if transpose else q
    return q @ c if left else c @ q


def _ormqr_impl(a, taus, c, *, left=True, transpose=False):
    a, taus, c = map(np.asarray, (a, taus, c))
    return _per_matrix(lambda *xs: _ormqr_one(*xs, left, transpose), a, taus,
                       c).astype(c.dtype)


_ormqr_generic = lowering_from(generic_linalg.ormqr_product)   # (JAX's for other platforms)


def _ormqr_lowering(ctx, a, taus, c, *, left=True, transpose=False):
    if lapack.generic_platform(ctx):
        return _ormqr_generic(ctx, a, taus, c, left=left, transpose=transpose)
    routine = "unmqr" if dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating) \
        else "ormqr"
    out, = lapack.lapack_call(ctx, routine, [a, taus, c], ctx.avals_in, ctx.avals_out,
                              aliases={2: 0}, left=bool(left), transpose=bool(transpose))
    return out


register(ormqr_p, impl=_ormqr_impl, abstract_eval=_ormqr_ae, lowering=_ormqr_lowering)
mark_unsupported(ormqr_p, "jvp", _NO_JVP.format("ormqr"))
deffront(ormqr_p)


def ormqr(a, taus, c, *, left=True, transpose=False):
    """`lax.linalg.ormqr`: Q @ c, Q^H @ c (`transpose`), c @ Q or c @ Q^H (`left=False`)
    for the Q of geqrf's reflectors (a, taus), without forming Q."""
    return bind(ormqr_p, a, taus, c, left=left, transpose=transpose)
