"""`astjax.lax.linalg` (JAX's `jax.lax.linalg`): the factorization primitives and
their wrappers, with JAX's signatures and output orders.

- `cholesky`, `triangular_solve`: native StableHLO ops (primitives/linalg.py);
- `lu`, `lu_pivots_to_permutation`, `qr`, `eigh`, `svd`, `eig`, `schur`,
  `hessenberg`, `householder_product` (and `geqrf`): LAPACK custom calls
  (primitives/factorizations.py), each differentiable (JAX's JVP rules; `eig` for
  eigenvalues only, as in JAX) and batchable;
- `tridiagonal_solve` (LAPACK gtsv, with JAX's JVP and transpose), `tridiagonal`
  (sytrd / hetrd) and `ormqr` (ormqr / unmqr) (primitives/linalg.py, householder.py);
- `symmetric_product`, `cholesky_update` (Givens rotations) and
  `lu_pivots_to_permutation`: primitives lowered as compositions of lax operations,
  as JAX lowers them; `qdwh` (the polar decomposition by weighted Halley steps),
  written with `lax`;
- `EigImplementation`, `EighImplementation`, `SvdAlgorithm`: JAX's algorithm
  selectors; on CPU only LAPACK's is available, as in JAX.
"""
from __future__ import annotations

import enum

import numpy as np

from . import core, dtypes
from .core import bind
from .errors import ArgumentValueError
from .primitives.factorizations import (eig_p, eigh_p, lu_p, lu_pivots_to_permutation,  # noqa: F401
                                        lu_pivots_to_permutation_p, qr_p,
                                        svd_p)
from .primitives.factorizations import eig as _eig, eigh as _eigh, lu, qr as _qr, svd as _svd
from .primitives.factorizations import EighImplementation, SvdAlgorithm
from .primitives.schur import schur, schur_p
from .primitives.householder import (geqrf, hessenberg, hessenberg_p,  # noqa: F401
                                     householder_product, householder_product_p, ormqr,
                                     ormqr_p, tridiagonal, tridiagonal_p)
from .primitives.linalg import (cholesky_p, triangular_solve_p,  # noqa: F401
                                tridiagonal_solve, tridiagonal_solve_p, symmetric_product,
                                symmetric_product_p, cholesky_update, cholesky_update_p)
from .primitives import ops as _L
from .primitives.ops import (add as _add, conj as _conj, convert_element_type as _convert,
                             div as _div, expand_dims as _expand_dims, squeeze as _squeeze,
                             transpose as _tr)

__all__ = ["cholesky", "cholesky_p", "triangular_solve", "triangular_solve_p", "lu", "lu_p",
           "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "qr", "qr_p", "eigh", "eigh_p", "svd", "svd_p", "eig",
           "eig_p", "schur", "schur_p", "hessenberg", "hessenberg_p", "householder_product",
           "householder_product_p", "tridiagonal_solve", "tridiagonal_solve_p",
           "tridiagonal", "tridiagonal_p", "ormqr", "ormqr_p", "symmetric_product",
           "symmetric_product_p", "cholesky_update", "cholesky_update_p", "qdwh",
           "EigImplementation", "EighImplementation", "SvdAlgorithm"]


class EigImplementation(enum.Enum):
    """Which eigensolver `eig` uses (JAX's names)."""
    LAPACK = "lapack"
    MAGMA = "magma"
    CUSOLVER = "cusolver"


def _inexact(x):
    x = np.asarray(x) if isinstance(x, (list, tuple, int, float, complex)) else x
    dt = core.get_aval(x).dtype
    if not dtypes.is_inexact(dt):
        x = _convert(x, dtypes.canonicalize(np.dtype(np.float64)))
    return x


def _mT(x):
    n = core.get_aval(x).ndim
    return _tr(x, tuple(range(n - 2)) + (n - 1, n - 2))


def cholesky(x, *, symmetrize_input=True):
    """The lower Cholesky factor L (x = L L^H) of positive-definite matrices;
    `symmetrize_input` uses (x + x^H) / 2."""
    x = _inexact(x)
    if symmetrize_input:
        h = _mT(x)
        if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
            h = _conj(h)
        x = _div(_add(x, h), np.asarray(2, core.get_aval(x).dtype))
    return bind(cholesky_p, x, lower=True)


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                     conjugate_a=False, unit_diagonal=False):
    """Solve op(a) x = b (left_side) or x op(a) = b for triangular a, where op is
    the identity, transpose or conjugate transpose (`transpose_a`, `conjugate_a`).
    A `b` of one dimension less than `a` is one vector (per batch), as in JAX: solved
    as a one-column (left_side) or one-row matrix, the result of `b`'s shape."""
    a, b = _inexact(a), _inexact(b)
    vector = np.ndim(b) == np.ndim(a) - 1
    axis = -1 if left_side else -2
    if vector:
        b = _expand_dims(b, (axis,))
    out = bind(triangular_solve_p, a, b, left_side=bool(left_side), lower=bool(lower),
               transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
               unit_diagonal=bool(unit_diagonal))
    return _squeeze(out, (np.ndim(out) + axis,)) if vector else out


def qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """(q, r) of `x` (Householder QR through LAPACK), or (q, r, p) with column
    pivoting (geqp3): x[..., p] = q r."""
    return _qr(_inexact(x), full_matrices=full_matrices, pivoting=pivoting)


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
         subset_by_index=None, implementation=None):
    """(v, w): eigenvectors (columns) and ascending eigenvalues of Hermitian x.
    `implementation` (an `EighImplementation`): JACOBI lowers for CUDA only, QDWH
    nowhere here (JAX: TPU only) -- a NotImplementedError when lowered, as JAX."""
    return _eigh(_inexact(x), lower=lower, symmetrize_input=symmetrize_input,
                 sort_eigenvalues=sort_eigenvalues, subset_by_index=subset_by_index,
                 implementation=implementation)


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """(u, s, vh) of x (or s alone with compute_uv=False), s descending. `algorithm`
    (an `SvdAlgorithm`): on CPU DEFAULT / DIVIDE_AND_CONQUER is LAPACK's gesdd, QR its
    gesvd; for CUDA, cuSOLVER's gesvdj (JACOBI; DEFAULT up to 1024 x 1024), gesvdp
    (POLAR) or gesvd (QR); anything else is a NotImplementedError when lowered, as JAX."""
    return _svd(_inexact(x), full_matrices=full_matrices, compute_uv=compute_uv,
                subset_by_index=subset_by_index, algorithm=algorithm)


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
        use_magma=None, implementation=None):
    """[w, vl, vr] of general square x (complex), the eigenvector lists as asked."""
    if implementation is not None and implementation != EigImplementation.LAPACK:
        raise ArgumentValueError("Only the lapack implementation is supported on CPU.")
    return _eig(_inexact(x), compute_left_eigenvectors=compute_left_eigenvectors,
                compute_right_eigenvectors=compute_right_eigenvectors)


def _batch_matmul(a, b):
    nd = core.get_aval(a).ndim
    batch = tuple(range(nd - 2))
    return _L.dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)),
                          precision=_L.Precision.HIGHEST)


def _norm_1_inf(x, axis):
    """max over the other axis of the abs sums along `axis` (0: the 1-norm, 1: the
    infinity norm of a matrix)."""
    return _L.reduce_max(_L.reduce_sum(_L.abs(x), (axis,)), (0,))


def _frobenius(x):
    a = _L.abs(x)
    return _L.sqrt(_L.reduce_sum(_L.mul(a, a), (0, 1)))


def _qdwh_schedule(eps, max_iterations):
    """The static weights (a, b, c) of the dynamically weighted Halley steps that
    bring the smallest singular value bound `l` from eps up to 1."""
    steps, ell, tol_l = [], eps, 10.0 * eps / 2.0
    while ell + tol_l < 1 and len(steps) < max_iterations:
        l2 = ell * ell
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** 0.5
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** 0.5
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        ell = ell * (a + b * l2) / (1 + c * l2)
        steps.append((a, b, c))
    return steps


def _mask(x, dims, outside=None):
    """`x` where every index is below `dims` (per axis: a size, maybe staged, or None
    for the whole axis), else `outside` (zeros when None)."""
    aval = core.get_aval(x)
    inside = None
    for i, d in enumerate(dims):
        if d is not None:
            bound = _L.broadcast_in_dim(_convert(d, np.int32), aval.shape, ())
            here = _L.lt(_L.broadcasted_iota(np.int32, aval.shape, i), bound)
            inside = here if inside is None else _L.bitwise_and(inside, here)
    if inside is None:
        return x
    return _L.select(inside, x, _L.full_like(x, 0) if outside is None else outside)


def _halley_qr(u, coefs, dims=None):
    """One weighted Halley step through a QR of [sqrt(c) u; I] (well conditioned for
    large c); `coefs` = ((a - e) / sqrt(c), sqrt(c), e) with e = b / c, scalars of
    u's dtype. `dims`: the true (m, n) of a zero-padded `u` (`qdwh(dynamic_shape=)`):
    the identity block then starts at row m."""
    m, n = core.get_aval(u).shape
    dt = core.get_aval(u).dtype
    scaled, sc, e = coefs
    if dims is None:
        stacked = _L.concatenate([_L.mul(sc, u), np.eye(n, dtype=dt)], 0)
    else:
        tall = _L.pad(_L.mul(sc, u), np.asarray(0, dt), [(0, n, 0), (0, 0, 0)])
        stacked = _L.dynamic_update_slice(tall, np.eye(n, dtype=dt),
                                          (_convert(dims[0], np.int32), np.int32(0)))
    q, _ = _qr(stacked, full_matrices=False)
    q1 = _L.slice(q, (0, 0), (m, n))
    if dims is None:
        q2 = _L.slice(q, (m, 0), (m + n, n))
    else:
        q1 = _mask(q1, dims)
        q2 = _mask(_L.dynamic_slice(q, (_convert(dims[0], np.int32), np.int32(0)), (n, n)),
                   (dims[1], dims[1]))
    q2h = _mT(_conj(q2)) if dtypes.issubdtype(dt, np.complexfloating) else _mT(q2)
    return _add(_L.mul(e, u), _L.mul(scaled, _batch_matmul(q1, q2h)))


def _adjoint(x):
    t = _mT(x)
    return _conj(t) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else t


def _halley_cholesky(u, coefs, dims=None):
    """One weighted Halley step: e u + (a - e) u (c u^H u + I)^-1, through a Cholesky
    factor of c u^H u + I (for a padded `u`, the identity outside the true n x n);
    `coefs` = (a - e, c, e) with e = b / c, scalars of u's dtype."""
    n = core.get_aval(u).shape[1]
    dt = core.get_aval(u).dtype
    a_e, c, e = coefs
    eye = np.eye(n, dtype=dt)
    gram = _add(_L.mul(c, _batch_matmul(_adjoint(u), u)), eye)
    if dims is not None:
        gram = _mask(gram, (dims[1], dims[1]), eye)
    y = bind(cholesky_p, gram, lower=True)
    # (c u^H u + I)^-1 u^H = y^-H y^-1 u^H
    w = triangular_solve(y, _adjoint(u), left_side=True, lower=True)
    w = triangular_solve(y, w, left_side=True, lower=True, transpose_a=True, conjugate_a=True)
    return _add(_L.mul(e, u), _L.mul(a_e, _adjoint(w)))


def qdwh(x, *, is_hermitian=False, max_iterations=None, eps=None, dynamic_shape=None):
    """The polar decomposition x = u h of a full-rank matrix (m >= n) by the QR-based
    dynamically weighted Halley iteration: (u, h, number of iterations, whether it
    converged within `max_iterations` (default 10)). `eps` sets the tolerance
    (default: the dtype's epsilon); `is_hermitian` is accepted and unused, as JAX.
    `dynamic_shape=(m, n)` (ints, or staged integer scalars): `x` is an m x n matrix
    padded to its shape; entries outside are ignored, and u and h are zero there."""
    x = _inexact(x)
    aval = core.get_aval(x)
    if aval.ndim != 2:
        raise ArgumentValueError(f"qdwh needs a matrix, got shape {aval.shape}")
    if aval.shape[0] < aval.shape[1]:
        raise ArgumentValueError("The input matrix of shape M x N must have M >= N.",
                                 hint="pass the conjugate transpose (its polar factors "
                                      "are the adjoints)")
    dims = None
    if dynamic_shape is not None:
        dims = tuple(dynamic_shape)
        x = _mask(x, dims)
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    dt = aval.dtype
    eps = float(np.finfo(dt).eps) if eps is None else float(eps)
    one, inf = _norm_1_inf(x, 0), _norm_1_inf(x, 1)
    scale = _L.select(_L.eq(one, np.asarray(0, one.dtype)), _L.full_like(one, 1),
                      _L.mul(_L.rsqrt(one), _L.rsqrt(inf)))
    u = _L.mul(x, _convert(scale, dt))
    tol_norm = np.asarray(np.cbrt(10.0 * eps / 2.0), np.finfo(dt).dtype)
    steps = _qdwh_schedule(eps, max_iterations)
    # the scheduled steps, each kind one loop over its weights (as JAX: one QR and one
    # Cholesky factorization in the program, whatever the number of steps): QR while c
    # is large, then Cholesky, testing convergence
    qr_w = [((a - b / c) / c ** 0.5, c ** 0.5, b / c) for a, b, c in steps if c > 100]
    chol_w = [(a - b / c, c, b / c) for a, b, c in steps if c <= 100]

    def run(u, weights, step, test):
        if not weights:
            return u, np.asarray(True)
        table = np.asarray(weights, dt)

        def one(i, state):
            row = _L.dynamic_index_in_dim(table, i, keepdims=False)
            new = step(state[0], tuple(_L.index_in_dim(row, j, keepdims=False)
                                       for j in range(3)), dims)
            return new, (_L.gt(_frobenius(_L.sub(new, state[0])), tol_norm) if test
                         else state[1])
        return _L.fori_loop(0, len(weights), one, (u, np.asarray(True)))

    u, _ = run(u, qr_w, _halley_qr, False)
    u, moving = run(u, chol_w, _halley_cholesky, True)

    def cond(state):
        k, _, going = state
        return _L.bitwise_and(going, _L.lt(k, np.int32(max_iterations)))

    # (a, b, c) = (3, 1, 3) as (a - e, c, e)
    halley = tuple(np.asarray(w, dt) for w in (3.0 - 1.0 / 3.0, 3.0, 1.0 / 3.0))

    def body(state):   # plain Halley steps until u settles
        k, u, _ = state
        new = _halley_cholesky(u, halley, dims)
        return _L.add(k, np.int32(1)), new, _L.gt(_frobenius(_L.sub(new, u)), tol_norm)

    iters, u, moving = _L.while_loop(cond, body, (np.int32(len(steps)), u, moving))
    u = _L.sub(_L.mul(np.asarray(1.5, dt), u),
               _L.mul(np.asarray(0.5, dt), _batch_matmul(u, _batch_matmul(_adjoint(u), u))))
    h = _batch_matmul(_adjoint(u), x)
    h = _div(_add(h, _adjoint(h)), np.asarray(2, dt))
    return u, h, iters, _L.bitwise_not(moving)
