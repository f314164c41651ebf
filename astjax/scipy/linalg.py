"""`astjax.scipy.linalg` (JAX's `jax.scipy.linalg`), on `lax.linalg`:

- triangular and Cholesky solves: `solve_triangular`, `cholesky`, `cho_factor`,
  `cho_solve`;
- LU (LAPACK getrf): `lu` (P, L, U or P L, U), `lu_factor` (lu, 0-based pivots),
  `lu_solve` (trans 0 / 1 / 2), `det`, `inv`, `solve` (`assume_a='pos'` by Cholesky);
- `qr` (modes full / economic / r), `svd`, `eigh` (standard problem), `schur`
  (LAPACK gees), `sqrtm` (from the complex Schur form), `hessenberg` (gehrd, Q
  from orgqr);
- the matrix constructors and `polar` (linalg_matrices.py);
- `rsf2csf`, `funm`, `solve_sylvester` and `qr_multiply` (linalg_schur.py);
- `expm_frechet` (from expm of the block matrix [[A, E], [0, A]]);
- `eigh_tridiagonal`, as JAX: eigenvalues by Sturm-count bisection, eigenvectors by
  inverse iteration (tridiagonal solves) from random vectors;
- `expm`: scaling and squaring with the Pade approximant of degree 3 to 13 chosen
  from the 1-norm (Higham 2005), as JAX does; NaN beyond `max_squarings`.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from .. import numpy as _jnp
from .. import random as _random
from ..core import bind
from ..custom_api import custom_jvp as _custom_jvp
from ..errors import (ArgumentValueError, DTypeError as _DTypeError, NotImplementedInAstjaxError,
                      ShapeValueError)
from ..numpy import linalg as _la
from ..numpy.contractions import matmul as _matmul
from ..numpy.creation import eye as _eye, tril as _tril, triu as _triu
from ..numpy.reductions import sum as _sum
from ..numpy.searching import digitize as _digitize
from ..numpy.ufuncs import (asarray_operand, broadcast_shapes as _broadcast_shapes,
                            broadcast_to_shape as _broadcast_to_shape, promote_dtypes_inexact,
                            where as _where)
from ..numpy import ufuncs as _uf
from ..numpy.util import _Direct, library_jit as _library_jit
from ..numpy.vectorize import vectorize as _vectorize
from ..primitives.linalg import triangular_solve_p
from .linalg_matrices import (block_diag, circulant, companion, convolution_matrix,  # noqa: F401
                              dft, fiedler, fiedler_companion, hadamard, hankel, helmert,
                              hilbert, invhilbert, invpascal, leslie, pascal, polar, toeplitz)
from .linalg_schur import funm, qr_multiply, rsf2csf, solve_sylvester  # noqa: F401

__all__ = ["solve_triangular", "cholesky", "cho_factor", "cho_solve", "lu", "lu_factor",
           "lu_solve", "det", "inv", "solve", "qr", "svd", "eigh", "expm", "schur",
           "block_diag", "toeplitz", "hankel", "circulant", "companion", "leslie", "fiedler",
           "hilbert", "pascal", "helmert", "hadamard", "dft", "polar", "fiedler_companion",
           "convolution_matrix", "invhilbert", "invpascal", "hessenberg", "sqrtm",
           "expm_frechet", "eigh_tridiagonal", "funm", "qr_multiply", "rsf2csf",
           "solve_sylvester"]

det, inv = _la.det, _la.inv


def _shape(x):
    return core.get_aval(x).shape


def _inexact(*xs):
    return promote_dtypes_inexact(*[asarray_operand(x) for x in xs])


def _mH(x):
    return _uf.conjugate(_la.matrix_transpose(x))


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """Solve a x = b (trans=0), a^T x = b (1 / 'T') or a^H x = b (2 / 'C')."""
    a, b = _inexact(a, b)
    vec = core.get_aval(b).ndim == core.get_aval(a).ndim - 1
    if vec:
        b = lax.expand_dims(b, (core.get_aval(b).ndim,))
    sa, sb = _shape(a), _shape(b)
    if sa[:-2] != sb[:-2]:
        batch = _broadcast_shapes(sa[:-2], sb[:-2])
        a, b = _broadcast_to_shape(a, batch + sa[-2:]), _broadcast_to_shape(b, batch + sb[-2:])
    t = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}[trans]
    out = bind(triangular_solve_p, a, b, left_side=True, lower=bool(lower),
               transpose_a=t > 0, conjugate_a=t == 2, unit_diagonal=bool(unit_diagonal))
    return lax.squeeze(out, (core.get_aval(out).ndim - 1,)) if vec else out


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of positive-definite matrices: upper (a = U^H U) unless
    `lower`. Only the requested triangle of `a` is read (no symmetrization, as SciPy
    and JAX)."""
    [a] = _inexact(a)
    if lower:
        return lax.linalg.cholesky(a, symmetrize_input=False)
    return _mH(lax.linalg.cholesky(_mH(a), symmetrize_input=False))


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): the Cholesky factor and which triangle it is, for `cho_solve`."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve a x = b from `cho_factor(a)`."""
    c, lower = c_and_lower
    return _cho_solve(c, b, lower=bool(lower))


# a nested call, as JAX's: reverse mode sums c's cotangents (two solves) inside it
@_library_jit(static_argnames=("lower",), keep_call=True)
def _cho_solve(c, b, lower):
    if lower:
        y = solve_triangular(c, b, trans=0, lower=True)
        return solve_triangular(c, y, trans=2, lower=True)
    y = solve_triangular(c, b, trans=2, lower=False)
    return solve_triangular(c, y, trans=0, lower=False)

# ------------------------------------------------------------------------- LU


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(P, L, U) with a = P @ L @ U (or (P @ L, U) with `permute_l`)."""
    [a] = _inexact(a)
    dt = core.get_aval(a).dtype
    m, n = _shape(a)[-2:]
    factors, _, perm = lax.linalg.lu(a)
    nd = len(_shape(a))
    iota = lax.broadcasted_iota(np.int32, _shape(perm)[:-1] + (m, m), nd - 2)
    perm_b = lax.broadcast_in_dim(perm, _shape(perm)[:-1] + (m, m),
                                  tuple(range(nd - 2)) + (nd - 1,))
    p = lax.convert_element_type(_uf.equal(perm_b, iota), dt)
    k = min(m, n)
    low = lax.slice_in_dim(_tril(factors, -1), 0, k, axis=nd - 1)
    low = _uf.add(low, lax.convert_element_type(_eye(m, k), dt))
    up = lax.slice_in_dim(_triu(factors), 0, k, axis=nd - 2)
    if permute_l:
        return _matmul(p, low, precision=lax.Precision.HIGHEST), up
    return p, low, up


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv): L below the diagonal of lu (unit diagonal implied), U on and above;
    row i was swapped with row piv[i] (0-based)."""
    [a] = _inexact(a)
    factors, pivots, _ = lax.linalg.lu(a)
    return factors, pivots


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve a x = b (trans 0), a^T x = b (1) or a^H x = b (2) from `lu_factor(a)`."""
    factors, pivots = lu_and_piv
    if trans not in (0, 1, 2):
        raise ArgumentValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return _lu_solve(factors, pivots, b, trans=trans)


# a nested call, as JAX's: reverse mode sums the factors' cotangents inside it
@_library_jit(static_argnames=("trans",), keep_call=True)
def _lu_solve(factors, pivots, b, trans):
    factors, b = _inexact(factors, b)
    sl, sb = _shape(factors), _shape(b)
    if len(sl) < 2 or sl[-1] != sl[-2]:
        raise ShapeValueError(f"last two dimensions of LU decomposition must be equal, got "
                              f"shape {sl}")
    n = sl[-1]
    perm = lax.linalg.lu_pivots_to_permutation(pivots, n)
    vec = len(sb) == 1 or (len(sl) == len(sb) + 1 and sl[-1] == sb[-1])
    if vec:
        if sb[-1] != n:
            raise ShapeValueError(f"inconsistent size for core dimension 'n': {sb[-1]} vs {n}")
        b = lax.expand_dims(b, (len(sb),))
    elif _shape(b)[-2] != n:
        raise ShapeValueError(f"inconsistent size for core dimension 'n': {_shape(b)[-2]} vs "
                              f"{n}")
    batch = _broadcast_shapes(sl[:-2], _shape(perm)[:-1], _shape(b)[:-2])
    factors = _broadcast_to_shape(factors, batch + sl[-2:])
    perm = _broadcast_to_shape(perm, batch + (n,))
    b = _broadcast_to_shape(b, batch + _shape(b)[-2:])
    x = _la.decompositions._lu_solve(factors, perm, b, trans)
    return lax.squeeze(x, (len(_shape(x)) - 1,)) if vec else x


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    """Solve a x = b (`assume_a='pos'`: by Cholesky; otherwise LU)."""
    if assume_a == "pos":
        a, b = _inexact(a, b)
        sa, sb = _shape(a), _shape(b)
        if not (len(sa) >= 2 and len(sb) in (len(sa), len(sa) - 1)
                and sa[-1] == sa[-2] == sb[len(sa) - 2]):
            raise ShapeValueError("The arguments to solve must have shapes a=[..., m, m] and "
                                  f"b=[..., m, k] or b=[..., m]; got a={sa} and b={sb}")
        vec = len(sb) == len(sa) - 1
        b2 = lax.reshape(b, sb + (1,)) if vec else b
        batch = _broadcast_shapes(sa[:-2], _shape(b2)[:-2])
        a = _broadcast_to_shape(a, batch + sa[-2:])
        # JAX's: a custom_linear_solve by Cholesky (the derivative reads all of a)
        x = _la.decompositions.factored_solve(
            a, _broadcast_to_shape(b2, batch + _shape(b2)[-2:]),
            cho_factor(lax.stop_gradient(a), lower=lower), cho_solve)
        return lax.reshape(x, _shape(x)[:-1]) if vec else x
    return _la.solve(a, b)


# ------------------------------------------------------------------ QR, SVD, eigh


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """(q, r) (mode 'full': all m columns of q; 'economic': min(m, n)) or (r,) (mode
    'r'); with `pivoting`, the column permutation p (a[:, p] = q r) is appended."""
    if mode in ("full", "r"):
        full = True
    elif mode == "economic":
        full = False
    else:
        raise ArgumentValueError(f"Unsupported QR decomposition mode '{mode}'")
    [a] = _inexact(a)
    q, r, *p = lax.linalg.qr(a, pivoting=pivoting, full_matrices=full)
    return (r, *p) if mode == "r" else (q, r, *p)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """(u, s, vh) with a = u @ diag(s) @ vh, s descending; s alone without
    `compute_uv`."""
    [a] = _inexact(a)
    return lax.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):  # noqa: A002
    """(w, v) of Hermitian a (ascending w, eigenvectors in columns), or w alone with
    `eigvals_only`; only the standard problem (b=None)."""
    if b is not None:
        raise ArgumentValueError("Only the b=None case of eigh is supported.")
    if type != 1:
        raise ArgumentValueError("Only the type=1 case of eigh is supported.")
    if eigvals is not None:
        raise ArgumentValueError("Only the eigvals=None case of eigh is supported.")
    [a] = _inexact(a)
    v, w = lax.linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    """The upper Hessenberg form H of square a (with calc_q: (H, Q), a = Q H Q^H),
    from LAPACK's gehrd."""
    [a] = _inexact(a)
    n = _shape(a)[-1]
    nd = len(_shape(a))
    if n == 0:
        z = _uf.multiply(a, 0)
        return (z, z) if calc_q else z
    packed, taus = lax.linalg.hessenberg(a)
    h = _triu(packed, -1)
    if not calc_q:
        return h
    batch = _shape(a)[:-2]
    v = lax.slice(packed, (0,) * (nd - 2) + (1, 0), batch + (n, n - 1))
    q = lax.linalg.householder_product(v, taus)
    zero = np.zeros((), core.get_aval(a).dtype)
    q = lax.pad(q, zero, [(0, 0, 0)] * (nd - 2) + [(1, 0, 0), (1, 0, 0)])
    corner = np.zeros((n, n), core.get_aval(a).dtype)
    corner[0, 0] = 1
    return h, _uf.add(q, lax.broadcast_in_dim(corner, _shape(a), (nd - 2, nd - 1)))


def schur(a, output="real"):
    """(T, Z) with a = Z T Z^H: T quasi upper triangular ('real') or upper triangular
    ('complex'), Z unitary (LAPACK gees)."""
    if output not in ("real", "complex"):
        raise ArgumentValueError(f"Expected 'output' to be either 'real' or 'complex', got "
                                 f"output={output}.")
    [a] = _inexact(a)
    if output == "complex" and not dtypes.issubdtype(core.get_aval(a).dtype,
                                                     np.complexfloating):
        a = lax.convert_element_type(a, np.result_type(core.get_aval(a).dtype, np.complex64))
    return lax.linalg.schur(a)

def _sqrtm_upper(t):
    """The upper-triangular square root of upper-triangular t (Bjorck & Hammarling's
    recurrence, column by column, each column bottom-up)."""
    n = _shape(t)[-1]
    d = _uf.sqrt(_la.diagonal(t))
    u0 = _uf.multiply(lax.convert_element_type(_eye(n), core.get_aval(t).dtype),
                      lax.expand_dims(d, (0,)))
    idx = lax.broadcasted_iota(np.int32, (n,), 0)

    def column(j, u):
        def entry(step, u):
            i = _uf.subtract(_uf.subtract(j, 1), step)
            between = _uf.logical_and(_uf.greater(idx, i), _uf.less(idx, j))
            s = _sum(_where(between, _uf.multiply(u[i], u[:, j]), 0))
            tij = t[i, j]
            value = _where(_uf.equal(tij, s), 0, _uf.true_divide(_uf.subtract(tij, s),
                                                                  _uf.add(d[i], d[j])))
            return u.at[i, j].set(value)
        return lax.fori_loop(0, j, _Direct(entry), u)
    return lax.fori_loop(0, n, _Direct(column), u0)


def sqrtm(A, blocksize=1):  # noqa: N803
    """The principal square root of a square matrix (complex result), from its
    complex Schur form: A = Z T Z^H, sqrt(A) = Z sqrt(T) Z^H."""
    if blocksize > 1:
        raise NotImplementedInAstjaxError("Blocked version is not implemented yet.",
                                          hint="blocksize=1 (JAX refuses blocks too)")
    t, z = schur(A, output="complex")
    r = _sqrtm_upper(t)
    zh = _uf.conjugate(lax.transpose(z, (1, 0)))
    return _hdot(_hdot(z, r), zh)

# ------------------------------------------------------------------------ expm

_PADE = {3: (120., 60., 12., 1.),
         5: (30240., 15120., 3360., 420., 30., 1.),
         7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
         9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160.,
             110880., 3960., 90., 1.),
         13: (64764752532480000., 32382376266240000., 7771770303897600.,
              1187353796428800., 129060195264000., 10559470521600., 670442572800.,
              33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)}
# the largest 1-norm for which each degree is accurate, and the norm to scale down to
_THETA = {"64": ((3, 5, 7, 9, 13), (1.495585217958292e-2, 2.539398330063230e-1,
                                      9.504178996162932e-1, 2.097847961257068e+0),
                 5.371920351148152),
          "32": ((3, 5, 7), (4.258730016922831e-1, 1.880152677804762e+0), 3.925724783138660)}


def _hdot(x, y):
    return _matmul(x, y, precision=lax.Precision.HIGHEST)


def _pade(a, degree):
    """(U, V): the odd and even parts of the degree-`degree` Pade numerator at a."""
    b = _PADE[degree]
    ident = lax.convert_element_type(_eye(_shape(a)[-1]), core.get_aval(a).dtype)
    powers = [ident, _hdot(a, a)]
    if degree == 13:
        a2 = powers[1]
        a4 = _hdot(a2, a2)
        a6 = _hdot(a4, a2)
        inner_u = _hdot(a6, _uf.add(_uf.add(_uf.multiply(b[13], a6), _uf.multiply(b[11], a4)),
                                    _uf.multiply(b[9], a2)))
        u = _hdot(a, _uf.add(inner_u, _uf.add(_uf.add(_uf.add(
            _uf.multiply(b[7], a6), _uf.multiply(b[5], a4)), _uf.multiply(b[3], a2)),
            _uf.multiply(b[1], ident))))
        inner_v = _hdot(a6, _uf.add(_uf.add(_uf.multiply(b[12], a6), _uf.multiply(b[10], a4)),
                                    _uf.multiply(b[8], a2)))
        v = _uf.add(inner_v, _uf.add(_uf.add(_uf.add(
            _uf.multiply(b[6], a6), _uf.multiply(b[4], a4)), _uf.multiply(b[2], a2)),
            _uf.multiply(b[0], ident)))
        return u, v
    for _ in range(degree // 2 - 1):
        powers.append(_hdot(powers[-1], powers[1]))
    # summed from the highest power down, as JAX's (b7 A6 + b5 A4) + b3 A2 + ...: the
    # other order rounds otherwise
    odd = even = None
    for k in reversed(range(len(powers))):
        o, e = _uf.multiply(b[2 * k + 1], powers[k]), _uf.multiply(b[2 * k], powers[k])
        odd = o if odd is None else _uf.add(odd, o)
        even = e if even is None else _uf.add(even, e)
    return _hdot(a, odd), even


def _expm_one(a, upper_triangular, max_squarings):
    dt = core.get_aval(a).dtype
    wide = np.dtype(dt) in (np.float64, np.complex128)
    degrees, bounds, maxnorm = _THETA["64" if wide else "32"]
    norm1 = _la.norm(a, 1)
    n_sq = _uf.maximum(0.0, _uf.floor(_uf.log2(_uf.true_divide(norm1, maxnorm))))
    scaled = _uf.true_divide(a, lax.convert_element_type(_uf.power(2.0, n_sq), dt))
    idx = _digitize(norm1, np.asarray(bounds, core.get_aval(norm1).dtype))
    branches = [_Direct(lambda x, d=d: _pade(x, d)) for d in degrees]
    u, v = lax.switch(idx, branches, scaled)
    p, q = _uf.add(u, v), _uf.subtract(v, u)
    r = solve_triangular(q, p) if upper_triangular else _la.solve(q, p)

    def square(i, x):
        return _where(_uf.less(lax.convert_element_type(i, core.get_aval(n_sq).dtype), n_sq),
                      _hdot(x, x), x)
    r = lax.fori_loop(0, max_squarings, _Direct(square), r)
    return _where(_uf.greater(n_sq, max_squarings), np.asarray(np.nan, dt), r)


def expm_frechet(A, E, *, method=None, compute_expm=True):  # noqa: N803
    """The Frechet derivative of expm at A in direction E (with expm(A) first when
    `compute_expm`): the upper-right block of expm([[A, E], [0, A]])."""
    if method not in (None, "SPS", "blockEnlarge"):
        raise ArgumentValueError(f"Unknown implementation {method}")
    A, E = _inexact(A, E)  # noqa: N806
    s = _shape(A)
    if len(s) != 2 or s[0] != s[1] or _shape(E) != s:
        raise ShapeValueError(f"expected A and E to be square matrices of one shape, got "
                              f"{s} and {_shape(E)}")
    n = s[0]
    zero = _uf.multiply(A, 0)
    big = expm(lax.concatenate([lax.concatenate([A, E], 1), lax.concatenate([zero, A], 1)], 0))
    frechet = lax.slice(big, (0, n), (n, 2 * n))
    return (lax.slice(big, (0, 0), (n, n)), frechet) if compute_expm else frechet


def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None, tol=None,
                     key=None):
    """Eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal d and
    off-diagonal e, and their eigenvectors (columns) unless `eigvals_only`, as JAX
    computes them: each eigenvalue by bisection on Sturm-sequence counts from the
    Gershgorin interval (to `tol` or machine precision), each eigenvector by inverse
    iteration from random vectors (`key`, default `random.key(42)`), eigenvectors of
    eigenvalues closer than sqrt(eps) * norm orthonormalized together. `select='i'`
    keeps the eigenvalues with indices select_range[0] .. select_range[1]."""
    alpha, beta = _jnp.asarray(d), _jnp.asarray(e)
    a_dt, b_dt = _dtype(alpha), _dtype(beta)
    if a_dt != b_dt:
        raise _DTypeError(f"diagonal and off-diagonal values must have same dtype, got {a_dt} "
                         f"and {b_dt}")
    if a_dt not in (np.float32, np.float64, np.complex64, np.complex128):
        raise _DTypeError("Only float32 and float64 inputs are supported as inputs to "
                         f"jax.scipy.linalg.eigh_tridiagonal, got {a_dt} and {b_dt}")
    n = _shape(alpha)[0]
    if n <= 1:
        return _uf.real(alpha) if eigvals_only else (_uf.real(alpha), _eye(n, dtype=a_dt))
    if select == "a":
        targets = np.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ArgumentValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ArgumentValueError("Got empty index range in select_range.")
        targets = np.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedInAstjaxError("eigh_tridiagonal(..., select='v') is not "
                                          "implemented (nor is it in JAX)")
    else:
        raise ArgumentValueError("'select must have a value in {'a', 'i', 'v'}.")
    key = _random.key(42) if key is None and not eigvals_only else key

    def compute(alpha, beta):
        if dtypes.issubdtype(a_dt, np.complexfloating):
            alpha = _uf.real(alpha)
            beta_sq = _uf.real(beta * _uf.conjugate(beta))
            beta_abs = _uf.sqrt(beta_sq)
        else:
            beta_abs, beta_sq = _uf.abs(beta), _uf.square(beta)
        w = _bisect_eigenvalues(alpha, beta_abs, beta_sq, targets, tol)
        return w if eigvals_only else (w, _inverse_iteration(alpha, beta, w, key).T)
    return _differentiated_as_eigh(compute, targets, eigvals_only)(alpha, beta)


def _differentiated_as_eigh(compute, targets, eigvals_only):
    """`compute(d, e)` (bisection, inverse iteration) with the eigen-decomposition's
    derivatives, not those of its iterations (whose comparisons have none): with T the
    dense tridiagonal matrix and V its eigenvectors, dw_i = (V^H dT V)_ii and
    dV = V (F o V^H dT V), F_ij = 1 / (w_j - w_i), each vector's tangent in the phase
    of the vector `compute` returned."""
    f = _custom_jvp(compute)

    def jvp(primals, tangents):
        (d, e), (dd, de) = primals, tangents
        out = f(d, e)

        def tridiagonal(a, b):
            return _jnp.diag(_uf.real(a).astype(b.dtype)) + _jnp.diag(b, 1) + \
                _jnp.diag(_uf.conjugate(b), -1)
        w_all, v = _la.eigh(tridiagonal(d, e))
        m = _matmul(_uf.conjugate(v).T, _matmul(tridiagonal(dd, de), v))
        dw = _uf.real(_jnp.diagonal(m))[targets]
        if eigvals_only:
            return out, dw
        gap = w_all[None, :] - w_all[:, None]
        inv_gap = _jnp.where(gap == 0, 0, 1 / _jnp.where(gap == 0, 1, gap))
        dv = _matmul(v, inv_gap.astype(m.dtype) * m)[:, targets]
        overlap = _sum(_uf.conjugate(v[:, targets]) * out[1], axis=0)
        phase = overlap / _jnp.where(overlap == 0, 1, _uf.abs(overlap)).astype(overlap.dtype)
        return out, (dw, (dv * phase).astype(out[1].dtype))
    f.defjvp(jvp)
    return f


def _bisect_eigenvalues(alpha, beta_abs, beta_sq, targets, tol):
    """The eigenvalues of index `targets` (all searched at once): the interval [lower,
    upper] of each is halved, keeping the half where the Sturm count (the number of
    eigenvalues below the midpoint) says it lies."""
    n, dt = _shape(alpha)[0], _dtype(alpha)
    fi = np.finfo(dt)
    # Gershgorin bounds of the spectrum and a bound on the 2-norm
    radius = lax.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], 0)
    hi_est, lo_est = _jnp.max(alpha + radius), _jnp.min(alpha - radius)
    t_norm = _uf.maximum(_uf.abs(lo_est), _uf.abs(hi_est))
    # the smallest pivot the recurrence divides by (no overflow)
    one = np.ones((), dt)
    safemin = np.maximum(one / fi.max, (one + fi.eps) * fi.tiny)
    pivmin = safemin * _uf.maximum(1, _jnp.max(beta_sq))
    alpha0_shift = _uf.square(fi.eps * beta_abs[0])   # (for a midpoint equal to d[0])
    abs_tol = fi.eps * t_norm
    if tol is not None:
        abs_tol = _uf.maximum(tol, abs_tol)
    # start slightly wider than the Gershgorin interval
    widen = 2.1
    slack = _jnp.array(n, dt) * widen * fi.eps * t_norm
    shape = targets.shape
    lower = _jnp.broadcast_to(lo_est - slack - 2 * widen * pivmin, shape)
    upper = _jnp.broadcast_to(hi_est + slack + widen * pivmin, shape)
    pivmin = _jnp.broadcast_to(pivmin, shape)
    alpha0_shift = _jnp.broadcast_to(alpha0_shift, shape)

    def sturm_count(x):
        q = alpha[0] - x
        count = (q < 0).astype(np.int32)
        q = _where(alpha[0] == x, alpha0_shift, q)

        def step(i, qc):
            q, count = qc
            q = alpha[i] - beta_sq[i - 1] / q - x
            small = q <= pivmin
            return _where(small, _uf.minimum(q, -pivmin), q), _where(small, count + 1, count)
        return lax.fori_loop(1, n, step, (q, count))[1]

    def searching(state):
        i, lower, _, upper = state
        # (every bit of the mantissa, plus one, bounds the halvings needed)
        return (i < fi.nmant + 1) & (abs_tol < _jnp.max(upper - lower))

    def halve(state):
        i, lower, mid, upper = state
        below = sturm_count(mid) <= targets
        lower, upper = _where(below, mid, lower), _where(below, upper, mid)
        return i + 1, lower, 0.5 * (lower + upper), upper

    return lax.while_loop(searching, halve, (0, lower, 0.5 * (upper + lower), upper))[2]


def _inverse_iteration(alpha, beta, w, key):
    """The (k, n) unit eigenvectors of the eigenvalues `w`: a few steps of inverse
    iteration (solving (T - w_i) v_i = v_i, at most 5, while some norm still grows by
    10%), from random vectors, the vectors of each cluster of close eigenvalues
    orthonormalized (QR) after every step."""
    n, k = _shape(alpha)[0], _shape(w)[0]
    solve_dt = np.result_type(_dtype(alpha), _dtype(beta))
    real_dt = np.finfo(solve_dt).dtype
    # clusters: runs of eigenvalues less than gaptol apart
    gaptol = np.sqrt(np.finfo(_dtype(w)).eps) * _uf.maximum(_uf.abs(w[0]), _uf.abs(w[-1]))
    close = w[1:] - w[:-1] < gaptol
    close_left = _jnp.pad(close, (1, 0), constant_values=False)
    close_right = _jnp.pad(close, (0, 1), constant_values=False)
    first = ~close_left & close_right
    starts = _jnp.nonzero(first, size=k // 2 + 1)[0]
    ends = _jnp.nonzero(close_left & ~close_right, size=k // 2 + 1)[0] + 1
    rows = _jnp.arange(k)

    def orthonormalize_clusters(v):
        def one_cluster(c, v):
            lo, hi = starts[c], ends[c]
            keep = (rows < hi - lo).astype(v.dtype)[:, None]
            block = lax.dynamic_slice(_jnp.pad(v, ((0, k), (0, 0))), (lo, 0), (k, n)) * keep
            q = _la.qr(block.T)[0].T * keep
            placed = lax.dynamic_update_slice(_jnp.zeros((2 * k, n), v.dtype), q, (lo, 0))[:k]
            return _where(((rows >= lo) & (rows < hi))[:, None], placed, v)
        return lax.fori_loop(0, _sum(first), one_cluster, v)

    v = _random.normal(key, (k, n), dtype=real_dt).astype(solve_dt)
    v = v / _la.norm(v, axis=-1, keepdims=True).astype(solve_dt)
    diag = (alpha[None, :] - w[:, None]).astype(solve_dt)
    lower = _jnp.broadcast_to(_jnp.pad(_uf.conjugate(beta), (1, 0))[None], (k, n))
    upper = _jnp.broadcast_to(_jnp.pad(beta, (0, 1))[None], (k, n))

    def growing(state):
        i, _, norm, old_norm = state
        return (i < 5) & _jnp.any(norm >= 1.1 * old_norm)

    def step(state):
        i, v, norm, _ = state
        v_new = lax.linalg.tridiagonal_solve(lower.astype(solve_dt), diag,
                                             upper.astype(solve_dt), v[:, :, None],
                                             perturb_singular=True)[:, :, 0]
        norm_new = _la.norm(v_new, axis=-1, keepdims=True)
        v_new = orthonormalize_clusters(v_new / norm_new.astype(v_new.dtype))
        return i + 1, v_new, norm_new[:, 0], norm

    start = (0, v, _jnp.ones(k, _dtype(w)), _jnp.zeros(k, _dtype(w)))
    return lax.while_loop(growing, step, start)[1]


def _dtype(x):
    return core.get_aval(x).dtype


def expm(A, *, upper_triangular=False, max_squarings=16):  # noqa: N803
    """The matrix exponential of (batched) square matrices."""
    [A] = _inexact(A)  # noqa: N806
    s = _shape(A)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeValueError(f"Expected A to be a (batched) square matrix, got A.shape={s}.")
    fn = lambda x: _expm_one(x, upper_triangular, max_squarings)  # noqa: E731
    if len(s) > 2:
        return _vectorize(fn, signature="(n,n)->(n,n)")(A)
    return fn(A)
