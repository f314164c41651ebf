"""`astjax.numpy.linalg`: norms, products and the factorizations StableHLO allows.

- `cholesky` lowers to `stablehlo.cholesky`; `solve_triangular` (in
  `astjax.scipy.linalg`) to `stablehlo.triangular_solve`.
- `lu_factor`, `solve`, `inv`, `det`, `slogdet` use Gaussian elimination with
  partial pivoting written in lax ops (one unrolled step per column), and `qr`
  Householder reflections the same way: differentiable and batchable through the
  primitives they use, and meant for small and moderate matrices (n up to ~100).
- `eigh`, `eigvalsh`, `svd`, `svdvals`, `pinv`, `matrix_rank`, `eig`, `eigvals`,
  `lstsq`, `cond` and the spectral/nuclear matrix norms need LAPACK custom calls
  in JAX and are not implemented (they raise NotImplementedInAstjaxError).
"""
from __future__ import annotations

import numpy as np

from ... import core, dtypes, lax
from ...core import bind
from ...errors import NotImplementedInAstjaxError, ShapeError
from ...primitives.linalg import cholesky_p
from .. import ufuncs as uf
from ..reductions import canonical_axes, max as _max, min as _min, sum as _sum
from ..ufuncs import asarray_operand, promote_args_inexact, where
from ..util import library_jit

__all__ = ["norm", "vector_norm", "matrix_norm", "cholesky", "solve", "inv", "det",
           "slogdet", "lu_factor", "qr", "matrix_power", "multi_dot", "outer", "cross",
           "matmul", "tensordot", "vecdot", "trace", "diagonal", "matrix_transpose",
           "tensorsolve", "tensorinv"]

_MISSING = ("eigh", "eigvalsh", "eig", "eigvals", "svd", "svdvals", "pinv", "matrix_rank",
            "lstsq", "cond")


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
        from ..shapes import ravel
        out = vector_norm(ravel(x), axis=0, ord=ord)
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
            from ..shapes import ravel
            out = vector_norm(ravel(x), axis=0)
            return lax.reshape(out, (1,) * nd) if keepdims else out
        axis = tuple(range(nd))
    axes = canonical_axes(axis, nd, "norm")
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
    raise NotImplementedInAstjaxError(
        f"linalg.norm(ord={ord!r}) for matrices needs an SVD, which astjax does not have",
        hint="use ord='fro', 1, -1, inf or -inf")

# ------------------------------------------------------------ factorizations


@library_jit
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


def _row(a, k):
    return lax.index_in_dim(a, k, len(_shape(a)) - 2, False)


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
    from ..util import _Direct
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
    from ..reductions import prod
    return uf.multiply(sign, prod(_diag(lu), axis=-1))


@library_jit
def slogdet(a, *, method=None):
    lu, _, sign = lu_factor(a)
    from ..reductions import prod
    d = _diag(lu)
    ad = uf.abs(d)
    if dtypes.issubdtype(_dt(d), np.complexfloating):
        unit = uf.true_divide(d, lax.convert_element_type(where(uf.equal(ad, 0), 1.0, ad), _dt(d)))
    else:
        unit = uf.sign(d)
    s = uf.multiply(sign, prod(unit, axis=-1))
    return s, _sum(uf.log(ad), axis=-1)


def _lu_solve(lu, perm, b):
    """Solve L U x = P b for b of shape batch + (n, k)."""
    shape = _shape(lu)
    n = shape[-1]
    batch = shape[:-2]
    nb = len(batch)
    # P b as a one-hot contraction (no gather)
    onehot = uf.equal(lax.reshape(perm, batch + (n, 1)),
                      lax.broadcasted_iota(dtypes.int32, batch + (n, n), nb + 1))
    from ..contractions import matmul
    y = matmul(lax.convert_element_type(onehot, _dt(lu)), b)
    ridx = lax.broadcasted_iota(dtypes.int32, _shape(y), nb)
    zero = np.asarray(0, _dt(lu))[()]

    def forward(i, y):  # unit lower triangle
        yi = _at(y, i, nb, True)
        li = lax.reshape(_at(lu, i, nb + 1), batch + (n, 1))
        return uf.subtract(y, uf.multiply(where(uf.greater(ridx, i), li, zero), yi))

    def backward(i, y):
        row = lax.reshape(_at(lu, i, nb), batch + (n,))
        uii = lax.reshape(_at(row, i, nb), batch + (1, 1))
        xi = uf.true_divide(_at(y, i, nb, True), uii)
        y = where(uf.equal(ridx, i), xi, y)
        ui = lax.reshape(_at(lu, i, nb + 1), batch + (n, 1))
        return uf.subtract(y, uf.multiply(where(uf.less(ridx, i), ui, zero), xi))
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
    from ..creation import eye
    e = uf.broadcast_to_shape(lax.convert_element_type(eye(n), _dt(a)), _shape(a))
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
    from ..contractions import matmul
    from ..creation import eye
    q = uf.broadcast_to_shape(lax.convert_element_type(eye(m), _dt(a)), batch + (m, m))
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
        uha = matmul(lax.reshape(uc, batch + (1, m)), a)
        a = uf.subtract(a, uf.multiply(2.0, matmul(lax.reshape(u, batch + (m, 1)), uha)))
        qu = matmul(q, lax.reshape(u, batch + (m, 1)))
        q = uf.subtract(q, uf.multiply(2.0, matmul(qu, lax.reshape(uc, batch + (1, m)))))
    rows, cols = _iotas(_shape(a))
    r = where(uf.greater(rows, cols), zero, a)
    if mode == "r":
        return r if m <= n else lax.slice_in_dim(r, 0, n, axis=nb)
    if mode == "complete" or m <= n:
        return q, r
    if mode != "reduced":
        raise ShapeError(f"linalg.qr: unknown mode {mode!r}")
    return lax.slice_in_dim(q, 0, n, axis=nb + 1), lax.slice_in_dim(r, 0, n, axis=nb)


def matrix_power(a, n):
    a = asarray_operand(a)
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeError(f"matrix_power needs square matrices, got {s}")
    n = int(n)
    from ..contractions import matmul
    from ..creation import eye
    if n < 0:
        a, n = inv(a), -n
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    if result is None:
        return uf.broadcast_to_shape(lax.convert_element_type(eye(s[-1]), _dt(a)), s)
    return result


def multi_dot(arrays, *, precision=None):
    from ..contractions import dot
    out = arrays[0]
    for a in arrays[1:]:
        out = dot(out, a)
    return out


def outer(x1, x2, /):
    from ..contractions import outer as _outer
    return _outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    from ..arrayops import cross as _cross
    return _cross(x1, x2, axis=axis)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    from ..contractions import matmul as _mm
    return _mm(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    from ..contractions import tensordot as _td
    return _td(x1, x2, axes, precision=precision)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    from ..arrayops import vecdot as _vd
    return _vd(x1, x2, axis=axis)


def trace(x, /, *, offset=0, dtype=None):
    from ..shapes import trace as _tr
    return _tr(x, offset, -2, -1, dtype)


def diagonal(x, /, *, offset=0):
    from ..shapes import diagonal as _dg
    return _dg(x, offset, -2, -1)


def matrix_transpose(x, /):
    return _mT(asarray_operand(x))


def tensorsolve(a, b, axes=None):
    a, b = asarray_operand(a), asarray_operand(b)
    if axes is not None:
        from ..shapes import moveaxis
        a = moveaxis(a, axes, tuple(range(len(_shape(a)) - len(axes), len(_shape(a)))))
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
        raise NotImplementedInAstjaxError(
            f"astjax.numpy.linalg.{name} is not implemented: it needs a LAPACK custom call "
            "(JAX uses one on CPU) and has no StableHLO op",
            hint="cholesky, solve, inv, det, slogdet, qr, lu_factor and norm are available")
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedInAstjaxError(f"astjax.numpy.linalg.{name} is not implemented")
