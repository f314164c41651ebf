"""The remaining NumPy-compatible names: dtype aliases, printing helpers, host-side
I/O (`load`, `save`, `frombuffer`, ... act on concrete values), `partition` /
`argpartition` (a full sort is a valid partition), `vectorize` (through `vmap`),
`poly`, `polyfit`, `polydiv`, `roots`, `unwrap`, `sort_complex`, `mask_indices`,
`einsum_path` (re-exported from `einsum_paths`), the bit packing pair `packbits` / `unpackbits`, and the in-place
updates `put`, `put_along_axis`, `place` (which, as in JAX, return an updated copy and
insist on `inplace=False`)."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..errors import (ArgumentError, ArgumentTypeError, ArgumentValueError, AxisError,
                      ConcretizationError, NotImplementedInAstjaxError, ShapeValueError)
from . import linalg
from . import ufuncs as uf
from .arrayops import indices as _indices
from .arrayops import unravel_index, vander
from .contractions import matmul
from .operands import asarray, _pad_value
from .reductions import sum as _sum
from .creation import eye
from .einsum_paths import einsum_path
from .reductions import all as _all, any as _any
from .repeats import tile
from .shapes import atleast_1d, broadcast_to, concatenate, ravel, _reshape as reshape, swapaxes
from .searching import _take_1d
from .sorting import argmin, argsort, cumsum, sort
from .statistics import convolve, diff
from .ufuncs import asarray_operand
from .util import canonicalize_axis, library_jit
from .vectorize import vectorize  # noqa: F401  (re-exported)

__all__ = ["bool", "single", "double", "csingle", "cdouble", "character", "flexible",
           "object_", "ComplexWarning", "array_repr", "array_str", "get_printoptions",
           "set_printoptions", "printoptions", "partition", "argpartition", "vectorize",
           "poly", "polyfit", "polydiv", "roots", "packbits", "unpackbits", "unwrap", "sort_complex", "mask_indices",
           "einsum_path", "frombuffer", "fromstring", "fromiter", "fromfile", "load", "save",
           "savez", "put", "put_along_axis", "place"]

bool = dtypes.bool_  # noqa: A001
single, double = dtypes.float32, dtypes.float64
csingle, cdouble = dtypes.complex64, dtypes.complex128
character, flexible, object_ = np.character, np.flexible, np.object_
ComplexWarning = np.exceptions.ComplexWarning
get_printoptions, printoptions = np.get_printoptions, np.printoptions


def set_printoptions(*args, **kwargs):
    """NumPy's `set_printoptions` (arrays print through NumPy, so its options apply).

    Args:
      *args, **kwargs: passed on to `numpy.set_printoptions`.
    Returns:
      None.
    """
    return np.set_printoptions(*args, **kwargs)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """String representation of an array, as `repr` gives it.

    Args:
      arr: the array. max_line_width, precision, suppress_small: accepted for
        NumPy compatibility; ignored.
    Returns:
      A string such as `Array([1, 2], dtype=int32)`.
    Differs from NumPy: formatting options are ignored; JAX-style `Array(...)` text.
    """
    return repr(arr)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """String of an array's values without the `Array(...)` wrapper.

    Args:
      a: the array (copied to the host). max_line_width, precision,
        suppress_small: passed to NumPy's formatter.
    Returns:
      The formatted string.
    Differs from NumPy: the array must be concrete (not traced).
    """
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


def _smallest_first(a, kth, axis):
    """`a` with `axis` last and negated for `top_k` (unsigned: shifted by one first, so
    that 0 stays the smallest), and `kth` as an index on that axis."""
    a = asarray_operand(a)
    axis = canonicalize_axis(axis, core.get_aval(a).ndim, "partition")
    n = core.get_aval(a).shape[axis]
    kth = canonicalize_axis(operator.index(kth), n, "partition's kth")
    a = swapaxes(a, axis, -1)
    if dtypes.issubdtype(core.get_aval(a).dtype, np.unsignedinteger):
        return a, uf.negative(uf.add(a, 1)), axis, kth
    return a, uf.negative(a), axis, kth


@library_jit(static_argnames=("kth", "axis"))
def partition(a, kth, axis=-1):
    """A copy of `a` where the `kth` element is in its sorted place, smaller
    ones before it and larger ones after.

    Args:
      a: input array. kth: static index of the element to place. axis: axis to use.
    Returns:
      The partitioned array: as JAX's (two `top_k`s), the first kth + 1 elements in
      increasing order, the rest in decreasing order.
    Differs from NumPy: NumPy leaves the order on each side unspecified.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.partition(jnp.array([3, 1, 2, 0]), 1)
      Array([0, 1, 3, 2], dtype=int32)
    """
    _reject_complex("partition", a)
    a, neg, axis, kth = _smallest_first(a, kth, axis)
    bottom = uf.negative(lax.top_k(neg, kth + 1)[0])
    if dtypes.issubdtype(core.get_aval(a).dtype, np.unsignedinteger):
        bottom = uf.subtract(bottom, 1)
    top = lax.top_k(a, core.get_aval(a).shape[-1] - kth - 1)[0]
    return swapaxes(lax.concatenate([bottom, top], core.get_aval(a).ndim - 1), -1, axis)


def _reject_complex(name, a):
    """JAX's partitions are two `top_k`s, which have no complex order: it refuses."""
    if dtypes.issubdtype(core.get_aval(asarray_operand(a)).dtype, np.complexfloating):
        raise NotImplementedInAstjaxError(f"jnp.{name} for complex dtype is not implemented.",
                                          hint="sort the array (`jnp.sort` orders complex "
                                               "values by real, then imaginary part)")


@library_jit(static_argnames=("kth", "axis"))
def argpartition(a, kth, axis=-1):
    """Indices that would partition `a` around its `kth` element.

    Args:
      a: input array. kth: static index of the element to place. axis: axis to use.
    Returns:
      Integer indices: as JAX's, those of the kth + 1 smallest elements in increasing
      order of value, then the other indices in increasing order.
    Differs from NumPy: NumPy leaves the order on each side unspecified.
    """
    _reject_complex("argpartition", a)
    a, neg, axis, kth = _smallest_first(a, kth, axis)
    bottom = lax.top_k(neg, kth + 1)[1]
    shape = core.get_aval(a).shape
    # the indices not taken, in increasing order: top_k of a 0/1 mask keeps ties in order
    iota = lax.broadcasted_iota(core.get_aval(bottom).dtype, shape[-1:], 0)
    taken = _any(uf.equal(lax.expand_dims(bottom, (len(shape),)), iota), axis=-2)
    rest = lax.top_k(lax.convert_element_type(uf.logical_not(taken), np.float32),
                     shape[-1] - kth - 1)[1]
    return swapaxes(lax.concatenate([bottom, rest], len(shape) - 1), -1, axis)


@library_jit
def sort_complex(a):
    """Sort by real part, then imaginary part, and return a complex array.

    Args:
      a: input array.
    Returns:
      The sorted values, converted to a complex dtype if they were real.
    Differs from NumPy: real inputs become complex64 unless x64 is enabled.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.sort_complex(jnp.array([3, 1, 2]))
      Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
    """
    a = asarray_operand(a)
    if np.ndim(a) == 0:   # as JAX (a sort along axis -1)
        raise AxisError("axis -1 is out of bounds for array of dimension 0",
                        hint="sort_complex needs an array with at least one axis")
    a = sort(a)
    dt = core.get_aval(a).dtype
    if not dtypes.issubdtype(dt, np.complexfloating):
        # as JAX: complex128 only from float64 and 64-bit integers (under x64)
        wide = dtypes.to_inexact(dt) == np.float64
        a = lax.convert_element_type(a, dtypes.canonicalize(np.complex128 if wide else np.complex64))
    return a


@library_jit
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots.

    Args:
      seq_of_zeros: 1-D array of roots (a scalar is one root), or a non-empty square
        matrix (its characteristic polynomial, from its eigenvalues).
    Returns:
      1-D coefficient array, highest power first (a 0-d 1 for no roots).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.poly(jnp.array([1.0, 2.0]))
      Array([ 1., -3.,  2.], dtype=float32)
    """
    [z] = uf.promote_dtypes_inexact(asarray_operand(seq_of_zeros))
    z = atleast_1d(z)   # (as JAX: a scalar is one root)
    sh = core.get_aval(z).shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = linalg.eigvals(z)
    if core.get_aval(z).ndim != 1:
        raise ShapeValueError("input must be 1d or non-empty square 2d array.")
    dt = core.get_aval(z).dtype
    if core.get_aval(z).shape[0] == 0:
        return lax.full((), 1, dt)
    out = lax.full((1,), 1, dt)
    for i in range(core.get_aval(z).shape[0]):
        root = lax.slice(z, (i,), (i + 1,))
        out = convolve(out, lax.concatenate([lax.full((1,), 1, dt), uf.negative(root)], 0))
    return out


def _companion_eigvals(p):
    """Eigenvalues of the companion matrix of the 1-D coefficients `p` (size >= 2)."""
    n = core.get_aval(p).shape[0]
    top = uf.negative(uf.true_divide(lax.slice(p, (1,), (n,)), lax.slice(p, (0,), (1,))))
    rows = [reshape(top, (1, n - 1))]
    if n > 2:
        rows.append(eye(n - 2, n - 1, dtype=core.get_aval(p).dtype))
    return linalg.eigvals(concatenate(rows, axis=0))


def roots(p, *, strip_zeros=True):
    """The roots of the polynomial with coefficients `p` (highest power first).

    Args:
      p: 1-D coefficients (a scalar counts as one coefficient).
      strip_zeros: drop leading zero coefficients first, as NumPy; this needs
        concrete values. With False (usable under jit) the coefficients keep their
        length and each leading zero gives a NaN root, placed last.
    Returns:
      1-D complex Array of the companion matrix's eigenvalues.
    Vs NumPy: `strip_zeros=False` is a JAX extension for static shapes.
    """
    [p] = uf.promote_dtypes_inexact(asarray_operand(p))
    if core.get_aval(p).ndim == 0:
        p = reshape(p, (1,))
    if core.get_aval(p).ndim != 1:
        raise ArgumentValueError("Input must be a rank-1 array.")
    n = core.get_aval(p).shape[0]
    cdt = dtypes.canonicalize(np.promote_types(core.get_aval(p).dtype, np.complex64))
    if n < 2:
        return lax.full((0,), 0, cdt)
    if not strip_zeros:
        return _roots_keep_shape(p)
    lead = _leading_zeros(p)
    if isinstance(lead, Tracer) and getattr(lead, "known", None) is None:
        raise ConcretizationError(
            "The error occurred in the jnp.roots() function: stripping leading zeros "
            "needs concrete coefficients",
            hint="pass strip_zeros=False under jit (leading zeros then give NaN roots)")
    k = int(np.asarray(lead.known if isinstance(lead, Tracer) else lead))
    if n - k < 2:
        return lax.full((0,), 0, cdt)
    return _roots_from(p, k)


# (each one executable on an eager call, as JAX's jitted pieces of `roots`)
@library_jit
def _leading_zeros(p):
    """The number of leading zero coefficients of the 1-D `p` (its size if all are)."""
    is_zero = uf.equal(p, 0)
    return uf.where(_all(is_zero), core.get_aval(p).shape[0], argmin(is_zero))


@library_jit(static_argnums=(1,))
def _roots_from(p, k):
    """The roots of `p` without its first `k` (zero) coefficients."""
    return _companion_eigvals(lax.slice(p, (k,), (core.get_aval(p).shape[0],)))


@library_jit
def _roots_keep_shape(p):
    """`roots(p, strip_zeros=False)` of the 1-D `p` (size >= 2): the leading zeros
    rotated to the end (they become zero roots), the zero roots moved last and the last
    `lead` of them reported as NaN."""
    n = core.get_aval(p).shape[0]
    cdt = dtypes.canonicalize(np.promote_types(core.get_aval(p).dtype, np.complex64))
    lead = _leading_zeros(p)
    p = uf.where(uf.equal(lead, n), np.asarray(1, core.get_aval(p).dtype)[()], p)
    idx = uf.remainder(uf.add(lax.iota(np.int32, n), lax.convert_element_type(lead, np.int32)), n)
    p = _take_1d(p, idx)
    r = _companion_eigvals(p)
    order = argsort(lax.convert_element_type(uf.equal(r, 0), np.int32), stable=True)
    r = _take_1d(r, order)
    keep = uf.less(lax.iota(np.int32, n - 1), uf.subtract(n - 1, lead))
    return uf.where(keep, r, np.asarray(complex(np.nan, np.nan), cdt)[()])


def _bit_operand(a, axis):
    """`a` with its packing axis last (flattened when `axis` is None), and that axis."""
    if axis is None:
        return ravel(a), 0
    axis = canonicalize_axis(axis, core.get_aval(a).ndim)
    return swapaxes(a, axis, -1), axis


def _bit_order(bitorder):
    if bitorder not in ("little", "big"):
        raise ArgumentValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(8, dtype=np.uint8)
    return shifts[::-1].copy() if bitorder == "big" else shifts


@library_jit(static_argnames=("axis", "bitorder"))
def packbits(a, axis=None, bitorder="big"):
    """Pack the truth values of an integer or boolean array into uint8 bytes.

    Args:
      a: integer or boolean array; each nonzero element is a set bit.
      axis: axis to pack along (default: the flattened array).
      bitorder: 'big' (first element is the high bit) or 'little'.
    Returns:
      uint8 Array; the packed axis has length ceil(n / 8) (the tail is zero-padded).
    Vs NumPy: same results.
    """
    a = asarray_operand(a)
    dt = core.get_aval(a).dtype
    if not (dtypes.issubdtype(dt, np.integer) or dtypes.issubdtype(dt, np.bool_)):
        raise ArgumentTypeError("Expected an input array of integer or boolean data type")
    shifts = _bit_order(bitorder)
    bits = lax.convert_element_type(uf.not_equal(a, np.asarray(0, dt)[()]), np.uint8)
    bits, axis = _bit_operand(bits, axis)
    shape = core.get_aval(bits).shape
    tail = shape[-1] % 8
    if tail:
        bits = lax.pad(bits, np.uint8(0), [(0, 0, 0)] * (len(shape) - 1) + [(0, 8 - tail, 0)])
    shape = core.get_aval(bits).shape
    bits = reshape(bits, shape[:-1] + (shape[-1] // 8, 8))
    packed = _sum(uf.left_shift(bits, shifts), axis=-1, dtype=np.uint8)
    return swapaxes(packed, axis, -1)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Unpack the bits of a uint8 array into 0/1 uint8 elements.

    Args:
      a: uint8 array.
      axis: axis to unpack along (default: the flattened array).
      count: number of bits to keep along that axis (negative: drop that many from
        the end; larger than 8*n: zero-padded).
      bitorder: 'big' (high bit first) or 'little'.
    Returns:
      uint8 Array of bits.
    Vs NumPy: same results.
    """
    a = asarray_operand(a)
    if core.get_aval(a).dtype != np.uint8:
        raise ArgumentTypeError("Expected an input array of unsigned byte data type")
    masks = np.left_shift(np.uint8(1), _bit_order(bitorder))
    a, axis = _bit_operand(a, axis)
    shape = core.get_aval(a).shape
    bits = uf.bitwise_and(reshape(a, shape + (1,)), masks)
    bits = lax.convert_element_type(uf.greater(bits, np.uint8(0)), np.uint8)
    bits = reshape(bits, shape[:-1] + (shape[-1] * 8,))
    if count is not None:
        count = operator.index(count)
        width = shape[-1] * 8
        if count > width:
            bits = lax.pad(bits, np.uint8(0),
                           [(0, 0, 0)] * (len(shape) - 1) + [(0, count - width, 0)])
        else:
            bits = lax.slice_in_dim(bits, 0, len(range(width)[:count]), axis=-1)
    return swapaxes(bits, axis, -1)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree `deg`.

    The columns of the Vandermonde matrix are scaled to unit norm and the system is
    solved by `linalg.lstsq` (an SVD), as JAX and NumPy do.

    Args:
      x: 1-D sample x-coordinates. y: 1-D or 2-D sample values. deg: static degree.
      rcond: relative cutoff for small singular values (default `len(x) * eps`).
      full: also return the residuals, rank, singular values and `rcond`.
      w: optional 1-D per-sample weights. cov: also return the covariance matrix of the
        coefficients (`cov="unscaled"`: without the residual-variance factor).
    Returns:
      The coefficients, highest power first (one column per column of `y`); with
      `full`, `(c, residuals, rank, singular_values, rcond)`; with `cov`, `(c, V)`.
    Differs from NumPy: results follow JAX's dtype rules (float32 by default).
    """
    x, y = asarray_operand(x), asarray_operand(y)
    deg = operator.index(deg)
    order = deg + 1
    if deg < 0:
        raise ArgumentValueError("expected deg >= 0", hint="pass a non-negative degree")
    xs, ys = core.get_aval(x).shape, core.get_aval(y).shape
    for bad, msg in ((len(xs) != 1, "expected 1D vector for x"),
                     (len(xs) == 1 and xs[0] == 0, "expected non-empty vector for x"),
                     (not 1 <= len(ys) <= 2, "expected 1D or 2D array for y"),
                     (xs[:1] != ys[:1], "expected x and y to have same length")):
        if bad:
            raise ArgumentTypeError(msg)
    if cov and not full and cov != "unscaled" and xs[0] <= order:
        raise ArgumentValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix", hint='pass cov="unscaled"')
    if w is not None:
        w = asarray_operand(w)
        if core.get_aval(w).ndim != 1:
            raise ArgumentTypeError("expected a 1-d array for weights")
        if core.get_aval(w).shape[0] != ys[0]:
            raise ArgumentTypeError("expected w and y to have the same length")
    return _polyfit(x, y, deg, None if rcond is None else float(rcond), operator.truth(full),
                    w, cov if cov == "unscaled" else operator.truth(cov))


@library_jit(static_argnums=(2, 3, 4, 6))
def _polyfit(x, y, deg, rcond, full, w, cov):
    order, xs, ys = deg + 1, core.get_aval(x).shape, core.get_aval(y).shape
    x, y = uf.promote_dtypes_inexact(x, y)
    if rcond is None:
        rcond = xs[0] * float(dtypes.finfo(core.get_aval(x).dtype).eps)
    rcond = float(rcond)
    A = vander(x, order)  # noqa: N806
    if w is not None:
        [w] = uf.promote_dtypes_inexact(w)
        wcol = lax.expand_dims(w, (1,))
        A = uf.multiply(A, wcol)  # noqa: N806
        y = uf.multiply(y, wcol if len(ys) == 2 else w)
    scale = uf.sqrt(_sum(uf.multiply(A, A), axis=0))
    A = uf.true_divide(A, scale)  # noqa: N806
    c, resids, rank, s = linalg.lstsq(A, y, rcond)
    c = uf.true_divide(c, scale if len(ys) == 1 else lax.expand_dims(scale, (1,)))
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    V = uf.true_divide(linalg.inv(matmul(lax.transpose(A, (1, 0)), A)),  # noqa: N806
                       uf.multiply(lax.expand_dims(scale, (1,)), lax.expand_dims(scale, (0,))))
    fac = asarray(1.0) if cov == "unscaled" else uf.true_divide(resids, xs[0] - order)
    fac = ravel(fac)   # atleast_1d
    if len(ys) == 1:
        return c, uf.multiply(V, lax.expand_dims(fac, (0,)))
    return c, uf.multiply(lax.expand_dims(V, (2,)), lax.expand_dims(fac, (0, 1)))


def polydiv(u, v, *, trim_leading_zeros=False):
    """Quotient and remainder of polynomial division.

    Args:
      u: dividend coefficients. v: divisor coefficients (highest power first).
      trim_leading_zeros: drop the remainder's leading entries below sqrt(eps) in
        magnitude, as JAX (needs concrete values; all of them small: an empty remainder).
    Returns:
      `(quotient, remainder)`; the remainder keeps the length of `u` unless trimmed.
    Differs from NumPy: leading zeros of the remainder are trimmed only when asked
    (static shapes).
    """
    u, v = uf.promote_dtypes_inexact(u, v)
    m, n = core.get_aval(u).shape[0] - 1, core.get_aval(v).shape[0] - 1
    dt = core.get_aval(u).dtype
    scale = uf.true_divide(1.0, lax.index_in_dim(v, 0, 0, False))
    q = lax.full((max(m - n + 1, 1),), 0, dt)
    r = u
    for k in range(0, m - n + 1):
        d = uf.multiply(scale, lax.index_in_dim(r, k, 0, False))
        q = lax.dynamic_update_slice(q, lax.reshape(d, (1,)), (np.int32(k),))
        dv = uf.multiply(d, v)
        shifted = lax.pad(dv, _pad_value(dv), [(k, m - n - k, 0)])
        r = uf.subtract(r, shifted)
    if trim_leading_zeros:
        r = _trim_leading_small(r)
    return q, r


def _trim_leading_small(r):
    """`r` without its leading entries of magnitude below sqrt(eps) of its dtype."""
    if isinstance(r, Tracer):
        if r.known is None:
            raise ConcretizationError("jnp.polydiv(trim_leading_zeros=True) needs a "
                                      "remainder known at staging time")
        value = np.asarray(r.known)
    else:
        value = np.asarray(r)
    small = np.abs(value) < np.sqrt(dtypes.finfo(value.dtype).eps)
    start = int(np.argmin(small)) if not small.all() else value.shape[0]
    return lax.slice_in_dim(r, start, value.shape[0])


@library_jit(static_argnames=("axis",))
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """Remove jumps larger than `discont` by adding multiples of `period`.

    Args:
      p: input angles. discont: jump size to correct (default: period / 2).
      axis: axis to unwrap along. period: size of the wrap-around range.
    Returns:
      The unwrapped array, same shape as `p`.
    Differs from NumPy: results follow JAX's dtype rules (float32 by default).
    """
    [p] = uf.promote_dtypes_inexact(p)
    nd = core.get_aval(p).ndim
    axis = canonicalize_axis(axis, nd, "unwrap")
    discont = period / 2 if discont is None else discont
    dd = diff(p, axis=axis)
    half = period / 2
    ddmod = uf.subtract(uf.remainder(uf.add(dd, half), period), half)
    ddmod = uf.where(uf.logical_and(uf.equal(ddmod, -half), uf.greater(dd, 0)), half, ddmod)
    correct = uf.subtract(ddmod, dd)
    correct = uf.where(uf.less(uf.abs(dd), discont), 0.0, correct)
    shape = list(core.get_aval(p).shape)
    shape[axis] = 1
    zero = lax.full(tuple(shape), 0, core.get_aval(p).dtype)
    return uf.add(p, concatenate([zero, cumsum(correct, axis=axis)], axis=axis))


def mask_indices(n, mask_func, k=0, *, size=None):
    """Indices of an (n, n) mask produced by `mask_func`, e.g. `jnp.triu`.

    Args:
      n: matrix size. mask_func: function like `triu(m, k)`. k: its offset.
      size: accepted for JAX compatibility.
    Returns:
      `(rows, cols)` integer arrays of the non-zero mask entries.
    Differs from NumPy: the mask is built on the host, so `n` must be static.
    """
    m = np.asarray(mask_func(np.ones((int(n), int(n)), np.int32), k))
    r, c = np.nonzero(m)
    idt = dtypes.canonicalize(dtypes.dtype(int))
    return asarray(r.astype(idt)), asarray(c.astype(idt))


def _host(fn):
    def f(*args, **kwargs):
        v = fn(*args, **kwargs)
        if isinstance(v, np.ndarray) and v.dtype == "V2":   # bfloat16, which NumPy saves
            v = v.view(dtypes.bfloat16)                     # as void16 (JAX's `load`)
        return asarray(np.asarray(v)) if isinstance(v, np.ndarray) else v
    f.__name__ = fn.__name__
    f.__doc__ = f"""Host-side `numpy.{fn.__name__}`, with an ndarray result turned into an astjax Array.

Args:
  Same as `numpy.{fn.__name__}`.
Returns:
  An astjax Array (other results are passed through unchanged).
Differs from NumPy: runs eagerly on the host; not usable inside jit.
"""
    return f


frombuffer = _host(np.frombuffer)
fromstring = _host(np.fromstring)
fromiter = _host(np.fromiter)
fromfile = _host(np.fromfile)
load = _host(np.load)


def save(file, arr, allow_pickle=True):
    """Write an array to a `.npy` file.

    Args:
      file: path or file object. arr: array (copied to the host).
      allow_pickle: passed to `numpy.save`.
    Returns:
      None.
    Differs from NumPy: the array must be concrete (not traced).
    """
    return np.save(file, np.asarray(arr), allow_pickle=allow_pickle)


def savez(file, *args, **kwds):
    """Write several arrays to an uncompressed `.npz` archive.

    Args:
      file: path or file object. args / kwds: arrays, saved under
        `arr_0, ...` or under their keyword names.
    Returns:
      None.
    Differs from NumPy: the arrays must be concrete (not traced).
    """
    return np.savez(file, *[np.asarray(a) for a in args],
                    **{k: np.asarray(v) for k, v in kwds.items()})


# ------------------------------------------------------------ put / put_along_axis / place


def _not_inplace(name, inplace):
    if inplace:
        raise ArgumentValueError(
            f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are "
            "immutable. Pass inplace=False to instead return an updated array.",
            hint=f"y = jnp.{name}(..., inplace=False) returns the updated copy")


def _repeat_to(v, n):
    """The 1-D `v` repeated cyclically (NumPy's rule for too few values) to length n."""
    size = core.get_aval(v).shape[0]
    if size < n:
        v = tile(v, -(-n // size))
    return v[:n] if core.get_aval(v).shape[0] > n else v


def put(a, ind, v, mode=None, *, inplace=True):
    """`a` with the flat positions `ind` set to `v` (repeated cyclically), as NumPy's
    `put` would leave it; JAX arrays are immutable, so `inplace=False` is required.

    Args:
        a: array to update.
        ind: flat indices (out-of-range ones are dropped with mode=None).
        v: values, raveled and repeated to `ind`'s size.
        mode: None (drop out-of-range), 'clip' or 'wrap'; 'raise' is not supported
            (a NotImplementedError, as in JAX).
        inplace: must be False.

    Returns:
        An updated copy of `a`.
    """
    _not_inplace("put", inplace)
    arr, ind_arr, v_arr = asarray_operand(a), asarray_operand(ind), asarray_operand(v)
    arr, ind_arr, v_arr = asarray(arr), ravel(asarray(ind_arr)), ravel(asarray(v_arr))
    size = int(np.prod(core.get_aval(arr).shape, dtype=np.int64))
    n = core.get_aval(ind_arr).shape[0]
    if not size or not n or not core.get_aval(v_arr).shape[0]:
        return arr
    v_arr = _repeat_to(v_arr, n)
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind_arr, scatter_mode = uf.clip(ind_arr, 0, size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind_arr, scatter_mode = uf.remainder(ind_arr, size), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedInAstjaxError("The 'raise' mode to jnp.put is not supported.",
                                          hint="use mode='clip' or 'wrap'")
    else:
        raise ArgumentValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    idx = unravel_index(ind_arr, core.get_aval(arr).shape)
    return arr.at[idx].set(v_arr, mode=scatter_mode)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """`arr` with the 1-D slices along `axis` updated at `indices` (NumPy's
    `put_along_axis`, on a copy: `inplace=False` is required).

    Args:
        arr: array to update.
        indices: integer array of `arr`'s rank.
        values: values broadcast to `indices`' shape.
        axis: the axis (None: the flattened array).
        inplace: must be False.
        mode: the `.at[].set` out-of-bounds mode.

    Returns:
        An updated copy of `arr`.
    """
    if inplace:
        _not_inplace("put_along_axis", inplace)
    arr, indices, values = (asarray(asarray_operand(x)) for x in (arr, indices, values))
    shape = core.get_aval(arr).shape
    if axis is None:
        arr, axis = ravel(arr), 0
    aa, ia = core.get_aval(arr), core.get_aval(indices)
    if aa.ndim != ia.ndim:
        raise ArgumentValueError(
            "put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
            f"arr.ndim={aa.ndim} and indices.ndim={ia.ndim}.")
    try:
        values = broadcast_to(values, ia.shape)
    except ValueError:
        raise ArgumentValueError(
            "put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
            f"values.shape={core.get_aval(values).shape} and indices.shape={ia.shape}."
        ) from None
    axis = canonicalize_axis(axis, aa.ndim, "put_along_axis")
    idx = list(_indices(aa.shape, sparse=True))
    idx[axis] = indices
    out = arr.at[tuple(idx)].set(values, mode=mode)
    return reshape(out, shape) if core.get_aval(out).shape != shape else out


def place(arr, mask, vals, *, inplace=True):
    """`arr` with the positions where `mask` is true filled by `vals` in order (repeated
    cyclically), as NumPy's `place`, on a copy: `inplace=False` is required.

    Args:
        arr: array to update.
        mask: boolean array of `arr`'s size.
        vals: values, raveled (must not be empty).
        inplace: must be False.

    Returns:
        An updated copy of `arr`.
    """
    data, mask_arr, vals_arr = (asarray(asarray_operand(x)) for x in (arr, mask, vals))
    vals_arr = ravel(vals_arr)
    _not_inplace("place", inplace)
    shape = core.get_aval(data).shape
    size = int(np.prod(shape, dtype=np.int64))
    if size != int(np.prod(core.get_aval(mask_arr).shape, dtype=np.int64)):
        raise ArgumentValueError("place: arr and mask must be the same size")
    if not core.get_aval(vals_arr).shape[0]:
        raise ArgumentValueError("Cannot place values from an empty array")
    if not size:
        return data
    where_true = uf.where(ravel(mask_arr), size=size, fill_value=size)[0]
    vals_arr = _repeat_to(vals_arr, size)
    return reshape(ravel(data).at[where_true].set(vals_arr, mode="drop"), shape)
