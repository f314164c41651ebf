"""More array construction and rearrangement: insert/delete/append, block, resize,
unstack, rollaxis, index helpers (indices, tri*_indices, diag_indices, ix_,
unravel_index, ravel_multi_index; mgrid/ogrid/r_/c_: index_tricks.py), cross,
vecdot/matvec/vecmat, apply_along_axis, choose/compress/extract (polynomials:
polynomial.py).

Static index lists are turned into slices and concatenations (`take_static`), so
none of this needs gather."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..errors import (ArgumentTypeError, ArgumentValueError, ConcretizationError,
                      NotImplementedInAstjaxError, ShapeError, ShapeValueError)
from . import ufuncs as uf
from .contractions import matmul
from ..batching_api import vmap
from .creation import arange, diag
from .operands import _dtype, asarray, operator_index, _strong_result
from .reductions import sum as _sum
from .shapes import concatenate, moveaxis, ravel, _reshape as reshape, stack
from .ufuncs import asarray_operand, where
from .util import canonicalize_axis, check_hashable, library_jit, static_int
from .sorting import argsort
from .advanced_indexing import take
from .arraylike import check_arraylike

__all__ = ["take_static", "append", "insert", "delete", "unstack", "rollaxis", "resize",
           "block", "diagflat", "fill_diagonal", "choose", "compress", "extract", "indices",
           "fromfunction", "tril_indices", "triu_indices", "tril_indices_from",
           "triu_indices_from", "diag_indices", "diag_indices_from", "vander", "ix_",
           "cross", "vecdot", "matvec", "vecmat",
           "ravel_multi_index", "unravel_index", "apply_along_axis", "apply_over_axes"]


def _dt(x):
    return core.get_aval(x).dtype


def _shape(x):
    return core.get_aval(x).shape


def take_static(x, idx, axis):
    """x[..., idx, ...] along `axis` for a static integer index list, as runs of
    slices joined by one concatenate.
    Args: x: array; idx: static int indices; axis: int.
    Returns: Array gathered along `axis`.
    Vs NumPy: indices must be concrete; out-of-range ones raise instead of clipping."""
    idx = [int(i) for i in np.asarray(idx).reshape(-1)]
    n = _shape(x)[axis]
    idx = [i + n if i < 0 else i for i in idx]
    if any(not 0 <= i < n for i in idx):
        raise ShapeError(f"index out of bounds for axis {axis} with size {n}")
    if not idx:
        shape = list(_shape(x))
        shape[axis] = 0
        return lax.full(tuple(shape), 0, _dt(x))
    pieces, start = [], 0
    for k in range(1, len(idx) + 1):
        if k == len(idx) or idx[k] != idx[k - 1] + 1:
            pieces.append(lax.slice_in_dim(x, idx[start], idx[k - 1] + 1, axis=axis))
            start = k
    return pieces[0] if len(pieces) == 1 else lax.concatenate(pieces, axis)


def _static_indices(obj, what):
    if isinstance(obj, Tracer):
        if obj.known is None:
            raise ConcretizationError(f"{what} must be static (known at staging time)")
        return np.asarray(obj.known)
    if isinstance(obj, slice):
        return obj
    return np.asarray(obj)


@library_jit(static_argnames=("axis",))
def append(arr, values, axis=None):
    """Append `values` to the end of `arr`.
    Args: arr, values: arrays; axis: int, or None to flatten both.
    Returns: new Array; `arr` is unchanged.
    Vs NumPy: arrays are immutable: a new array is always built.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.append(jnp.arange(2), 5)
    Array([0, 1, 5], dtype=int32)
    """
    if axis is None:
        return concatenate([ravel(asarray(arr)), ravel(asarray(values))])
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """Remove entries of `arr` at the indices `obj` along `axis`.
    Args: arr: array; obj: int, slice, or int array (not a list, as JAX); axis: int or
        None (flatten).
    Returns: Array without those entries.
    Vs NumPy: `obj` must be static so the output shape is known.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.delete(jnp.arange(4), 1)
    Array([0, 2, 3], dtype=int32)
    """
    arr = asarray_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = canonicalize_axis(axis, core.get_aval(arr).ndim, "delete")
    n = _shape(arr)[axis]
    if not isinstance(obj, (slice, int, np.integer)):   # (JAX checks an index array only)
        check_arraylike("delete", arr, obj)
    obj = _static_indices(obj, "the indices of jnp.delete")
    keep = np.delete(np.arange(n), obj)
    return take_static(arr, keep, axis)


def insert(arr, obj, values, axis=None):
    """Insert `values` into `arr` before the indices `obj`.
    Args: arr: array; obj: int, slice or ints; values: array; axis: int or None.
    Returns: new Array.
    Vs NumPy: `obj` must be static; `values` are cast to `arr`'s dtype.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.insert(jnp.arange(3), 1, 9)
    Array([0, 9, 1, 2], dtype=int32)
    """
    arr = asarray_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = canonicalize_axis(axis, core.get_aval(arr).ndim, "insert")
    n = _shape(arr)[axis]
    obj = _static_indices(obj, "the indices of jnp.insert")
    if isinstance(obj, slice):
        obj = np.arange(n)[obj]
    values = asarray_operand(values)
    [values] = [lax.convert_element_type(values, _dt(arr))]
    scalar_obj = np.ndim(obj) == 0
    obj_list = np.atleast_1d(obj)
    vnd = core.get_aval(values).ndim
    if scalar_obj:
        # values are inserted as one block before obj: align their axis with `axis`
        if vnd == core.get_aval(arr).ndim:
            vals = values
            k = _shape(vals)[axis]
        else:
            vals = lax.reshape(values, _shape(values) if vnd else (1,))
            vals = lax.expand_dims(vals, (axis,)) if vnd and vnd < core.get_aval(arr).ndim \
                else vals
            k = 1 if vnd < core.get_aval(arr).ndim else _shape(vals)[axis]
        positions = np.full(k, int(obj))
    else:
        k = len(obj_list)
        positions = obj_list
        vals = values
        if vnd == 1 and core.get_aval(arr).ndim > 1:
            vals = lax.expand_dims(values, tuple(i for i in range(core.get_aval(arr).ndim)
                                                 if i != axis))
    target = list(_shape(arr))
    target[axis] = k
    vals = uf.broadcast_to_shape(vals, tuple(target)) if _shape(vals) != tuple(target) else vals
    mapping = np.insert(np.arange(n), np.where(positions < 0, positions + n, positions),
                        n + np.arange(k))
    return take_static(lax.concatenate([arr, vals], axis), mapping, axis)


@library_jit(static_argnames=("axis",))
def unstack(x, /, *, axis=0):
    """Split `x` into a tuple of slices along `axis`.
    Args: x: array; axis: int (keyword-only).
    Returns: tuple of Arrays, each without `axis`.
    Vs NumPy: the number of slices is static, from `x`'s shape."""
    x = asarray_operand(x)
    axis = canonicalize_axis(axis, core.get_aval(x).ndim, "unstack")
    return tuple(lax.index_in_dim(x, i, axis, False) for i in range(_shape(x)[axis]))


def rollaxis(a, axis, start=0):
    """Move `axis` of `a` so that it sits before `start`.
    Args: a: array; axis: int; start: int position.
    Returns: Array with the axis moved.
    Vs NumPy: returns a new array, not a view."""
    a = asarray_operand(a)
    nd = core.get_aval(a).ndim
    axis = canonicalize_axis(axis, nd, "rollaxis")
    if not -nd <= start <= nd:
        raise ShapeError(f"rollaxis: start {start} out of range for rank {nd}")
    start = start + nd if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


@library_jit(static_argnames=("new_shape",))
def resize(a, new_shape):
    """Return `a` with shape `new_shape`, repeating its data as needed.
    Args: a: array; new_shape: int or tuple.
    Returns: Array of shape `new_shape`.
    Vs NumPy: `new_shape` must be static; an empty input gives zeros."""
    check_hashable(new_shape, "jnp.resize")   # (static in JAX's jitted resize)
    a = ravel(asarray_operand(a))
    new_shape = (int(new_shape),) if np.ndim(new_shape) == 0 else tuple(int(d) for d in new_shape)
    total = int(np.prod(new_shape, dtype=np.int64))
    n = _shape(a)[0]
    if total == 0 or n == 0:
        return lax.full(new_shape, 0, _dt(a))
    reps = -(-total // n)
    flat = lax.reshape(lax.broadcast(a, (reps,)), (reps * n,))
    return reshape(lax.slice_in_dim(flat, 0, total), new_shape)


def block(arrays):
    """Assemble an array from nested lists of blocks.
    Args: arrays: nested lists of arrays.
    Returns: Array.
    Vs NumPy: JAX dtype promotion across blocks."""

    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) and x else (1 if isinstance(x, list) else 0)
    d = depth(arrays)

    def rank(x):
        return max(rank(y) for y in x) if isinstance(x, list) else core.get_aval(asarray(x)).ndim
    nd = max(d, rank(arrays))

    def go(x, level):
        if isinstance(x, list):
            if level >= d:
                raise ArgumentValueError("block: list nesting depths are mismatched")
            return concatenate([go(y, level + 1) for y in x], axis=-(d - level))
        x = asarray(x)
        r = core.get_aval(x).ndim
        return lax.reshape(x, (1,) * (nd - r) + _shape(x)) if r < nd else x
    return go(arrays, 0)


def diagflat(v, k=0):
    """Build a 2-D array with the flattened input on diagonal `k`.
    Args: v: array; k: diagonal offset.
    Returns: 2-D Array.
    Vs NumPy: shape follows statically from `v.size` and `k`."""
    return _strong_result(diag(ravel(asarray_operand(v)), k))   # (JAX: set into zeros)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """Return a copy of `a` with its main diagonal set to `val`.
    Args: a: array; val: scalar or array; wrap: bool; inplace: must be False.
    Returns: new Array.
    Vs NumPy: arrays are immutable: `inplace=True` (the default) raises."""
    if inplace:
        raise ArgumentValueError("JAX arrays are immutable: call jnp.fill_diagonal(..., "
                                 "inplace=False) and use the returned array")
    a = asarray_operand(a)
    shape = _shape(a)
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise ShapeError("fill_diagonal needs a 2-D array or an array with equal dimensions")
    mask = None
    for i in range(1, len(shape)):
        m = lax.eq(lax.broadcasted_iota(dtypes.int32, shape, 0),
                   lax.broadcasted_iota(dtypes.int32, shape, i))
        mask = m if mask is None else lax.bitwise_and(mask, m)
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:
        r = lax.broadcasted_iota(dtypes.int32, shape, 0)
        c = lax.broadcasted_iota(dtypes.int32, shape, 1)
        mask = lax.eq(lax.rem(r, np.int32(shape[1] + 1)), c)
    val = asarray_operand(val)
    if core.get_aval(val).ndim:
        v = ravel(val)
        n = min(shape)
        v = take_static(v, np.arange(n) % _shape(v)[0], 0)
        vb = lax.broadcast_in_dim(v, shape, (0,)) if len(shape) == 2 else None
        if vb is None:
            raise ShapeError("fill_diagonal with array values needs a 2-D array")
        val = vb
    # (JAX sets `val` into `a`: a's dtype and weak type, whatever val's)
    av = core.get_aval(a)
    return where(mask, lax.convert_element_type(val, av.dtype, weak_type=av.weak_type), a)


def choose(a, choices, out=None, mode="raise"):
    """Pick entries from `choices` using the integer array `a`.
    Args: a: int array; choices: sequence of arrays; out: unsupported; mode: 'raise'
        (out-of-range entries are a ValueError: `a` must then be concrete, as in JAX),
        'wrap' or 'clip'.
    Returns: Array.
    Vs NumPy: no `out=`."""
    if out is not None:
        raise NotImplementedInAstjaxError("The 'out' argument to jnp.choose is not supported.")
    a = asarray_operand(a)
    if not dtypes.issubdtype(core.get_aval(a).dtype, np.integer):
        raise ArgumentValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        known = a.known if isinstance(a, Tracer) else np.asarray(a)
        if known is None:
            raise ConcretizationError(
                "jnp.choose with mode='raise' needs a concrete `a`: The error occurred because "
                "jnp.choose was jit-compiled with mode='raise'. Use mode='wrap' or "
                "mode='clip' instead.")
        if np.any((np.asarray(known) < 0) | (np.asarray(known) >= n)):
            raise ArgumentValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = uf.remainder(a, n)
    elif mode == "clip":
        a = uf.clip(a, 0, n - 1)
    else:
        raise ArgumentValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or "
                                 "'clip'")
    choices = uf.promote_dtypes(*[asarray_operand(c) for c in choices])
    out_ = choices[n - 1]
    for i in range(n - 2, -1, -1):
        out_ = where(uf.equal(a, i), choices[i], out_)
    return uf.broadcast_to_shape(out_, uf.broadcast_shapes(_shape(a), *[_shape(c) for c in choices]))


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """Select slices of `a` where `condition` is true.
    Args: condition: 1-D bool array (entries past `a`'s axis must be false); a: array;
        axis: int, or None to flatten `a`; size: static length of the result (then
        `condition` may be staged: the selected slices first, then slices of
        `fill_value`); fill_value: what pads the result up to `size`.
    Returns: Array of the selected slices.
    Vs NumPy: without `size`, `condition` must be concrete (it sets the shape)."""
    if out is not None:
        raise NotImplementedInAstjaxError("The 'out' argument to jnp.compress is not "
                                          "supported.")
    a = asarray_operand(a)
    cond = asarray_operand(condition)
    if core.get_aval(cond).ndim != 1:
        raise ArgumentValueError("condition must be a 1D array")
    if axis is None:
        a, axis = ravel(a), 0
    else:
        axis = canonicalize_axis(axis, core.get_aval(a).ndim, "compress")
        a = moveaxis(a, axis, 0)
    m = min(_shape(cond)[0], _shape(a)[0])
    if size is None:
        flags = np.asarray(_static_indices(condition, "the condition of jnp.compress "
                                                      "(without size=)")).astype(bool)
        if flags[m:].any():
            raise ArgumentValueError("condition contains entries that are out of bounds")
        result = take_static(a, np.nonzero(flags[:m])[0], 0)
    else:
        size = static_int(size, "The size argument of jnp.compress")
        if not 0 <= size <= m:
            raise ArgumentValueError("size must be positive and not greater than the size of "
                                     f"the array axis; got size={size} for a.shape[axis]={m}")
        cond = lax.convert_element_type(lax.slice_in_dim(cond, 0, m), dtypes.bool_)
        a = lax.slice_in_dim(a, 0, m)
        mask = lax.broadcast_in_dim(cond, _shape(a), (0,))
        a = where(mask, a, lax.convert_element_type(asarray_operand(fill_value),
                                                    core.get_aval(a).dtype))
        # selected slices first, in order; then the filled ones
        order = lax.slice_in_dim(argsort(cond, stable=True, descending=True), 0, size)
        result = take(a, order, axis=0)
    return moveaxis(result, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    """Return the elements of `arr` where `condition` is true, flattened.
    Args: condition: array; arr: array; size: static length of the result (then
        `condition` may be staged); fill_value: pads the result up to `size`.
    Returns: 1-D Array.
    Vs NumPy: without `size`, `condition` must be concrete (it sets the output shape)."""
    return compress(ravel(asarray_operand(condition)), ravel(asarray_operand(arr)), size=size,
                    fill_value=fill_value)


def indices(dimensions, dtype=None, sparse=False):
    """Return an index grid for the given dimensions.
    Args: dimensions: tuple of ints; dtype: optional; sparse: bool.
    Returns: Array (or tuple of Arrays when sparse).
    Vs NumPy: dimensions must be static; int32 by default unless x64."""
    dims = tuple(int(d) for d in dimensions)
    dt = _dtype(dtype, dtypes.dtype(int))
    out = []
    for i, d in enumerate(dims):
        if sparse:
            shape = tuple(d if j == i else 1 for j in range(len(dims)))
            out.append(lax.broadcasted_iota(dt, shape, i))
        else:
            out.append(lax.broadcasted_iota(dt, dims, i))
    if sparse:
        return tuple(out)
    return stack(out) if out else lax.full((0,), 0, dt)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """Build an array by calling `function` on coordinate arrays.
    Args: function: callable; shape: tuple; dtype: coordinate dtype; **kwargs: passed on.
    Returns: whatever `function` returns (each leaf with leading dimensions `shape`).
    Vs NumPy: `shape` must be static; as JAX, `function` is mapped with `vmap` over
        each coordinate, so it sees scalars (NumPy calls it once on whole grids)."""
    shape = tuple(static_int(d, "shape argument of jnp.fromfunction()") for d in shape)
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(n, dtype=dtype) for n in shape), **kwargs)


def _index_pair(r, c):
    idt = dtypes.canonicalize(dtypes.dtype(int))
    return asarray(r.astype(idt)), asarray(c.astype(idt))


def tril_indices(n, k=0, m=None):
    """Return the row and column indices of a lower triangle.
    Args: n: rows; k: diagonal offset; m: optional columns.
    Returns: tuple of two int Arrays.
    Vs NumPy: sizes must be static.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.tril_indices(2)
    (Array([0, 1, 1], dtype=int32), Array([0, 0, 1], dtype=int32))
    """
    return _index_pair(*np.tril_indices(int(n), int(k), None if m is None else int(m)))


def triu_indices(n, k=0, m=None):
    """Return the row and column indices of an upper triangle.
    Args: n: rows; k: diagonal offset; m: optional columns.
    Returns: tuple of two int Arrays.
    Vs NumPy: sizes must be static."""
    return _index_pair(*np.triu_indices(int(n), int(k), None if m is None else int(m)))


def tril_indices_from(arr, k=0):
    """Return lower-triangle indices for the 2-D array `arr`.
    Args: arr: 2-D array; k: diagonal offset.
    Returns: tuple of two int Arrays.
    Vs NumPy: only `arr`'s static shape is used."""
    s = _shape(arr)
    if len(s) != 2:
        raise ShapeError("tril_indices_from needs a 2-D array")
    return tril_indices(s[0], k, s[1])


def triu_indices_from(arr, k=0):
    """Return upper-triangle indices for the 2-D array `arr`.
    Args: arr: 2-D array; k: diagonal offset.
    Returns: tuple of two int Arrays.
    Vs NumPy: only `arr`'s static shape is used."""
    s = _shape(arr)
    if len(s) != 2:
        raise ShapeError("triu_indices_from needs a 2-D array")
    return triu_indices(s[0], k, s[1])


def diag_indices(n, ndim=2):
    """Return indices of the main diagonal of an n-sized cube.
    Args: n: size; ndim: number of dimensions.
    Returns: tuple of `ndim` int Arrays.
    Vs NumPy: `n` and `ndim` must be static."""
    idt = dtypes.canonicalize(dtypes.dtype(int))
    r = lax.iota(idt, int(n))
    return (r,) * int(ndim)


def diag_indices_from(arr):
    """Return main-diagonal indices for `arr` (all axes equal).
    Args: arr: array with ndim >= 2.
    Returns: tuple of int Arrays.
    Vs NumPy: only `arr`'s static shape is used."""
    s = _shape(arr)
    if len(s) < 2 or len(set(s)) != 1:
        raise ShapeError("diag_indices_from needs an array with equal dimensions, rank >= 2")
    return diag_indices(s[0], len(s))


@library_jit(static_argnames=("N", "increasing"))
def vander(x, N=None, increasing=False):
    """Return the Vandermonde matrix of the powers of `x`.
    Args: x: 1-D array; N: number of columns; increasing: power order.
    Returns: 2-D Array.
    Vs NumPy: `N` (default len(x)) must be a static int."""
    x = asarray_operand(x)
    if core.get_aval(x).ndim != 1:   # (JAX's ValueError)
        raise ShapeValueError("x must be a one-dimensional array",
                              hint="vander takes a 1-D x; ravel it or map over its rows")
    N = _shape(x)[0] if N is None else int(N)
    if N < 0:
        raise ArgumentValueError("N must be nonnegative", hint="pass N >= 0 columns")
    # as JAX: x ** [N-1, ..., 0] with the powers a (strong) iota of x's dtype, so the
    # result is never weak and its bits are `power`'s, not repeated products'
    powers = lax.iota(_dt(x), N)
    if not increasing:
        powers = lax.sub(np.asarray(N - 1, _dt(x))[()], powers)
    return uf.power(lax.expand_dims(x, (1,)), lax.expand_dims(powers, (0,)))


def ix_(*args):
    """Build open-mesh index arrays from 1-D sequences.
    Args: *args: 1-D index arrays.
    Returns: tuple of Arrays for broadcasting indexing.
    Vs NumPy: bool inputs raise NotImplementedError (as JAX), not mask -> indices."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if _dt(a) == np.bool_:
            raise NotImplementedInAstjaxError("Boolean arguments to jnp.ix_ are not implemented",
                                              hint="pass jnp.nonzero(mask, size=...)[0]")
        if core.get_aval(a).ndim != 1:
            raise ShapeError("ix_: arguments must be 1-D")
        shape = [1] * n
        shape[i] = _shape(a)[0]
        out.append(lax.reshape(a, tuple(shape)))
    return tuple(out)




@library_jit(static_argnames=("axisa", "axisb", "axisc", "axis"))   # (as JAX: fused digits)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Return the cross product of 2- or 3-vectors.
    Args: a, b: arrays; axisa, axisb, axisc: vector axes; axis: overrides all three.
    Returns: Array.
    Vs NumPy: JAX dtype promotion; vector axes must be static.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.cross(jnp.array([1., 0., 0.]), jnp.array([0., 1., 0.]))
    Array([0., 0., 1.], dtype=float32)
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = uf.promote_dtypes(asarray_operand(a), asarray_operand(b))
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = _shape(a)[-1], _shape(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ShapeValueError("cross: incompatible dimensions for cross product (must be 2 "
                              "or 3)")

    def comp(x, i, n):
        if i < n:
            return lax.index_in_dim(x, i, core.get_aval(x).ndim - 1, False)
        return lax.full(_shape(x)[:-1], 0, _dt(x))
    a0, a1, a2 = (comp(a, i, na) for i in range(3))
    b0, b1, b2 = (comp(b, i, nb) for i in range(3))
    c2 = uf.subtract(uf.multiply(a0, b1), uf.multiply(a1, b0))
    if na == 2 and nb == 2:
        return c2
    c0 = uf.subtract(uf.multiply(a1, b2), uf.multiply(a2, b1))
    c1 = uf.subtract(uf.multiply(a2, b0), uf.multiply(a0, b2))
    c = _strong_result(stack([c0, c1, c2], axis=-1))   # (JAX: jnp.array of the three)
    return moveaxis(c, -1, axisc)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Return the conjugated dot product of vectors along `axis`.
    Args: x1, x2: arrays; axis: int; precision, preferred_element_type: lax options.
    Returns: Array.
    Vs NumPy: accepts JAX's `precision` and `preferred_element_type`."""
    x1, x2 = asarray_operand(x1), asarray_operand(x2)
    s1, s2 = _shape(x1), _shape(x2)
    if s1[canonicalize_axis(axis, len(s1))] != s2[canonicalize_axis(axis, len(s2))]:
        raise ShapeValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    if dtypes.issubdtype(_dt(x1), np.complexfloating):
        x1 = uf.conjugate(x1)
    # as JAX's (a vectorized vdot): one batched dot, in the operands' promoted dtype
    # (int8 stays int8) or preferred_element_type, not a multiply and a sum
    r = matmul(lax.expand_dims(x1, (len(s1) - 1,)), lax.expand_dims(x2, (len(s2),)),
               precision=precision, preferred_element_type=preferred_element_type)
    nd = core.get_aval(r).ndim
    return lax.squeeze(r, (nd - 2, nd - 1))


@library_jit
def matvec(x1, x2, /):
    """Multiply a stack of matrices by a stack of vectors.
    Args: x1: (..., M, N) array; x2: (..., N) array.
    Returns: Array of shape (..., M).
    Vs NumPy: JAX dtype promotion (weak types)."""
    x2 = asarray_operand(x2)
    out = matmul(x1, lax.reshape(x2, _shape(x2) + (1,)))
    return lax.reshape(out, _shape(out)[:-1])


@library_jit
def vecmat(x1, x2, /):
    """Multiply conjugated vectors by a stack of matrices.
    Args: x1: (..., M) array; x2: (..., M, N) array.
    Returns: Array of shape (..., N).
    Vs NumPy: JAX dtype promotion (weak types)."""
    x1 = uf.conjugate(asarray_operand(x1))
    out = matmul(lax.reshape(x1, _shape(x1)[:-1] + (1, _shape(x1)[-1])), x2)
    return lax.reshape(out, _shape(out)[:-2] + _shape(out)[-1:])


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """Convert a tuple of index arrays into flat indices.
    Args: multi_index: tuple of int arrays; dims: static shape; mode: 'raise' (the
        indices must be concrete), 'clip', 'wrap' or 'ignore'; order: 'C' or 'F';
        dtype: (keyword) an integer result dtype (default: the indices' promoted with
        a Python int), large enough for every flat index.
    Returns: int Array.
    Vs NumPy: mode='raise' cannot be used under `jit` (a ConcretizationError, as JAX's)."""
    dims = tuple(operator_index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ArgumentValueError(f"ravel_multi_index: {len(multi_index)} indices for "
                                 f"{len(dims)} dims", hint="give one index array per dim")
    idx = [asarray_operand(i) for i in multi_index]
    dt = (dtypes.result_type(*idx, 0) if dtype is None
          else dtypes.canonicalize(dtypes.dtype(dtype)))
    if not dtypes.issubdtype(dt, np.integer):
        raise ArgumentValueError(f"dtype={dt!r} is not an integer type.",
                                 hint="pass an integer dtype")
    if int(np.prod(dims, dtype=object)) - 1 > np.iinfo(dt).max:
        raise ArgumentValueError(
            f"jnp.ravel_multi_index: dtype={dt!r} not large enough to hold flattened index "
            f"for dims={dims}. Use the dtype argument to pass a suitable dtype (e.g. "
            "dtype=np.min_scalar_type(prod(dims))).", hint="pass a wider integer dtype")
    for i in idx:
        if mode == "raise" and isinstance(i, Tracer) and i.known is None:
            av = core.get_aval(i)
            shape = ",".join(str(d) for d in av.shape)
            raise ConcretizationError(
                "Abstract tracer value encountered where concrete value is expected: traced "
                f"array with shape {np.dtype(av.dtype).name}[{shape}]\nThe error occurred "
                "because ravel_multi_index was jit-compiled with mode='raise'. Use "
                "mode='wrap' or mode='clip' instead.",
                hint="mode='raise' reads the index values while staging")
        if not dtypes.issubdtype(core.get_aval(i).dtype, np.integer):
            raise ArgumentTypeError("only int indices permitted", hint="pass integer indices")
    if mode == "raise":
        for i, d in zip(idx, dims):
            v = np.asarray(i.known if isinstance(i, Tracer) else i)
            if np.any((v < 0) | (v >= d)):
                raise ArgumentValueError("invalid entry in coordinates array",
                                         hint="use mode='clip' or mode='wrap'")
    elif mode == "clip":
        idx = [uf.clip(i, 0, d - 1) for i, d in zip(idx, dims)]
    elif mode == "wrap":
        idx = [uf.remainder(i, d) for i, d in zip(idx, dims)]
    elif mode != "ignore":
        raise ArgumentValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', "
                                 "or 'ignore'.", hint="pass one of those modes")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[::-1][:-1])[::-1]
    else:
        raise ArgumentValueError(f"invalid order={order!r}. Expected 'C' or 'F'",
                                 hint="pass order='C' or order='F'")
    out = asarray(np.zeros((), dt))
    for i, s in zip(idx, strides):
        out = uf.add(out, uf.multiply(lax.convert_element_type(i, dt), int(s)))
    return out


def unravel_index(indices, shape):
    """Convert flat indices into a tuple of coordinate arrays.
    Args: indices: int array; shape: static shape.
    Returns: tuple of int Arrays.
    Vs NumPy: out-of-range indices are clamped rather than raising, as in JAX.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.unravel_index(5, (2, 3))
    (Array(1, dtype=int32, weak_type=True), Array(2, dtype=int32, weak_type=True))
    """
    shape = tuple(int(d) for d in shape)
    indices = asarray_operand(indices)
    total = int(np.prod(shape, dtype=np.int64))
    i = uf.clip(indices, -total, total - 1)
    i = where(uf.less(i, 0), uf.add(i, total), i)
    out = []
    for d in reversed(shape):
        out.append(uf.remainder(i, d))
        i = uf.floor_divide(i, d)
    return tuple(reversed(out))


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """Applies func1d to every 1-D slice (a static loop over the other axes).
    Args: func1d: callable; axis: int; arr: array; *args, **kwargs: passed on.
    Returns: Array of the stacked results.
    Vs NumPy: the loop is unrolled at trace time; results are stacked arrays."""
    arr = asarray_operand(arr)
    nd = core.get_aval(arr).ndim
    axis = canonicalize_axis(axis, nd, "apply_along_axis")
    a = moveaxis(arr, axis, -1)
    batch = _shape(a)[:-1]
    m = int(np.prod(batch, dtype=np.int64))
    flat = lax.reshape(a, (m, _shape(a)[-1]))
    outs = [asarray(func1d(lax.index_in_dim(flat, i, 0, False), *args, **kwargs))
            for i in range(m)]
    res = stack(outs)
    rshape = _shape(res)[1:]
    res = lax.reshape(res, batch + rshape)
    if len(rshape) == 0:
        return res
    return moveaxis(res, tuple(range(len(batch), len(batch) + len(rshape))),
                    tuple(range(axis, axis + len(rshape)))) if len(rshape) == 1 else res


def apply_over_axes(func, a, axes):
    """Apply `func(a, axis)` repeatedly, once for each axis.
    Args: func: callable; a: array; axes: sequence of ints.
    Returns: Array with the reduced axes kept as length 1.
    Vs NumPy: axes must be static."""
    a = asarray_operand(a)
    for ax in axes:
        b = func(a, ax)
        if core.get_aval(b).ndim == core.get_aval(a).ndim - 1:
            b = lax.expand_dims(b, (canonicalize_axis(ax, core.get_aval(a).ndim, "apply_over_axes"),))
        a = b
    return a
