"""`astjax.numpy.linalg`: norms, products and factorizations in pure StableHLO.

- `cholesky` lowers to `stablehlo.cholesky`; `solve_triangular` (in
  `astjax.scipy.linalg`) to `stablehlo.triangular_solve`.
- `lu_factor`, `solve`, `inv`, `det`, `slogdet`: Gaussian elimination with partial
  pivoting in lax ops (unrolled for n <= 12, a `fori_loop` beyond); `qr`:
  Householder reflections; `eigh`/`eigvalsh`: parallel cyclic Jacobi (round-robin
  ordering, fixed sweep count); `svd`/`svdvals`/`pinv`/`matrix_rank`/`cond`/`lstsq`
  and the 2/nuclear norms: through `eigh` of [[0, A], [A^T, 0]]. All differentiable
  and batchable through the primitives they use; JAX calls LAPACK here instead,
  so expect LAPACK-level accuracy but not LAPACK speed for large matrices.
- Missing: `eig`/`eigvals` (non-symmetric eigenproblems) and complex `eigh`/`svd`.
"""
from __future__ import annotations

import collections

import numpy as np

from ... import core, dtypes, lax
from ...core import bind
from ...errors import MissingNameError, NotImplementedInAstjaxError, ShapeError
from ...primitives.linalg import cholesky_p
from .. import ufuncs as uf
from ..advanced_indexing import take_along_axis as _take_along_axis
from ..arrayops import cross as _cross, vecdot as _vd
from ..contractions import dot as _dot, matmul as _matmul, outer as _outer, tensordot as _td
from ..creation import eye as _eye, tril as _tril, triu as _triu
from ..operands import _constant
from ..reductions import max as _max, min as _min, prod as _prod, sum as _sum
from ..shapes import diagonal as _dg, moveaxis as _moveaxis, ravel as _ravel, trace as _tr
from ..sorting import argsort as _argsort
from ..ufuncs import asarray_operand, promote_args_inexact, where
from ..util import _Direct, canonicalize_axes, library_jit

__all__ = ["eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "cond", "lstsq",
           "norm", "vector_norm", "matrix_norm", "cholesky", "solve", "inv", "det",
           "slogdet", "lu_factor", "qr", "matrix_power", "multi_dot", "outer", "cross",
           "matmul", "tensordot", "vecdot", "trace", "diagonal", "matrix_transpose",
           "tensorsolve", "tensorinv"]

_MISSING = ("eig", "eigvals")


def _shape(x):
    return core.get_aval(x).shape


def _dt(x):
    return core.get_aval(x).dtype


def _square(name, a):
    [a] = promote_args_inexact(name, asarray_operand(a))
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeError(f"linalg.{name} needs square matrices (..., n, n), got shape {s}")
    return a


def _real(x):
    return lax.real(x) if dtypes.issubdtype(_dt(x), np.complexfloating) else x

# --------------------------------------------------------------------- norms


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    [x] = promote_args_inexact("vector_norm", asarray_operand(x))
    if axis is None:
        out = vector_norm(_ravel(x), axis=0, ord=ord)
        return lax.reshape(out, (1,) * len(_shape(x))) if keepdims else out
    ax = uf.abs(x)
    if ord == 2 or ord is None:
        if dtypes.issubdtype(_dt(x), np.complexfloating):
            sq = _real(uf.multiply(x, uf.conjugate(x)))
        else:
            sq = uf.multiply(x, x)
        return uf.sqrt(_sum(sq, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return _max(ax, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _min(ax, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum(lax.convert_element_type(uf.not_equal(x, 0), _dt(ax)), axis=axis,
                    keepdims=keepdims)
    if ord == 1:
        return _sum(ax, axis=axis, keepdims=keepdims)
    p = float(ord)
    return uf.power(_sum(uf.power(ax, p), axis=axis, keepdims=keepdims), 1.0 / p)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    [x] = promote_args_inexact("norm", asarray_operand(x))
    nd = len(_shape(x))
    if axis is None:
        if ord is None:
            out = vector_norm(_ravel(x), axis=0)
            return lax.reshape(out, (1,) * nd) if keepdims else out
        axis = tuple(range(nd))
    axes = canonicalize_axes(axis, nd, "norm")
    if len(axes) == 1:
        return vector_norm(x, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ShapeError(f"linalg.norm: invalid axis {axis} for an array of rank {nd}")
    r, c = axes
    ax = uf.abs(x)
    if ord in (None, "fro", "f"):
        return vector_norm(x, axis=axes, keepdims=keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        red = _max if ord in (1, np.inf) else _min
        if ord in (1, -1):
            s = _sum(ax, axis=r, keepdims=True)
        else:
            s = _sum(ax, axis=c, keepdims=True)
        out = red(s, axis=c if ord in (1, -1) else r, keepdims=True)
        if not keepdims:
            out = lax.squeeze(out, tuple(sorted((r, c))))
        return out
    if ord in (2, -2, "nuc"):
        s = svd(_moveaxis(x, (r, c), (-2, -1)), compute_uv=False)
        out = _sum(s, axis=-1) if ord == "nuc" else (_max if ord == 2 else _min)(s, axis=-1)
        if keepdims:
            out = lax.expand_dims(out, tuple(sorted((r, c))))
        return out
    raise ShapeError(f"linalg.norm: invalid norm order {ord!r} for matrices")

# ------------------------------------------------------------ factorizations


@library_jit(static_argnames=("upper", "symmetrize_input"))
def cholesky(a, *, upper=False, symmetrize_input=True):
    a = _square("cholesky", a)
    if symmetrize_input:
        a = uf.multiply(uf.add(a, uf.conjugate(_mT(a))), 0.5)
    L = bind(cholesky_p, a, lower=True)
    return uf.conjugate(_mT(L)) if upper else L


def _mT(a):
    nd = len(_shape(a))
    return lax.transpose(a, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _iotas(shape):
    nd = len(shape)
    return (lax.broadcasted_iota(dtypes.int32, shape, nd - 2),
            lax.broadcasted_iota(dtypes.int32, shape, nd - 1))


def _col(a, k):
    return lax.index_in_dim(a, k, len(_shape(a)) - 1, False)


def lu_factor(a):
    """(lu, perm, sign): P A = L U with partial pivoting; `lu` holds U and the
    unit-lower L below the diagonal, `perm` the row permutation (int32), `sign`
    its parity (+1/-1)."""
    return _lu(a)[:3]


_UNROLL = 12  # up to this size the column loops are unrolled; beyond, a fori_loop


def _loop(n, body, carry, reverse=False):
    """carry = body(k, carry) for k in range(n) (reversed if asked): unrolled with
    static k for small n, else a staged fori_loop with a traced k."""
    if n <= _UNROLL:
        for k in (range(n - 1, -1, -1) if reverse else range(n)):
            carry = body(k, carry)
        return carry
    if reverse:
        return lax.fori_loop(0, n, _Direct(lambda i, c: body(
            lax.sub(np.int32(n - 1), i), c)), carry)
    return lax.fori_loop(0, n, _Direct(body), carry)


def _at(x, k, axis, keepdims=False):
    """x[..., k, ...] along `axis` for a static or traced k."""
    if isinstance(k, (int, np.integer)):
        return lax.index_in_dim(x, int(k), axis, keepdims)
    return lax.dynamic_index_in_dim(x, k, axis, keepdims)


@library_jit
def _lu(a):
    """lu_factor plus LAPACK-style pivots (row k was swapped with row piv[k])."""
    a = _square("lu", a)
    shape = _shape(a)
    n = shape[-1]
    batch = shape[:-2]
    nb = len(batch)
    rows, cols = _iotas(shape)
    vidx = lax.broadcasted_iota(dtypes.int32, batch + (n,), nb)
    rdt = _dt(_real(a))
    zero = np.asarray(0, _dt(a))[()]

    def step(k, carry):
        a, perm, sign, piv = carry
        cand = where(uf.greater_equal(vidx, k), uf.abs(_at(a, k, nb + 1)),
                     np.asarray(-1, rdt)[()])
        m = _max(cand, axis=-1, keepdims=True)
        p = _min(where(uf.equal(cand, m), vidx, np.int32(n)), axis=-1)
        pv = lax.reshape(p, batch + (1,))
        piv = where(uf.equal(vidx, k), pv, piv)
        is_p = uf.equal(rows, lax.reshape(p, batch + (1, 1)))
        row_p = _sum(where(is_p, a, zero), axis=-2, keepdims=True)
        row_k = _at(a, k, nb, True)
        a = where(uf.equal(rows, k), row_p, where(is_p, row_k, a))
        perm_p = _sum(where(uf.equal(vidx, pv), perm, np.int32(0)), axis=-1, keepdims=True)
        perm_k = _at(perm, k, nb, True)
        perm = where(uf.equal(vidx, k), perm_p, where(uf.equal(vidx, pv), perm_k, perm))
        sign = where(uf.not_equal(p, k), uf.negative(sign), sign)
        row_k = _at(a, k, nb, True)
        pivot = lax.reshape(_at(lax.reshape(row_k, batch + (n,)), k, nb), batch + (1,))
        zero_piv = uf.equal(pivot, 0)
        l_col = where(uf.logical_and(uf.greater(vidx, k), uf.logical_not(zero_piv)),
                      uf.true_divide(_at(a, k, nb + 1),
                                     where(zero_piv, np.asarray(1, _dt(a))[()], pivot)), zero)
        l_col = lax.reshape(l_col, batch + (n, 1))
        a = uf.subtract(a, uf.multiply(l_col, where(uf.greater(cols, k), row_k, zero)))
        a = where(uf.logical_and(uf.equal(cols, k), uf.greater(rows, k)), l_col, a)
        return a, perm, sign, piv

    init = (a, vidx, lax.full(batch, 1, _dt(a)), vidx)
    a, perm, sign, piv = _loop(n, step, init)
    return a, perm, sign, piv


def _diag(a):
    rows, cols = _iotas(_shape(a))
    return _sum(where(uf.equal(rows, cols), a, np.asarray(0, _dt(a))[()]), axis=-1)


@library_jit
def det(a):
    lu, _, sign = lu_factor(a)
    return uf.multiply(sign, _prod(_diag(lu), axis=-1))


@library_jit(static_argnames=("method",))
def slogdet(a, *, method=None):
    lu, _, sign = lu_factor(a)
    d = _diag(lu)
    ad = uf.abs(d)
    if dtypes.issubdtype(_dt(d), np.complexfloating):
        unit = uf.true_divide(d, lax.convert_element_type(where(uf.equal(ad, 0), 1.0, ad), _dt(d)))
    else:
        unit = uf.sign(d)
    s = uf.multiply(sign, _prod(unit, axis=-1))
    return SlogdetResult(s, _sum(uf.log(ad), axis=-1))


def _lu_solve(lu, perm, b):
    """Solve L U x = P b for b of shape batch + (n, k)."""
    shape = _shape(lu)
    n = shape[-1]
    batch = shape[:-2]
    nb = len(batch)
    # P b as a one-hot contraction (no gather)
    onehot = uf.equal(lax.reshape(perm, batch + (n, 1)),
                      lax.broadcasted_iota(dtypes.int32, batch + (n, n), nb + 1))
    y = _matmul(lax.convert_element_type(onehot, _dt(lu)), b)
    ridx = lax.broadcasted_iota(dtypes.int32, _shape(y), nb)
    zero = np.asarray(0, _dt(lu))[()]

    def forward(i, y):  # unit lower triangle
        yi = _at(y, i, nb, True)
        li = lax.reshape(_at(lu, i, nb + 1), batch + (n, 1))
        # masked after the product: 0 * inf must not turn solved rows into NaN
        return uf.subtract(y, where(uf.greater(ridx, i), uf.multiply(li, yi), zero))

    def backward(i, y):
        row = lax.reshape(_at(lu, i, nb), batch + (n,))
        uii = lax.reshape(_at(row, i, nb), batch + (1, 1))
        xi = uf.true_divide(_at(y, i, nb, True), uii)
        y = where(uf.equal(ridx, i), xi, y)
        ui = lax.reshape(_at(lu, i, nb + 1), batch + (n, 1))
        return uf.subtract(y, where(uf.less(ridx, i), uf.multiply(ui, xi), zero))
    y = _loop(n, forward, y)
    y = _loop(n, backward, y, reverse=True)
    return y


@library_jit
def solve(a, b):
    a = _square("solve", a)
    a, b = uf.promote_dtypes(a, asarray_operand(b))
    n = _shape(a)[-1]
    vec = len(_shape(b)) == 1
    if vec:
        b = lax.reshape(b, (n, 1))
    if _shape(b)[-2] != n:
        raise ShapeError(f"linalg.solve: b of shape {_shape(b)} does not match a of shape "
                         f"{_shape(a)}")
    batch = uf.broadcast_shapes(_shape(a)[:-2], _shape(b)[:-2])
    a = uf.broadcast_to_shape(a, batch + _shape(a)[-2:])
    b = uf.broadcast_to_shape(b, batch + _shape(b)[-2:])
    lu, perm, _ = lu_factor(a)
    x = _lu_solve(lu, perm, b)
    return lax.reshape(x, batch + (n,)) if vec else x


@library_jit
def inv(a):
    a = _square("inv", a)
    n = _shape(a)[-1]
    e = uf.broadcast_to_shape(lax.convert_element_type(_eye(n), _dt(a)), _shape(a))
    lu, perm, _ = lu_factor(a)
    return _lu_solve(lu, perm, e)


@library_jit(static_argnums=(1,))
def qr(a, mode="reduced"):
    """Householder QR (real and complex), matching LAPACK's sign convention."""
    [a] = promote_args_inexact("qr", asarray_operand(a))
    shape = _shape(a)
    if len(shape) < 2:
        raise ShapeError(f"linalg.qr needs a matrix, got shape {shape}")
    m, n = shape[-2:]
    batch = shape[:-2]
    nb = len(batch)
    q = uf.broadcast_to_shape(lax.convert_element_type(_eye(m), _dt(a)), batch + (m, m))
    vidx = lax.broadcasted_iota(dtypes.int32, batch + (m,), nb)
    zero = np.asarray(0, _dt(a))[()]
    cplx = dtypes.issubdtype(_dt(a), np.complexfloating)
    for k in range(min(m - 1, n) if not cplx else min(m, n)):
        v = where(uf.greater_equal(vidx, k), _col(a, k), zero)
        xk = lax.index_in_dim(v, k, nb, True)
        nrm = vector_norm(v, axis=-1, keepdims=True)
        if cplx:
            axk = uf.abs(xk)
            phase = where(uf.equal(axk, 0), np.asarray(1, _dt(a))[()],
                          uf.true_divide(xk, lax.convert_element_type(
                              where(uf.equal(axk, 0), 1.0, axk), _dt(a))))
            alpha = uf.negative(uf.multiply(phase, lax.convert_element_type(nrm, _dt(a))))
        else:
            s = where(uf.less(xk, 0), -1.0, 1.0)
            alpha = uf.negative(uf.multiply(s, nrm))
        u = uf.subtract(v, where(uf.equal(vidx, k), alpha, zero))
        un = vector_norm(u, axis=-1, keepdims=True)
        u = uf.true_divide(u, lax.convert_element_type(where(uf.equal(un, 0), 1.0, un), _dt(a)))
        uc = uf.conjugate(u)
        # a -= 2 u (u^H a); q -= 2 (q u) u^H
        uha = _matmul(lax.reshape(uc, batch + (1, m)), a)
        a = uf.subtract(a, uf.multiply(2.0, _matmul(lax.reshape(u, batch + (m, 1)), uha)))
        qu = _matmul(q, lax.reshape(u, batch + (m, 1)))
        q = uf.subtract(q, uf.multiply(2.0, _matmul(qu, lax.reshape(uc, batch + (1, m)))))
    rows, cols = _iotas(_shape(a))
    r = where(uf.greater(rows, cols), zero, a)
    if mode == "r":
        return r if m <= n else lax.slice_in_dim(r, 0, n, axis=nb)
    if mode == "complete" or m <= n:
        return q, r
    if mode != "reduced":
        raise ShapeError(f"linalg.qr: unknown mode {mode!r}")
    return lax.slice_in_dim(q, 0, n, axis=nb + 1), lax.slice_in_dim(r, 0, n, axis=nb)


def _round_robin(n):
    """Position permutation of the circle method: pairs (0,1), (2,3), ... of the
    arrangements perm^0, perm^1, ..., perm^(n-2) cover every pair once (n even)."""
    m = n // 2
    top, bot = list(range(0, n, 2)), list(range(1, n, 2))
    # circle method on positions: keep top[0], rotate the others one place
    ring = top[1:] + bot[::-1]
    ring = ring[-1:] + ring[:-1]
    new_top = [top[0]] + ring[:m - 1]
    new_bot = ring[m - 1:][::-1]
    order = [x for pair in zip(new_top, new_bot) for x in pair]
    P = np.zeros((n, n))
    for new_pos, old_pos in enumerate(order):
        P[old_pos, new_pos] = 1.0
    return P


EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])


def _jacobi_eigh(a, sweeps):
    """Cyclic Jacobi with the round-robin ordering: every round rotates n/2 disjoint
    index pairs at once (a block-diagonal rotation J, A <- J^T A J), then permutes
    the indices so the next round meets new pairs."""
    shape = _shape(a)
    n0 = shape[-1]
    batch = shape[:-2]
    nb = len(batch)
    dt = _dt(a)
    n = n0 + (n0 % 2)
    if n != n0:  # an odd size gets a decoupled dummy index (no rotation touches it)
        a = lax.pad(a, np.asarray(0, dt)[()], [(0, 0, 0)] * nb + [(0, 1, 0), (0, 1, 0)])
    m = n // 2
    P = lax.convert_element_type(_constant(_round_robin(n).astype(np.float32)), dt)
    Pt = lax.transpose(P, (1, 0))
    blk = lax.convert_element_type(lax.reshape(_eye(m), (m, 1, m, 1)), dt)
    v = uf.broadcast_to_shape(lax.convert_element_type(_eye(n), dt), batch + (n, n))
    one, zero = np.asarray(1, dt)[()], np.asarray(0, dt)[()]

    def rnd(_, carry):
        a, v = carry
        a4 = lax.reshape(a, batch + (m, 2, m, 2))
        d = _sum(uf.multiply(a4, blk), axis=nb + 2)          # batch + (m, 2, 2)
        app = _at(_at(d, 0, nb + 1), 0, nb + 1)
        aqq = _at(_at(d, 1, nb + 1), 1, nb + 1)
        apq = _at(_at(d, 0, nb + 1), 1, nb + 1)
        nz = uf.not_equal(apq, 0)
        theta = uf.true_divide(uf.subtract(aqq, app), uf.multiply(2.0, where(nz, apq, one)))
        t = uf.true_divide(where(uf.less(theta, 0), -1.0, 1.0),
                           uf.add(uf.abs(theta), uf.sqrt(uf.add(uf.multiply(theta, theta), 1.0))))
        t = where(nz, t, zero)
        c = lax.rsqrt(uf.add(uf.multiply(t, t), 1.0))
        s_ = uf.multiply(t, c)
        r = lax.concatenate([lax.reshape(x, batch + (m, 1)) for x in (c, s_, uf.negative(s_), c)],
                            nb + 1)
        r = lax.reshape(r, batch + (m, 2, 1, 2))             # rows (p, q) of each block
        j = lax.reshape(uf.multiply(blk, r), batch + (n, n))
        a = _matmul(_matmul(_mT(j), a), j)
        v = _matmul(v, j)
        return _matmul(_matmul(Pt, a), P), _matmul(v, P)

    a, v = lax.fori_loop(0, sweeps * (n - 1), _Direct(rnd), (a, v))
    w = _diag(a)
    if n != n0:
        dummy = uf.greater(uf.abs(_at(v, n0, nb)), 0.5)    # the dummy's column
        w = where(dummy, np.asarray(np.inf, dt)[()], w)
        v = lax.slice_in_dim(v, 0, n0, axis=nb)
    order = _argsort(w, axis=-1)
    w = _take_along_axis(w, order, axis=-1)
    v = _take_along_axis(v, lax.broadcast_in_dim(order, batch + (n0, n), tuple(range(nb)) + (nb + 1,)),
                        axis=-1)
    if n != n0:
        w = lax.slice_in_dim(w, 0, n0, axis=nb)
        v = lax.slice_in_dim(v, 0, n0, axis=nb + 1)
    return w, v


@library_jit(static_argnums=(1, 2), static_argnames=("UPLO", "symmetrize_input", "sort_eigenvalues"))
def eigh(a, UPLO=None, symmetrize_input=True, *, sort_eigenvalues=True):  # noqa: N803
    """Symmetric (real) eigendecomposition by parallel cyclic Jacobi: eigenvalues
    ascending, eigenvectors in columns."""
    a = _square("eigh", a)
    if dtypes.issubdtype(_dt(a), np.complexfloating):
        raise NotImplementedInAstjaxError("linalg.eigh of complex (Hermitian) matrices is "
                                          "not implemented")
    if symmetrize_input:
        a = uf.multiply(uf.add(a, _mT(a)), 0.5)
    else:
        t = _tril(a) if UPLO in (None, "L") else _triu(a)
        a = uf.subtract(uf.add(t, _mT(t)), uf.multiply(_eye_like(a), a))
    sweeps = 10 if _dt(a).itemsize <= 4 else 14
    w, v = _jacobi_eigh(a, sweeps)
    return EighResult(w, v)


def _eye_like(a):
    return uf.broadcast_to_shape(lax.convert_element_type(_eye(_shape(a)[-1]), _dt(a)), _shape(a))


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):  # noqa: N803
    return eigh(a, UPLO, symmetrize_input)[0]


SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])


@library_jit(static_argnums=(1, 2), static_argnames=("full_matrices", "compute_uv", "hermitian",
                                                    "subset_by_index"))
def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """SVD from the symmetric eigenproblem of [[0, A], [A^T, 0]] (eigenvalues +-s):
    singular values to absolute accuracy ~eps*|A|, like LAPACK's; singular vectors
    of (near-)zero singular values are not well determined."""
    [a] = promote_args_inexact("svd", asarray_operand(a))
    if dtypes.issubdtype(_dt(a), np.complexfloating):
        raise NotImplementedInAstjaxError("linalg.svd of complex matrices is not implemented")
    shape = _shape(a)
    if len(shape) < 2:
        raise ShapeError(f"linalg.svd needs a matrix, got shape {shape}")
    m, n = shape[-2:]
    batch = shape[:-2]
    nb = len(batch)
    k = min(m, n)
    dt = _dt(a)
    z1 = lax.full(batch + (m, m), 0, dt)
    z2 = lax.full(batch + (n, n), 0, dt)
    top = lax.concatenate([z1, a], nb + 1)
    bot = lax.concatenate([_mT(a), z2], nb + 1)
    w, v = eigh(lax.concatenate([top, bot], nb))
    # the k largest eigenvalues (ascending order from eigh): reverse to descending
    sv = lax.rev(lax.slice_in_dim(w, m + n - k, m + n, axis=nb), (nb,))
    sv = uf.maximum(sv, 0.0)
    if not compute_uv:
        return sv
    vecs = lax.rev(lax.slice_in_dim(v, m + n - k, m + n, axis=nb + 1), (nb + 1,))
    r2 = np.asarray(np.sqrt(2.0), dt)[()]
    u = uf.multiply(lax.slice_in_dim(vecs, 0, m, axis=nb), r2)
    vv = uf.multiply(lax.slice_in_dim(vecs, m, m + n, axis=nb), r2)
    if full_matrices and m != n:
        if m > n:
            u = _complete(u)
        else:
            vv = _complete(vv)
    return SVDResult(u, sv, _mT(vv))


def _complete(u):
    """[u, an orthonormal basis of u's orthogonal complement] (columns)."""
    q = qr(u, "complete")[0]
    k = _shape(u)[-1]
    nb = len(_shape(u)) - 2
    return lax.concatenate([u, lax.slice_in_dim(q, k, _shape(q)[-1], axis=nb + 1)], nb + 1)


def svdvals(x, /):
    return svd(x, compute_uv=False)


def _default_rtol(a, s):
    m, n = _shape(a)[-2:]
    return max(m, n) * float(dtypes.finfo(_dt(s)).eps)


def matrix_rank(M, rtol=None, *, tol=None):  # noqa: N803
    M = asarray_operand(M)
    if len(_shape(M)) < 2:
        return lax.convert_element_type(_max(uf.not_equal(M, 0)), dtypes.int32)
    s = svd(M, compute_uv=False)
    if tol is None:
        rt = _default_rtol(M, s) if rtol is None else rtol
        tol = uf.multiply(_max(s, axis=-1, keepdims=True), rt)
    return _sum(uf.greater(s, tol), axis=-1, dtype=dtypes.int32)


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    a = asarray_operand(a)
    u, s, vh = svd(a, full_matrices=False)
    rt = rcond if rcond is not None else rtol
    rt = _default_rtol(a, s) if rt is None else rt
    cutoff = uf.multiply(_max(s, axis=-1, keepdims=True), rt)
    inv_s = where(uf.greater(s, cutoff), uf.true_divide(1.0, where(uf.greater(s, cutoff), s, 1.0)),
                  0.0)
    nb = len(_shape(s)) - 1
    return _matmul(uf.multiply(_mT(vh), lax.expand_dims(inv_s, (nb,))), _mT(u))


def cond(x, p=None):
    if p not in (None, 2, -2):
        return uf.multiply(norm(x, p, axis=(-2, -1)), norm(inv(x), p, axis=(-2, -1)))
    s = svd(x, compute_uv=False)
    hi, lo = _max(s, axis=-1), _min(s, axis=-1)
    return uf.true_divide(lo, hi) if p == -2 else uf.true_divide(hi, lo)


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    a, b = uf.promote_dtypes_inexact(a, b)
    vec = len(_shape(b)) == 1
    x = _matmul(pinv(a, rtol=rcond), b)
    if vec and len(_shape(x)) != 1:
        x = lax.reshape(x, _shape(x)[:1])
    r = uf.subtract(_matmul(a, x), b)
    resid = _sum(uf.multiply(r, r), axis=0)
    s = svd(a, compute_uv=False)
    return x, resid, matrix_rank(a, rcond), s


def matrix_power(a, n):
    a = asarray_operand(a)
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeError(f"matrix_power needs square matrices, got {s}")
    n = int(n)
    if n < 0:
        a, n = inv(a), -n
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else _matmul(result, base)
        n >>= 1
        if n:
            base = _matmul(base, base)
    if result is None:
        return uf.broadcast_to_shape(lax.convert_element_type(_eye(s[-1]), _dt(a)), s)
    return result


def multi_dot(arrays, *, precision=None):
    out = arrays[0]
    for a in arrays[1:]:
        out = _dot(out, a)
    return out


def outer(x1, x2, /):
    return _outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    return _cross(x1, x2, axis=axis)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    return _matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    return _td(x1, x2, axes, precision=precision)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    return _vd(x1, x2, axis=axis)


def trace(x, /, *, offset=0, dtype=None):
    return _tr(x, offset, -2, -1, dtype)


def diagonal(x, /, *, offset=0):
    return _dg(x, offset, -2, -1)


def matrix_transpose(x, /):
    return _mT(asarray_operand(x))


def tensorsolve(a, b, axes=None):
    a, b = asarray_operand(a), asarray_operand(b)
    if axes is not None:
        a = _moveaxis(a, axes, tuple(range(len(_shape(a)) - len(axes), len(_shape(a)))))
    bs = _shape(b)
    rest = _shape(a)[len(bs):]
    nb = int(np.prod(bs, dtype=np.int64))
    x = solve(lax.reshape(a, (nb, int(np.prod(rest, dtype=np.int64)))), lax.reshape(b, (nb,)))
    return lax.reshape(x, rest)


def tensorinv(a, ind=2):
    a = asarray_operand(a)
    s = _shape(a)
    out_shape = s[ind:] + s[:ind]
    n = int(np.prod(s[:ind], dtype=np.int64))
    m = int(np.prod(s[ind:], dtype=np.int64))
    return lax.reshape(inv(lax.reshape(a, (n, m))), out_shape)


def __getattr__(name):
    if name in _MISSING:
        raise MissingNameError(
            f"astjax.numpy.linalg.{name} is not implemented: it needs a LAPACK custom call "
            "(JAX uses one on CPU) and has no StableHLO op",
            hint="cholesky, solve, inv, det, slogdet, qr, lu_factor and norm are available")
    if name.startswith("__"):
        raise AttributeError(name)
    raise MissingNameError(f"astjax.numpy.linalg.{name} is not implemented")
