"""Matrix constructors and the polar decomposition of `jax.scipy.linalg`
(re-exported by `astjax.scipy.linalg`).

- from data (batched over leading dimensions, as JAX's are): `toeplitz`, `hankel`,
  `circulant`, `companion`, `fiedler_companion`, `leslie`, `fiedler`,
  `convolution_matrix`, `block_diag` (2-D blocks);
  each is an index pattern applied with `take`, so it is differentiable and
  batchable;
- from a size: `hilbert`, `invhilbert`, `pascal` and `invpascal` (symmetric / lower
  / upper), `helmert`,
  `hadamard`, `dft`;
- `polar(a, side, method)`: a = U P (right) or P U (left), by QDWH (JAX's default)
  or from the SVD.
"""
from __future__ import annotations

import math

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentValueError, NotImplementedInAstjaxError, ShapeValueError
from ..numpy import ufuncs as _uf
from ..numpy.advanced_indexing import take as _take
from ..numpy.contractions import matmul as _matmul
from ..numpy.operands import asarray, asarray_operand, promote_dtypes, promote_dtypes_inexact
from ..numpy.creation import arange as _arange, ones_like as _ones_like, zeros_like as _zeros_like
from ..numpy.shapes import concatenate as _concatenate, swapaxes as _swapaxes
from ..numpy.util import library_jit
from ..numpy.vectorize import vectorize as _vectorize

__all__ = ["block_diag", "toeplitz", "hankel", "circulant", "companion", "leslie", "fiedler",
           "fiedler_companion", "convolution_matrix", "hilbert", "invhilbert", "pascal",
           "invpascal", "helmert", "hadamard", "dft", "polar"]


def _shape(x):
    return core.get_aval(x).shape


def _vec(x):
    x = asarray(asarray_operand(x))
    return lax.reshape(x, (1,)) if not _shape(x) else x


def _pattern(vals, idx):
    """vals[..., idx] for a static integer index matrix idx."""
    return _take(vals, np.asarray(idx, np.int32), axis=-1)


def _match_batch(a, b):
    sa, sb = _shape(a)[:-1], _shape(b)[:-1]
    batch = np.broadcast_shapes(sa, sb)
    a = lax.broadcast_in_dim(a, batch + _shape(a)[-1:], tuple(range(len(batch) - len(sa),
                                                                     len(batch) + 1)))
    b = lax.broadcast_in_dim(b, batch + _shape(b)[-1:], tuple(range(len(batch) - len(sb),
                                                                     len(batch) + 1)))
    return a, b


def toeplitz(c, r=None):
    """T[i, j] = c[i - j] (i >= j), r[j - i] (j > i): r[0] is ignored; r defaults to
    conj(c)."""
    c = _vec(c)
    r = _uf.conjugate(c) if r is None else _vec(r)
    c, r = promote_dtypes(c, r)
    c, r = _match_batch(c, r)
    m, n = _shape(c)[-1], _shape(r)[-1]
    # the diagonal is c[0] (r[0] is ignored, as JAX's and SciPy's)
    vals = _concatenate([lax.rev(lax.slice_in_dim(r, 1, n, axis=len(_shape(r)) - 1),
                                 (len(_shape(r)) - 1,)), c], axis=-1)
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    return _pattern(vals, n - 1 + i - j)


def hankel(c, r=None):
    """H[i, j] = c[i + j] (i + j < m), r[i + j - m + 1] after; r defaults to zeros."""
    c = asarray(asarray_operand(c))
    r = _zeros_like(c) if r is None else asarray(asarray_operand(r))
    for name, v in (("c", c), ("r", r)):
        if not _shape(v):
            raise ShapeValueError(f"hankel: {name} must be at least 1-dimensional, got a "
                                  "scalar.")
    c, r = promote_dtypes(c, r)
    c, r = _match_batch(c, r)
    m, n = _shape(c)[-1], _shape(r)[-1]
    vals = _concatenate([c, lax.slice_in_dim(r, 1, n, axis=len(_shape(r)) - 1)], axis=-1)
    return _pattern(vals, np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c):
    """C[i, j] = c[(i - j) mod n]."""
    c = _vec(c)
    n = _shape(c)[-1]
    return _pattern(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first):
    first row -a[1:] / a[0], ones below the diagonal."""
    [a] = promote_dtypes_inexact(_vec(a))
    n = _shape(a)[-1]
    if n < 2:
        raise ShapeValueError(f"The length of `a` along the last axis must be at least 2; "
                              f"got shape {_shape(a)}.")
    nd = len(_shape(a))
    first = _uf.true_divide(_uf.negative(lax.slice_in_dim(a, 1, n, axis=nd - 1)),
                            lax.slice_in_dim(a, 0, 1, axis=nd - 1))
    return _first_row_and_subdiagonal(first, np.ones(n - 2, dtype=np.int64), n - 1)


def _first_row_and_subdiagonal(first, sub, k):
    """A k x k matrix: row 0 `first`, the subdiagonal `sub`, zeros elsewhere."""
    sub = asarray(asarray_operand(sub))
    first, sub = promote_dtypes(first, lax.convert_element_type(sub, core.get_aval(first).dtype)
                                if dtypes.is_int(core.get_aval(sub).dtype) else sub)
    first, sub = _match_batch(first, sub) if _shape(sub)[:-1] or _shape(first)[:-1] else \
        (first, sub)
    zero = _zeros_like(lax.slice_in_dim(first, 0, 1, axis=len(_shape(first)) - 1))
    vals = _concatenate([first, sub, zero], axis=-1)       # k + (k - 1) + 1 entries
    idx = np.full((k, k), 2 * k - 1)
    idx[0] = np.arange(k)
    for i in range(1, k):
        idx[i, i - 1] = k + i - 1
    return _pattern(vals, idx)


def leslie(f, s):
    """The Leslie matrix: fecundities f in row 0, survival rates s below the diagonal."""
    f, s = _vec(f), _vec(s)
    if _shape(f)[-1] < 2:
        raise ShapeValueError(f"The length of f along the last axis must be at least 2; got "
                              f"shape {_shape(f)}.")
    if _shape(s)[-1] != _shape(f)[-1] - 1:
        raise ShapeValueError("Incorrect lengths for f and s. The length of s along the last "
                              "axis must be one less than the length of f; got f shape "
                              f"{_shape(f)} and s shape {_shape(s)}.")
    f, s = promote_dtypes(f, s)
    return _first_row_and_subdiagonal(f, s, _shape(f)[-1])


def fiedler(a):
    """F[i, j] = |a[i] - a[j]|."""
    a = _vec(a)
    n = _shape(a)[-1]
    rows = _pattern(a, np.repeat(np.arange(n)[:, None], n, 1))
    return _uf.abs(_uf.subtract(rows, _swapaxes(rows, -1, -2)))


def fiedler_companion(a):
    """Fiedler's pentadiagonal companion matrix of the polynomial with coefficients a
    (highest first): the same eigenvalues as `companion(a)`."""
    [a] = promote_dtypes_inexact(_vec(a))
    k = _shape(a)[-1]
    if k == 0:
        raise ShapeValueError("fiedler_companion requires the last axis of 'a' to have "
                              f"nonzero length, but got an array of shape {_shape(a)}.")
    n = k - 1
    nd = len(_shape(a))
    a = _uf.true_divide(a, lax.slice_in_dim(a, 0, 1, axis=nd - 1))
    one = _ones_like(lax.slice_in_dim(a, 0, 1, axis=nd - 1))
    zero = _zeros_like(one)
    vals = _concatenate([_uf.negative(a), one, zero], axis=-1)   # -a[0..n], 1, 0
    ONE, ZERO = k, k + 1  # noqa: N806
    idx = np.full((n, n), ZERO)
    if n >= 1:
        idx[0, 0] = 1
    if n >= 2:
        idx[1, 0] = ONE
    for i in range(n):
        if i % 2 == 0:
            if i + 1 < n:
                idx[i, i + 1] = i + 2
            if i + 2 < n:
                idx[i, i + 2] = ONE
            if i >= 2:
                idx[i, i - 1] = i + 1
        elif i >= 3:
            idx[i, i - 2] = ONE
    return _pattern(vals, idx)


def convolution_matrix(a, n, mode="full"):
    """The Toeplitz matrix A with A @ v == convolve(a, v, mode) for v of length n."""
    n = int(n)
    if n <= 0:
        raise ArgumentValueError(f"n must be a positive integer; got {n}.")
    a = asarray(asarray_operand(a))
    if not _shape(a):
        raise ShapeValueError("convolution_matrix: a must be at least 1-dimensional, got a "
                              "scalar.")
    m = _shape(a)[-1]
    if mode not in ("full", "valid", "same"):
        raise ArgumentValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    nd = len(_shape(a))
    zero = np.zeros((), core.get_aval(a).dtype)
    padding = [(0, 0, 0)] * (nd - 1) + [(0, n - 1, 0)]
    az = lax.pad(a, zero, padding)
    raz = lax.pad(lax.rev(a, (nd - 1,)), zero, padding)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    col = lax.slice_in_dim(az, tb, length - te, axis=nd - 1)
    row = lax.slice_in_dim(raz, length - n - tb, length - tb, axis=nd - 1)
    return toeplitz(col, row)


def block_diag(*arrs):
    """The 2-D blocks (scalars and vectors as rows) on the diagonal, zeros elsewhere."""
    if not arrs:
        arrs = (np.zeros((1, 0), np.float32),)
    arrs = promote_dtypes(*[asarray(asarray_operand(a)) for a in arrs])
    for i, a in enumerate(arrs):
        if len(_shape(a)) > 2:
            raise ShapeValueError(f"Arguments to jax.scipy.linalg.block_diag must have at "
                                  f"most 2 dimensions, got {a} at argument {i}.")
    arrs = [lax.reshape(a, (1,) * (2 - len(_shape(a))) + _shape(a)) for a in arrs]
    total = sum(_shape(a)[1] for a in arrs)
    zero = np.zeros((), core.get_aval(arrs[0]).dtype)
    rows, col = [], 0
    for a in arrs:
        k = _shape(a)[1]
        rows.append(lax.pad(a, zero, [(0, 0, 0), (col, total - k - col, 0)]))
        col += k
    return _concatenate(rows, axis=0)

# ------------------------------------------------------------------ from a size


def _default_float():
    return dtypes.canonicalize(np.dtype(np.float64))


def hilbert(n):
    """H[i, j] = 1 / (i + j + 1)."""
    i = np.arange(n, dtype=np.float64)
    return asarray((1.0 / (i[:, None] + i[None, :] + 1)).astype(_default_float()))


def invhilbert(n):
    """The inverse of the n x n Hilbert matrix (from its closed form)."""
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            s = i + j
            out[i, j] = ((-1) ** s * (s + 1) * math.comb(n + i, n - j - 1) *
                         math.comb(n + j, n - i - 1) * math.comb(s, i) ** 2)
    return asarray(out.astype(_default_float()))


def invpascal(n, kind=None):
    """The inverse of `pascal(n, kind)`."""
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ArgumentValueError(f"Expected kind to be one of: {valid}; got {kind}")
    low = np.array([[(-1) ** (i - j) * math.comb(i, j) for j in range(n)] for i in range(n)],
                   np.float64)
    out = low if kind == "lower" else (low.T if kind == "upper" else low.T @ low)
    return asarray(out.astype(_default_float()))


def pascal(n, kind=None):
    """The Pascal matrix: binomial coefficients, 'symmetric' (default), 'lower' or
    'upper'."""
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ArgumentValueError(f"Expected kind to be on of: {valid}; got {kind}")
    low = np.array([[math.comb(i, j) for j in range(n)] for i in range(n)], np.float64)
    out = low if kind == "lower" else (low.T if kind == "upper" else low @ low.T)
    return asarray(out.astype(np.float32))


def helmert(n, full=False):
    """The Helmert matrix ((n - 1) x n; n x n with the constant first row if `full`)."""
    if n < 1:
        raise ArgumentValueError(f"n must be a positive integer; got {n}.")
    h = np.zeros((n - 1, n))
    for i in range(n - 1):
        k = i + 1
        d = math.sqrt(k * (k + 1))
        h[i, :k] = 1.0 / d
        h[i, k] = -k / d
    if full:
        h = np.concatenate([np.full((1, n), 1.0 / math.sqrt(n)), h], axis=0)
    return asarray(h.astype(_default_float()))


def hadamard(n, dtype=int):
    """The Sylvester Hadamard matrix of order n (a power of 2)."""
    if n < 1 or not math.log2(n).is_integer():
        raise ArgumentValueError(f"n must be a positive power of 2; got {n}.")
    h = np.ones((1, 1))
    for _ in range(int(math.log2(n))):
        h = np.block([[h, h], [h, -h]])
    return asarray(h.astype(dtypes.canonicalize(np.dtype(dtype))))


def dft(n, scale=None, *, dtype=None):
    """The DFT matrix exp(-2 pi i j k / n), scaled by 1/sqrt(n) ('sqrtn') or 1/n ('n')."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ArgumentValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dt = dtypes.canonicalize(np.dtype(np.complex128 if dtype is None else dtype))
    if not np.issubdtype(dt, np.complexfloating):
        raise ArgumentValueError(f"dtype must be a complex floating-point type; got {dt}.")
    return _dft(int(n), scale, dt)


@library_jit(static_argnums=(0, 1, 2))
def _dft(n, scale, dt):
    # computed in `dt` by the compiled program, in JAX's order, so the rounding (and the
    # signs of zero parts) are JAX's
    a = _arange(n, dtype=dt)
    w = _uf.exp(_uf.true_divide(_uf.multiply(_uf.multiply(-2j * np.pi, a[:, None]),
                                             a[None, :]), n))
    if scale == "sqrtn":
        w = _uf.true_divide(w, _uf.sqrt(n))
    elif scale == "n":
        w = _uf.true_divide(w, n)
    return w

# ------------------------------------------------------------------------- polar


def _adjoint(x):
    return _uf.conjugate(_swapaxes(x, -1, -2))


def _polar_2d(a, side, method, eps):
    """The polar factors of one matrix `a`."""
    m, n = _shape(a)
    if method == "qdwh":
        # QDWH needs m >= n: a wide matrix's left factors are the adjoints of its
        # adjoint's right ones; the other two combinations JAX does not implement
        if m >= n and side == "right":
            unitary, p, _, _ = lax.linalg.qdwh(a, eps=eps)
        elif m < n and side == "left":
            u, p, _, _ = lax.linalg.qdwh(_adjoint(a), eps=eps)
            unitary, p = _adjoint(u), _adjoint(p)
        else:
            raise NotImplementedInAstjaxError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' "
                f"and m >= n side='left', got {(m, n)} with side={side!r}",
                hint="JAX 0.10.2 raises here too: use side='right' for m >= n, side='left' "
                     "for m < n, or method='svd'")
        return unitary, p
    if method != "svd":
        raise ArgumentValueError(f"Unknown polar decomposition method {method}.")
    u, s, vh = lax.linalg.svd(a, full_matrices=False)
    unitary = _matmul(u, vh, precision=lax.Precision.HIGHEST)
    sc = lax.convert_element_type(s, core.get_aval(a).dtype)
    if side == "right":   # P = V S V^H
        p = _matmul(_uf.multiply(_adjoint(vh), sc), vh, precision=lax.Precision.HIGHEST)
    else:                 # P = U S U^H
        p = _matmul(_uf.multiply(u, sc), _adjoint(u), precision=lax.Precision.HIGHEST)
    return unitary, p


def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """(U, P): a = U P ('right') or P U ('left') with U unitary (orthonormal columns)
    and P Hermitian positive semi-definite, batched over leading dimensions.
    method='qdwh' (the default) runs `lax.linalg.qdwh` (JAX's numbers; it needs
    m >= n for side='right' and m < n for side='left', else NotImplementedError);
    'svd' forms the factors from the SVD. As in JAX 0.10.2, `eps` sets QDWH's
    tolerance and `max_iterations` is accepted and unused (QDWH's default cap of 10)."""
    del max_iterations   # JAX's polar does not pass it on
    [a] = promote_dtypes_inexact(asarray_operand(a))
    shape = _shape(a)
    if len(shape) < 2:
        raise ShapeValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ArgumentValueError("The argument `side` must be either 'right' or 'left'.")
    return _polar(a, side, method, eps)


@library_jit(static_argnums=(1, 2, 3))
def _polar(a, side, method, eps):
    """`polar` of a matrix or a stack of them (compiled once per signature when called
    eagerly: QDWH is tens of operations)."""
    if len(_shape(a)) == 2:
        return _polar_2d(a, side, method, eps)
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return _vectorize(lambda x: _polar_2d(x, side, method, eps), signature=sig)(a)
