"""The factorization-based part of `jnp.linalg`, on `lax.linalg` (LAPACK custom
calls, as JAX on CPU): `solve`, `inv`, `det`, `slogdet` (LU), `qr`, `eigh`,
`eigvalsh`, `svd`, `svdvals`, `eig`, `eigvals`, `pinv`, `matrix_rank`, `lstsq`.

Each follows `jax.numpy.linalg`'s definition: the same argument checks (a
`ValueError` for a wrong shape), the same formulas (2x2 and 3x3 determinants in
closed form, `slogdet`'s sign from the pivots' parity, `pinv`'s and `lstsq`'s
cut-offs, `svd(hermitian=True)` through `eigh`) and the same named-tuple results.
Derivatives come from the primitives' JVP rules.
"""
from __future__ import annotations

import collections
import functools

import numpy as np

from ... import core, dtypes, lax
from ...custom_api import custom_jvp
from ...primitives.factorizations import permute_rows
from ...errors import (ArgumentValueError, NotImplementedInAstjaxError, ShapeError,
                       ShapeValueError)
from .. import ufuncs as uf
from ..advanced_indexing import scatter_index, take_along_axis
from ..contractions import matmul as _matmul
from ..creation import eye as _eye
from ..reductions import any as _any, max as _max, sum as _sum, prod as _prod
from ..shapes import diagonal as _dg, trace as _tr
from ..sorting import cumprod as _cumprod
from ..operands import asarray
from ..ufuncs import asarray_operand, promote_dtypes_inexact, where
from ..util import library_jit

__all__ = ["solve", "inv", "det", "slogdet", "qr", "eigh", "eigvalsh", "svd", "svdvals",
           "eig", "eigvals", "pinv", "matrix_rank", "lstsq", "EighResult", "SlogdetResult",
           "QRResult", "SVDResult", "EigResult"]

EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])
SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])


def _shape(x):
    return core.get_aval(x).shape


def _dt(x):
    return core.get_aval(x).dtype


def _inexact(name, a):
    [a] = promote_dtypes_inexact(asarray_operand(a))
    return a


def _square(name, a, what="Argument to {name}() must have shape [..., n, n], got {shape}"):
    a = _inexact(name, a)
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeValueError(what.format(name=name, shape=s))
    return a


def _mH(x):
    nd = len(_shape(x))
    t = lax.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    return lax.conj(t) if dtypes.issubdtype(_dt(x), np.complexfloating) else t


def _diag(a):
    return _dg(a, 0, -2, -1)

# ------------------------------------------------------------------ LU-based


def _lu_solve(lu, perm, b, trans=0):
    """x with a x = b (trans 0), a^T x = b (1) or a^H x = b (2), from a's LU (lu,
    permutation); b of shape batch + (n, k), batch equal to lu's."""
    if trans == 0:
        y = lax.linalg.triangular_solve(lu, permute_rows(b, perm), left_side=True, lower=True,
                                        unit_diagonal=True)
        return lax.linalg.triangular_solve(lu, y, left_side=True, lower=False)
    conj = trans == 2
    x = lax.linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=conj)
    x = lax.linalg.triangular_solve(lu, x, left_side=True, lower=True,
                                    unit_diagonal=True, transpose_a=True, conjugate_a=conj)
    # rows back through the inverse permutation (x_out[perm[i]] = x[i]): inv[perm[i]] = i
    # by one scatter of n indices, then one gather of rows
    batch = _shape(perm)[:-1]
    nb = len(batch)
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(nb,),
                                     scatter_dims_to_operand_dims=(nb,),
                                     operand_batching_dims=tuple(range(nb)),
                                     scatter_indices_batching_dims=tuple(range(nb)))
    inv = lax.scatter(lax.full_like(perm, 0), lax.expand_dims(perm, (nb + 1,)),
                      lax.broadcasted_iota(np.int32, _shape(perm), nb), dn,
                      unique_indices=True, mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)
    return permute_rows(x, inv)


@library_jit
def solve(a, b):
    """x with a @ x = b; b is a vector (..., m) or matrices (..., m, n); leading
    dimensions broadcast."""
    a, b = promote_dtypes_inexact(asarray_operand(a), asarray_operand(b))
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 2:
        raise ShapeValueError(f"left hand array must be at least two dimensional; got "
                              f"a.shape={sa}")
    if len(sb) > 1 and len(sa) == len(sb) + 1 and sa[-1] == sb[-1] and sa[-1] != sb[-2]:
        raise ShapeValueError(
            f"Invalid shapes for solve: {sa}, {sb}. Prior to JAX v0.5.0, this would have "
            "been treated as a batched 1-dimensional solve. To recover this behavior, use "
            "solve(a, b[..., None]).squeeze(-1).")
    if sa[-1] != sa[-2]:
        raise ShapeValueError(f"inconsistent size for core dimension 'm': {sa[-1]} vs "
                              f"{sa[-2]} on vectorized function with signature "
                              "'(m,m),(m,n)->(m,n)'")
    m = sa[-1]
    vec = len(sb) == 1
    sig = "(m,m),(m)->(m)" if vec else "(m,m),(m,n)->(m,n)"
    if len(sb) < 1 or (sb[-1] if vec else sb[-2]) != m:
        got = sb[-1] if vec else (sb[-2] if len(sb) > 1 else sb)
        raise ShapeValueError(f"inconsistent size for core dimension 'm': {got} vs {m} on "
                              f"vectorized function with signature '{sig}'")
    if vec:   # a vector solve, as JAX's: x -> a x a matrix-vector product
        b = uf.broadcast_to_shape(b, sa[:-1])
        return _solve(a, b, vector=True)
    batch = uf.broadcast_shapes(sa[:-2], _shape(b)[:-2])
    a = uf.broadcast_to_shape(a, batch + sa[-2:])
    b = uf.broadcast_to_shape(b, batch + _shape(b)[-2:])
    return _solve(a, b)


def factored_solve(a, b, factors, solve_with, transpose_solve_with=None, vector=False):
    """a^-1 b (a batch + (m, m), b batch + (m, k), or batch + (m,) with `vector`) as
    JAX computes it: a `custom_linear_solve` of x -> a x whose solvers reuse `factors`
    (of stop_gradient(a): LU, Cholesky), so that derivatives are the factors'
    triangular solves (transposed in reverse mode), never the factorization's own
    derivative. Without `transpose_solve_with`, a is symmetric. With `vector`, the
    solvers take and return batch + (m,) and x -> a x is one matrix-vector
    `dot_general` (JAX's `_broadcasted_matvec`: a matrix product of one column rounds
    otherwise in the derivatives)."""
    def matvec(x):
        if vector:
            nb = len(_shape(a)) - 2
            batch = tuple(range(nb))
            return lax.dot_general(a, x, (((nb + 1,), (nb,)), (batch, batch)),
                                   precision=lax.Precision.HIGHEST)
        return _matmul(a, x, precision=lax.Precision.HIGHEST)
    if transpose_solve_with is None:
        return lax.custom_linear_solve(matvec, b, lambda _, y: solve_with(factors, y),
                                       symmetric=True)
    return lax.custom_linear_solve(matvec, b, lambda _, y: solve_with(factors, y),
                                   lambda _, y: transpose_solve_with(factors, y))


def _solve(a, b, vector=False):
    """getrf once, two trsm per solve (forward, and transposed in reverse mode); with
    `vector`, b (and x) batch + (m,), solved as one column."""
    lu, _, perm = lax.linalg.lu(lax.stop_gradient(a))

    def with_lu(trans):
        if not vector:
            return lambda f, y: _lu_solve(f[0], f[1], y, trans=trans)
        return lambda f, y: lax.squeeze(_lu_solve(f[0], f[1], lax.expand_dims(
            y, (len(_shape(y)),)), trans=trans), (len(_shape(y)),))
    return factored_solve(a, b, (lu, perm), with_lu(0), with_lu(1), vector=vector)


def inv(a):
    """The inverse of square matrices (through `solve` against the identity)."""
    a = _square("inv", a, "Argument to inv must have shape [..., n, n], got {shape}.")
    e = uf.broadcast_to_shape(lax.convert_element_type(_eye(_shape(a)[-1]), _dt(a)), _shape(a))
    return solve(a, e)


def _parity(pivots):
    """How many rows the pivots actually swapped."""
    iota = lax.broadcasted_iota(np.int32, _shape(pivots), len(_shape(pivots)) - 1)
    return _sum(uf.not_equal(pivots, iota), axis=-1, dtype=np.int32)


@library_jit
def _slogdet_lu(a):
    dt = _dt(a)
    lu, piv, _ = lax.linalg.lu(a)
    d = _diag(lu)
    is_zero = _any(uf.equal(d, 0), axis=-1)
    parity = _parity(piv)
    if dtypes.issubdtype(dt, np.complexfloating):
        sign = _prod(uf.true_divide(d, lax.convert_element_type(uf.abs(d), dt)), axis=-1)
    else:
        sign = np.asarray(1, dt)
        parity = uf.add(parity, _sum(uf.less(d, 0), axis=-1, dtype=np.int32))
    flip = lax.convert_element_type(uf.subtract(1, uf.multiply(2, uf.remainder(parity, 2))), dt)
    sign = where(is_zero, np.asarray(0, dt), uf.multiply(sign, flip))
    logdet = where(is_zero, np.asarray(-np.inf, dt),
                   lax.convert_element_type(_sum(uf.log(uf.abs(d)), axis=-1), dt))
    return sign, uf.real(logdet)


def _slogdet_qr(a):
    """From the QR factorization: |det| is the product of |R|'s diagonal; the sign
    also counts the reflections actually made (tau != 0 has determinant -1)."""
    if dtypes.issubdtype(_dt(a), np.complexfloating):
        raise NotImplementedInAstjaxError("slogdet method='qr' not implemented for complex "
                                          "inputs")
    n = _shape(a)[-1]
    h, taus = lax.linalg.geqrf(a)
    d = _diag(h)
    logabs = _sum(uf.log(uf.abs(d)), axis=-1)
    sign_d = _prod(uf.sign(d), axis=-1)
    t = lax.slice_in_dim(taus, 0, n - 1, axis=len(_shape(taus)) - 1)
    flips = _prod(where(uf.not_equal(t, 0), -1, 1), axis=-1)
    return uf.multiply(sign_d, lax.convert_element_type(flips, _dt(sign_d))), logabs


def _det_small(a):
    n = _shape(a)[-1]

    def e(i, j):
        return a[..., i, j]
    if n == 1:
        return e(0, 0)
    if n == 2:
        return uf.subtract(uf.multiply(e(0, 0), e(1, 1)), uf.multiply(e(0, 1), e(1, 0)))
    terms = [(1, (0, 0), (1, 1), (2, 2)), (1, (0, 1), (1, 2), (2, 0)), (1, (0, 2), (1, 0), (2, 1)),
             (-1, (0, 2), (1, 1), (2, 0)), (-1, (0, 0), (1, 2), (2, 1)),
             (-1, (0, 1), (1, 0), (2, 2))]
    out = None
    for sgn, p, q, r in terms:
        t = uf.multiply(uf.multiply(e(*p), e(*q)), e(*r))
        out = t if out is None else (uf.add(out, t) if sgn > 0 else uf.subtract(out, t))
    return out


def slogdet(a, *, method=None):
    """(sign, log|det|) of square matrices, from the LU factorization (closed forms
    for 1x1 and 2x2, as JAX), or from QR with `method='qr'`."""
    a = _square("slogdet", a)
    if method not in (None, "lu", "qr"):
        raise ArgumentValueError(f"Unknown slogdet method '{method}'. Supported methods are "
                                 "'lu' (`None`), and 'qr'.")
    if method == "qr":
        return SlogdetResult(*_slogdet_qr_d(a))
    if _shape(a)[-1] in (1, 2) and method != "qr":
        return SlogdetResult(*_slogdet_small_d(a))
    return SlogdetResult(*_slogdet_lu_d(a))


def _slogdet_small(a):
    # (`sign` of a complex determinant as JAX's: sign(inf + 0.77j) = nan + 0j)
    d = _det_small(a)
    return uf.sign(d), uf.log(uf.abs(d))


def _trace(x):
    return _tr(x, axis1=-2, axis2=-1)


def _slogdet_jvp(slogdet_fn):
    """JAX's slogdet derivative: d log|det a| = trace(a^-1 da) (one LU, through
    `solve`); the sign's is zero for real a and i Im(...) sign for complex a."""
    def jvp(primals, tangents):
        a, = primals
        da, = tangents
        sign, logdet = slogdet_fn(a)
        return (sign, logdet), _slogdet_tangents(sign, _trace(solve(a, da)))
    return jvp


def _slogdet_tangents(sign, t):
    """(d sign, d log|det|) from t = trace(a^-1 da): 0 and t for real a, i Im(t) sign
    and Re(t) for complex a."""
    if dtypes.issubdtype(_dt(t), np.complexfloating):
        re = uf.real(t)
        return uf.multiply(uf.subtract(t, lax.convert_element_type(re, _dt(t))), sign), re
    return lax.full_like(sign, 0), t


def _slogdet_small_jvp(primals, tangents):
    """The 1x1 and 2x2 closed forms' derivative, as JAX's: trace(a^-1 da) is da / a, or
    the adjugate's product over det a."""
    (a,), (da,) = primals, tangents
    sign, logdet = _slogdet_small(a)

    def e(x, i, j):
        return x[..., i, j]
    if _shape(a)[-1] == 1:
        t = uf.true_divide(e(da, 0, 0), e(a, 0, 0))
    else:
        adj = uf.add(uf.subtract(uf.subtract(uf.multiply(e(da, 0, 0), e(a, 1, 1)),
                                             uf.multiply(e(da, 0, 1), e(a, 1, 0))),
                                 uf.multiply(e(da, 1, 0), e(a, 0, 1))),
                     uf.multiply(e(da, 1, 1), e(a, 0, 0)))
        t = uf.true_divide(adj, _det_small(a))
    return (sign, logdet), _slogdet_tangents(sign, t)


_slogdet_lu_d = custom_jvp(_slogdet_lu)
_slogdet_lu_d.defjvp(_slogdet_jvp(_slogdet_lu))
_slogdet_small_d = custom_jvp(_slogdet_small)
_slogdet_small_d.defjvp(_slogdet_small_jvp)
_slogdet_qr_d = custom_jvp(_slogdet_qr)
_slogdet_qr_d.defjvp(_slogdet_jvp(_slogdet_qr))


def _cofactor_solve(a, b):
    """(det a, adj(a) @ b) for square a and b (..., n, n), by JAX's formula op for op
    (so that det's derivatives have JAX's bits): det(a) a^-1 b where a is invertible,
    and still the adjugate's product where a has rank n - 1 with the zero pivot last.
    With P a = L U and p the running products of U's diagonal (times det P), U's last
    pivot is replaced by 1 / p[n-2]: solving with that U, the rows above the last
    scaled by p[n-1], gives adj(a) b without dividing by a zero pivot. Where that
    modified U is singular to working precision (rank < n - 1), the result is zero."""
    n = _shape(a)[-1]
    if n == 1:
        return a[..., 0, 0], b
    dt = _dt(a)
    lu, piv, perm = lax.linalg.lu(a)
    sign = lax.convert_element_type(uf.add(uf.multiply(-2, uf.remainder(_parity(piv), 2)),
                                           1), dt)
    partial = uf.multiply(_cumprod(_diag(lu), axis=-1), sign[..., None])
    lu = scatter_index(lu, (Ellipsis, -1, -1), uf.true_divide(1.0, partial[..., -2]), "set")
    ones = lax.full(_shape(lu)[:-1] + (1,), 1, dt)
    d = lax.linalg.triangular_solve(lu, ones, left_side=True, lower=False)
    d = _any(uf.logical_or(uf.isnan(d), uf.isinf(d)), axis=(-2, -1))[..., None, None]
    x = where(d, lax.full_like(b, 0), b)
    x = lax.linalg.triangular_solve(lu, permute_rows(x, perm), left_side=True, lower=True,
                                    unit_diagonal=True)
    x = lax.concatenate([uf.multiply(x[..., :-1, :], partial[..., -1, None, None]),
                         x[..., -1:, :]], len(_shape(x)) - 2)
    x = lax.linalg.triangular_solve(lu, x, left_side=True, lower=False)
    return partial[..., -1], where(d, lax.full_like(x, 0), x)


@custom_jvp
def _det_lu(a):
    sign, logdet = slogdet(a)
    return uf.multiply(sign, lax.convert_element_type(uf.exp(logdet), _dt(sign)))


def _det_jvp(primals, tangents):
    # JAX's rule: d det a = trace(adj(a) da), finite at singular a of rank n - 1
    det_a, z = _cofactor_solve(primals[0], tangents[0])
    return det_a, _trace(z)


_det_lu.defjvp(_det_jvp)


def det(a):
    """The determinant of square matrices (closed form for 2x2 and 3x3, else from LU,
    differentiated through the adjugate as JAX's)."""
    a = _square("_det", a)
    if _shape(a)[-1] in (2, 3):
        return _det_small(a)
    return _det_lu(a)

# ------------------------------------------------------------------ QR, eigen, SVD


def qr(a, mode="reduced"):
    """QRResult(Q, R) (mode 'reduced'/'full': k = min(m, n) columns of Q; 'complete':
    all m) or R alone (mode 'r')."""
    a = _inexact("qr", a)
    if len(_shape(a)) < 2:
        raise ShapeValueError(f"qr requires ndim >= 2, got shape {_shape(a)}")
    if mode == "raw":  # LAPACK's packed form, transposed as NumPy returns it
        h, taus = lax.linalg.geqrf(a)
        return QRResult(_mT(h), taus)
    if mode in ("reduced", "r", "full"):
        full = False
    elif mode == "complete":
        full = True
    else:
        raise ArgumentValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax.linalg.qr(a, full_matrices=full)
    return r if mode == "r" else QRResult(q, r)


def eigh(a, UPLO=None, symmetrize_input=True):  # noqa: N803
    """EighResult(eigenvalues ascending, eigenvectors in columns) of Hermitian
    matrices (LAPACK syevd/heevd)."""
    if UPLO is None or UPLO == "L":
        lower = True
    elif UPLO == "U":
        lower = False
    else:
        raise ArgumentValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    a = _inexact("eigh", a)
    v, w = lax.linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):  # noqa: N803
    """The ascending eigenvalues of Hermitian matrices."""
    return eigh(a, UPLO, symmetrize_input=symmetrize_input)[0]


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """SVDResult(U, S, Vh) (S descending; LAPACK gesdd), or S alone; `hermitian`
    goes through `eigh` (S = |eigenvalues| sorted)."""
    a = _inexact("svd", a)
    if hermitian:
        v, w = lax.linalg.eigh(a, subset_by_index=subset_by_index)
        s = uf.abs(w)
        if not compute_uv:
            return lax.rev(lax.sort(s, dimension=len(_shape(s)) - 1), (len(_shape(s)) - 1,))
        nd = len(_shape(s))
        idx = lax.broadcasted_iota(np.int32, _shape(s), nd - 1)
        s, idx, sign = lax.sort((s, idx, uf.sign(w)), dimension=nd - 1, num_keys=1)
        s, idx, sign = (lax.rev(x, (nd - 1,)) for x in (s, idx, sign))
        u = take_along_axis(v, lax.expand_dims(idx, (nd - 1,)), axis=-1)
        vh = _mH(uf.multiply(u, lax.convert_element_type(lax.expand_dims(sign, (nd - 1,)),
                                                         _dt(u))))
        return SVDResult(u, s, vh)
    if compute_uv:
        u, s, vh = lax.linalg.svd(a, full_matrices=full_matrices, compute_uv=True,
                                  subset_by_index=subset_by_index)
        return SVDResult(u, s, vh)
    return lax.linalg.svd(a, full_matrices=full_matrices, compute_uv=False,
                          subset_by_index=subset_by_index)


def svdvals(x, /):
    """The singular values, descending."""
    return svd(x, compute_uv=False)


def eig(a):
    """EigResult(eigenvalues, right eigenvectors) of general square matrices
    (complex; LAPACK geev). Only the eigenvalues are differentiable, as in JAX."""
    a = _square("eig", a, "eig requires square matrices (..., n, n), got shape {shape}")
    w, v = lax.linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a):
    """The eigenvalues of general square matrices (complex)."""
    a = _square("eigvals", a, "eigvals requires square matrices (..., n, n), got shape {shape}")
    return lax.linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse: singular values at most rtol * s_max are
    dropped (default rtol = 10 * max(m, n) * eps); differentiated by JAX's rule (Golub
    and Pereyra's derivative of the pseudo-inverse), not through the SVD."""
    if rcond is not None:
        if rtol is not None:
            raise ArgumentValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(_inexact("pinv", a), rtol, bool(hermitian))


@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
@library_jit(static_argnums=(2,))
def _pinv(a, rtol, hermitian):
    m, n = _shape(a)[-2:]
    a = uf.conjugate(a)
    if rtol is None:
        rtol = 10.0 * max(m, n) * float(dtypes.finfo(_dt(a)).eps)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    nd = len(_shape(s))
    rt = asarray(rtol)
    rt = lax.reshape(rt, _shape(rt) + (1,) * (nd - len(_shape(rt))))
    cutoff = uf.multiply(rt, lax.slice_in_dim(s, 0, 1, axis=nd - 1))
    s = lax.convert_element_type(where(uf.greater(s, cutoff), s, np.inf), _dt(u))
    out = _matmul(_mT(vh), uf.true_divide(_mT(u), lax.expand_dims(s, (nd,))),
                  precision=lax.Precision.HIGHEST)
    return lax.convert_element_type(out, _dt(a))


def _pinv_jvp(rtol, hermitian, primals, tangents):
    # JAX 0.10.2's formula, in its association order (so the tangent's bits are JAX's)
    a, = primals
    a_dot, = tangents
    p = _pinv(a, rtol, hermitian)

    def mm(x, y):
        return _matmul(x, y, precision=lax.Precision.HIGHEST)
    if hermitian:   # (the SVD of a Hermitian matrix symmetrizes its input)
        a, a_dot = _symmetrize(a), _symmetrize(a_dot)
    m, n = _shape(a)[-2:]
    if m >= n:
        s = mm(mm(p, _mH(p)), _mH(a_dot))
        t = mm(mm(_mH(a_dot), _mH(p)), p)
        p_dot = mm(uf.negative(mm(p, a_dot)), p)
        p_dot = uf.subtract(uf.add(p_dot, s), mm(mm(s, a), p))
        p_dot = uf.subtract(uf.add(p_dot, t), mm(mm(p, a), t))
    else:
        s = mm(p, mm(_mH(p), _mH(a_dot)))
        t = mm(_mH(a_dot), mm(_mH(p), p))
        p_dot = mm(uf.negative(p), mm(a_dot, p))
        p_dot = uf.subtract(uf.add(p_dot, s), mm(s, mm(a, p)))
        p_dot = uf.subtract(uf.add(p_dot, t), mm(p, mm(a, t)))
    return p, p_dot


_pinv.defjvp(_pinv_jvp)


def _symmetrize(x):
    return uf.true_divide(uf.add(x, _mH(x)), 2)


def _mT(x):
    nd = len(_shape(x))
    return lax.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):  # noqa: N803
    """The number of singular values above rtol * s_max (default max(m, n) * eps)."""
    if tol is not None:
        if rtol is not None:
            raise ArgumentValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M = _inexact("matrix_rank", M)  # noqa: N806
    if len(_shape(M)) < 2:
        return lax.convert_element_type(_any(uf.not_equal(M, 0)), np.int32)
    s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        rtol = uf.multiply(_max(s, axis=-1), float(max(_shape(M)[-2:])) *
                           float(dtypes.finfo(_dt(s)).eps))
    rtol = asarray(rtol)
    rtol = lax.expand_dims(rtol, (len(_shape(rtol)),))
    return _sum(uf.greater(s, rtol), axis=-1)


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """(x, residuals, rank, s) of the least-squares problem a x = b (2-D a), by SVD."""
    a, b = asarray_operand(a), asarray_operand(b)
    if numpy_resid:
        return _lstsq(a, b, rcond, numpy_resid=True)
    return _lstsq_call(a, b, rcond)


def _lstsq(a, b, rcond, numpy_resid):
    a, b = promote_dtypes_inexact(a, b)
    sa, sb = _shape(a), _shape(b)
    if sa[0] != sb[0]:
        raise ShapeValueError("Leading dimensions of input arrays must match")
    vec = len(sb) == 1
    if vec:
        b = lax.reshape(b, sb + (1,))
    if len(sa) != 2:
        raise ShapeError(f"{len(sa)}-dimensional array given. Array must be two-dimensional")
    if len(_shape(b)) != 2:
        raise ShapeError(f"{len(sb)}-dimensional array given. Array must be one or "
                         "two-dimensional")
    m, n = sa
    dt = _dt(a)
    eps = float(dtypes.finfo(dt).eps)
    if rcond is None:
        rcond = eps * max(n, m)
    else:
        rcond = where(uf.less(rcond, 0), eps, rcond)
    u, s, vt = svd(a, full_matrices=False)
    rdt = _dt(s)
    mask = uf.logical_and(uf.greater(s, 0), uf.greater_equal(
        s, uf.multiply(lax.convert_element_type(asarray(rcond), rdt), s[0])))
    rank = _sum(mask)
    safe = lax.convert_element_type(where(mask, s, 1), dt)
    s_inv = lax.expand_dims(where(mask, uf.true_divide(1, safe), np.asarray(0, dt)), (1,))
    uTb = _matmul(_mH(u), b, precision=lax.Precision.HIGHEST)  # noqa: N806
    x = _matmul(_mH(vt), uf.multiply(s_inv, uTb), precision=lax.Precision.HIGHEST)
    r = uf.subtract(b, _matmul(a, x, precision=lax.Precision.HIGHEST))
    # JAX's `norm(r, axis=0) ** 2`: the square of a square root, not the sum itself
    resid = lax.integer_pow(_column_norm(r), 2)
    # NumPy returns no residuals here (a rank under jit: JAX's concretization error)
    if numpy_resid and (m <= n or bool(uf.less(rank, n))):
        resid = asarray(np.zeros((0,), _dt(resid)))
    if vec:
        x = lax.reshape(x, (n,))
    return x, resid, rank, s


# compiled and a nested call, as JAX's jitted `norm` (its eager digits: the products
# fused into the sum)
@library_jit(keep_call=True)
def _column_norm(r):
    return uf.sqrt(_sum(uf.real(uf.multiply(r, uf.conjugate(r))), axis=0))


# a nested call, as JAX's jitted lstsq: reverse mode sums a's cotangents (from the SVD
# and the residuals' product) inside it, in JAX's order
@library_jit(keep_call=True)
def _lstsq_call(a, b, rcond):
    return _lstsq(a, b, rcond, numpy_resid=False)
