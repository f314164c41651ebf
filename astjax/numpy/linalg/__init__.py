"""`astjax.numpy.linalg`: JAX's `jax.numpy.linalg`.

- factorizations (`solve`, `inv`, `det`, `slogdet`, `qr`, `eigh`, `eigvalsh`, `svd`,
  `svdvals`, `eig`, `eigvals`, `pinv`, `matrix_rank`, `lstsq`): `decompositions.py`,
  on `lax.linalg`'s LAPACK custom calls as JAX on CPU;
- `cholesky` lowers to `stablehlo.cholesky`;
- here: the norms (the 2- and nuclear matrix norms through `svd`), `cond`,
  `matrix_power`, `tensorsolve`/`tensorinv` and the products shared with `jnp`.
"""
from __future__ import annotations

import operator

import numpy as np

from ... import core, dtypes, lax
from ...core import bind
from ...errors import (ArgumentTypeError as _ArgumentTypeError,
                       ArgumentValueError as _ArgumentValueError, MissingNameError, ShapeError,
                       ShapeValueError)
from ...primitives.linalg import cholesky_p
from .. import ufuncs as uf
from ..arrayops import cross as _cross, vecdot as _vd
from ..arraylike import check_arraylike as _check_arraylike
from ..contractions import (einsum as _einsum, matmul as _matmul, outer as _outer,
                            tensordot as _td)
from ..creation import eye as _eye
from ..reductions import any as _any, max as _max, min as _min, sum as _sum
from ..shapes import diagonal as _dg, moveaxis as _moveaxis, trace as _tr
from ..ufuncs import asarray_operand, promote_args_inexact, where
from ..util import canonicalize_axes, check_hashable as _check_hashable, library_jit
from .decompositions import (EigResult, EighResult, QRResult, SlogdetResult,  # noqa: F401
                             SVDResult, det, eig, eigh, eigvals, eigvalsh, inv, lstsq,
                             matrix_rank, pinv, qr, slogdet, solve, svd, svdvals)

__all__ = ["eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "cond", "lstsq",
           "norm", "vector_norm", "matrix_norm", "cholesky", "solve", "inv", "det",
           "slogdet", "qr", "eig", "eigvals", "matrix_power", "multi_dot", "outer", "cross",
           "matmul", "tensordot", "vecdot", "trace", "diagonal", "matrix_transpose",
           "tensorsolve", "tensorinv"]


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
    """Vector norm over the given axes (Array API form).

    Args:
      x: input array. axis: axis or axes to reduce (None: all elements).
      keepdims: keep reduced axes. ord: 2 (default), 1, inf, -inf, 0 or any p.
    Returns:
      The norm, real-valued and inexact.
    Differs from NumPy: integer inputs are promoted to JAX's default float type.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.linalg.vector_norm(jnp.array([1.0, -2.0, 2.0]), ord=1)
      Array(5., dtype=float32)
    """
    [x] = promote_args_inexact("vector_norm", asarray_operand(x))
    # axis None reduces over every axis of x, as JAX's (a sum over x raveled rounds
    # otherwise under vmap)
    if ord == 2 or ord is None:
        if dtypes.issubdtype(_dt(x), np.complexfloating):
            sq = _real(uf.multiply(x, uf.conjugate(x)))
        else:
            sq = uf.multiply(x, x)
        return uf.sqrt(_sum(sq, axis=axis, keepdims=keepdims))
    ax = uf.abs(x)
    if ord == np.inf:
        return _max(ax, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _min(ax, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum(lax.convert_element_type(uf.not_equal(x, 0), _dt(ax)), axis=axis,
                    keepdims=keepdims)
    if ord == 1:
        return _sum(ax, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):   # ('fro' / 'nuc' are matrix norms: JAX's ValueError)
        raise _ArgumentValueError(f"Invalid order '{ord}' for vector norm.",
                                  hint="a vector norm's ord is a number (2, 1, inf, ...); "
                                       "pass two axes for a matrix norm")
    p = float(ord)
    return uf.power(_sum(uf.power(ax, p), axis=axis, keepdims=keepdims), 1.0 / p)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """Matrix norm over the last two axes (Array API form).

    Args:
      x: array of rank >= 2. keepdims: keep reduced axes.
      ord: 'fro' (default), 'nuc', 1, -1, 2, -2, inf or -inf.
    Returns:
      The norm of each matrix in the batch.
    Differs from NumPy: results follow JAX's dtype rules (float32 by default).
    """
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# (compiled, as JAX's: its digits; and one `jit` equation inside a program, as JAX's, so
# that a second derivative sums its cotangents in JAX's order)
@library_jit(static_argnames=("ord", "axis", "keepdims"), keep_call=True)
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """Vector or matrix norm, chosen by `axis` and `ord` as in NumPy.

    Args:
      x: input array. ord: norm order (None: 2-norm / Frobenius).
      axis: None (whole array), an int (vector norm) or a pair (matrix norm).
      keepdims: keep reduced axes.
    Returns:
      The norm(s), real-valued and inexact.
    Differs from NumPy: results follow JAX's dtype rules (float32 by default).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.linalg.norm(jnp.array([3.0, 4.0]))
      Array(5., dtype=float32)
    """
    [x] = promote_args_inexact("norm", asarray_operand(x))
    nd = len(_shape(x))
    if axis is None:
        if ord is None:
            return vector_norm(x, keepdims=keepdims)
        axis = tuple(range(nd))
    axes = canonicalize_axes(_check_hashable(axis, "norm"), nd, "norm", sequences=(tuple,))
    if len(axes) == 1:
        return vector_norm(x, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ShapeValueError(f"linalg.norm: improper number of axes {axis} for an array "
                              f"of rank {nd}", hint="pass one axis for a vector norm, two "
                                                    "for a matrix norm")
    r, c = axes
    if ord in (None, "fro", "f"):
        return vector_norm(x, axis=axes, keepdims=keepdims)
    ax = uf.abs(x)
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
    raise _ArgumentValueError(f"linalg.norm: invalid norm order {ord!r} for matrices")

# ------------------------------------------------------------ factorizations


@library_jit(static_argnames=("upper", "symmetrize_input"))
def cholesky(a, *, upper=False, symmetrize_input=True):
    """Cholesky factor of a Hermitian positive-definite matrix.

    Args:
      a: array of shape (..., n, n). upper: return the upper factor U (a = U^H U)
        instead of the lower L (a = L L^H). symmetrize_input: average `a` with
        its conjugate transpose first (JAX extension).
    Returns:
      The triangular factor.
    Differs from NumPy: a non-positive-definite input gives NaNs, not an error.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 3.0]]))
      Array([[2.       , 0.       ],
             [1.       , 1.4142135]], dtype=float32)
    """
    a = _square("cholesky", a)
    if symmetrize_input:
        a = uf.multiply(uf.add(a, uf.conjugate(_mT(a))), 0.5)
    L = bind(cholesky_p, a, lower=True)
    return uf.conjugate(_mT(L)) if upper else L


def _mT(a):
    nd = len(_shape(a))
    return lax.transpose(a, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def cond(x, p=None):
    """The condition number of matrices in norm `p` (None/2/-2: from the singular
    values; others: norm(x) * norm(inv(x))); NaN becomes inf unless x has a NaN."""
    [x] = promote_args_inexact("cond", asarray_operand(x))
    s = _shape(x)
    if len(s) < 2:
        raise ShapeValueError(f"jnp.linalg.cond: input array must be at least 2D; got "
                              f"arr.shape={s}")
    if s[-1] == 0 or s[-2] == 0:
        raise ShapeValueError(f"jnp.linalg.cond: input array must not be empty; got "
                              f"arr.shape={s}")
    if p is None or p == 2:
        sv = svdvals(x)
        return uf.true_divide(sv[..., 0], sv[..., -1])
    if p == -2:
        sv = svdvals(x)
        r = uf.true_divide(sv[..., -1], sv[..., 0])
    else:
        if s[-1] != s[-2]:
            raise ShapeValueError(f"jnp.linalg.cond: for p={p}, array must be square; got "
                                  f"arr.shape={s}")
        r = uf.multiply(norm(x, ord=p, axis=(-2, -1)), norm(inv(x), ord=p, axis=(-2, -1)))
    nan_in = _any(uf.isnan(x), axis=(-2, -1))
    return where(uf.logical_and(uf.isnan(r), uf.logical_not(nan_in)), np.inf, r)


@library_jit(static_argnames=("n",), keep_call=True)   # (JAX's: reverse mode sums the
def matrix_power(a, n):                                  # cotangents of a inside the call)
    """Raise a square matrix to an integer power by repeated squaring.

    Args:
      a: array of shape (..., n, n). n: static integer exponent (negative:
        power of the inverse, 0: identity).
    Returns:
      Array shaped like `a`.
    Differs from NumPy: `n` must be a Python int (not traced).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.linalg.matrix_power(jnp.array([[1, 1], [0, 1]]), 3)
      Array([[1, 3],
             [0, 1]], dtype=int32)
    """
    _check_arraylike("jnp.linalg.matrix_power", a)
    a = asarray_operand(a)
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeError(f"matrix_power needs square matrices, got {s}")
    try:
        n = operator.index(n)
    except TypeError:
        raise _ArgumentTypeError(f"matrix_power's exponent must be an integer, got {n!r}",
                                 hint="pass a Python int (a static exponent)") from None
    if n < 0:
        a, n = inv(a), -n
    if n == 3:   # (JAX's order of the two products: a rounding, and where inf meets 0)
        return _matmul(_matmul(a, a), a)
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
    """Chained matrix product of a sequence of arrays, in the cheapest order.

    Args:
      arrays: sequence of at least two arrays: 2-D, except the first and last, which
        may be 1-D.
      precision: the contraction precision, as JAX's.
    Returns:
      `arrays[0] @ arrays[1] @ ...`, multiplied in the order of fewest flops (JAX's
      `einsum(..., optimize='auto')` path).
    Differs from NumPy: no `out=`.
    """
    _check_arraylike("jnp.linalg.multi_dot", *arrays)
    arrs = [asarray_operand(a) for a in arrays]
    if len(arrs) < 2:
        raise ShapeValueError(f"multi_dot requires at least two arrays; got "
                              f"len(arrays)={len(arrs)}")
    shapes = [core.get_aval(a).shape for a in arrs]
    if not (len(shapes[0]) in (1, 2) and len(shapes[-1]) in (1, 2)
            and all(len(s) == 2 for s in shapes[1:-1])):
        raise ShapeValueError(
            "multi_dot: input arrays must all be two-dimensional, except for the first and "
            f"last array which may be 1 or 2 dimensional. Got array shapes {shapes}")
    if any(a[-1] != b[0] for a, b in zip(shapes[:-1], shapes[1:])):
        raise ShapeValueError(
            "multi_dot: last dimension of each array must match first dimension of "
            f"following array. Got array shapes {shapes}")
    # array k contracts index k with k+1 (a 1-D end drops its outer index); the output
    # keeps the indices used once, in order: JAX's einsum with optimize='auto'
    letters = [_einsum_letter(k) for k in range(len(arrs) + 1)]
    terms = [letters[k] + letters[k + 1] for k in range(len(arrs))]
    if len(shapes[0]) == 1:
        terms[0] = terms[0][1:]
    if len(shapes[-1]) == 1:
        terms[-1] = terms[-1][:1]
    out = (letters[0] if len(shapes[0]) == 2 else "") + (
        letters[-1] if len(shapes[-1]) == 2 else "")
    return _einsum(",".join(terms) + "->" + out, *arrs, optimize="auto",
                   precision=precision)


def _einsum_letter(k):
    return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[k]


def outer(x1, x2, /):
    """Outer product of two 1-D vectors (Array API form).

    Args:
      x1, x2: arrays (flattened).
    Returns:
      Array of shape `(x1.size, x2.size)`.
    Differs from NumPy: same as `jnp.outer`; results follow JAX's dtype rules.
    """
    return _outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along `axis` (Array API form).

    Args:
      x1, x2: arrays whose `axis` has size 3. axis: the vector axis.
    Returns:
      The broadcast cross product.
    Differs from NumPy: results follow JAX's dtype rules.
    """
    return _cross(x1, x2, axis=axis)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Matrix product (Array API form of `jnp.matmul`).

    Args:
      x1, x2: arrays. precision / preferred_element_type: JAX extensions.
    Returns:
      `x1 @ x2`.
    Differs from NumPy: adds `precision=` and `preferred_element_type=`.
    """
    return _matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """Tensor contraction (Array API form of `jnp.tensordot`).

    Args:
      x1, x2: arrays. axes: int or pair of axis sequences.
      precision / preferred_element_type: JAX extensions.
    Returns:
      The contraction.
    Differs from NumPy: adds `precision=` (and `preferred_element_type=`, ignored).
    """
    return _td(x1, x2, axes, precision=precision)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Dot product of vectors along `axis`, conjugating `x1`.

    Args:
      x1, x2: broadcastable arrays. axis: the vector axis.
      precision / preferred_element_type: accepted for JAX compatibility.
    Returns:
      The broadcast dot products with `axis` removed.
    Differs from NumPy: adds JAX's `precision=`/`preferred_element_type=` keywords.
    """
    return _vd(x1, x2, axis=axis)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of each matrix's diagonal over the last two axes.

    Args:
      x: array of rank >= 2. offset: diagonal offset. dtype: result dtype.
    Returns:
      Array of shape `x.shape[:-2]`.
    Differs from NumPy: results follow JAX's dtype rules.
    """
    return _tr(x, offset, -2, -1, dtype)


def diagonal(x, /, *, offset=0):
    """Diagonals of the matrices in the last two axes.

    Args:
      x: array of rank >= 2. offset: diagonal offset.
    Returns:
      Array of shape `x.shape[:-2] + (k,)`.
    Differs from NumPy: returns a new array, never a view.
    """
    return _dg(x, offset, -2, -1)


def matrix_transpose(x, /):
    """Swap the last two axes.

    Args:
      x: array of rank >= 2.
    Returns:
      The transposed array (not conjugated).
    Differs from NumPy: returns a new array, never a view.
    """
    return _mT(asarray_operand(x))


def tensorsolve(a, b, axes=None):
    """Solve the tensor equation `tensordot(a, x, x.ndim) = b` for `x`.

    Args:
      a: coefficient tensor whose leading axes match `b`'s shape.
      b: right-hand side. axes: axes of `a` to move to the end first.
    Returns:
      `x`, with shape `a.shape[b.ndim:]`.
    Differs from NumPy: a singular system gives inf/NaN values, not an error.
    """
    a, b = asarray_operand(a), asarray_operand(b)
    if axes is not None:
        a = _moveaxis(a, axes, tuple(range(len(_shape(a)) - len(axes), len(_shape(a)))))
    bs = _shape(b)
    rest = _shape(a)[len(bs):]
    nb = int(np.prod(bs, dtype=np.int64))
    x = solve(lax.reshape(a, (nb, int(np.prod(rest, dtype=np.int64)))), lax.reshape(b, (nb,)))
    return lax.reshape(x, rest)


def tensorinv(a, ind=2):
    """Inverse of a tensor with respect to `tensordot` over `ind` axes.

    Args:
      a: tensor with `prod(a.shape[:ind]) == prod(a.shape[ind:])`.
      ind: number of leading axes in the first index group.
    Returns:
      Array of shape `a.shape[ind:] + a.shape[:ind]`.
    Differs from NumPy: a singular input gives inf/NaN values, not an error.
    """
    a = asarray_operand(a)
    s = _shape(a)
    out_shape = s[ind:] + s[:ind]
    n = int(np.prod(s[:ind], dtype=np.int64))
    m = int(np.prod(s[ind:], dtype=np.int64))
    return lax.reshape(inv(lax.reshape(a, (n, m))), out_shape)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise MissingNameError(f"astjax.numpy.linalg.{name} is not implemented")
