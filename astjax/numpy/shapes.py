"""Shape manipulation: reshape, ravel, transpose, moveaxis, swapaxes, squeeze,
expand_dims, stack/concatenate family, flip, broadcast_to/broadcast_arrays, diagonal,
trace (`astype` is in `ufuncs`; tile, repeat and roll in `repeats`, split in `splitting`)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import core, lax
from ..api import typeof
from ..errors import (ArgumentValueError, ArgumentZeroDivisionError, AxisError,
                      NotImplementedInAstjaxError, ShapeError, ShapeValueError)
from ..primitives.structural import out_layout as _out_layout
from ..lax_extended import Physical as _Physical
from ..shape_poly import (canonical_dim, is_symbolic_dim, shape_entries as _shape_entries,
                          symbolic_quotient)
from .arraylike import is_arraylike as _is_arraylike
from .indexing import _getitem
from .operands import (asarray, asarray_operand, broadcast_shapes, broadcast_to_shape,
                       jax_array_protocol, promote_dtypes, result, _strong_result)
from .reductions import sum as _sum
from .ufuncs import _is_key_array, _no_out, _typed_keys, astype, where as _where
from .util import (axis_entries as _axis_entries, canonicalize_axes, canonicalize_axis,
                   library_jit as _library_jit,
                   out_sharding_arg, static_int)
from ..typing import Array


def _warn_not_arraylike(fun_name, a):
    """JAX's DeprecationWarning for a `shape` / `ndim` / `size` operand that is not
    array-like (a list, None, any object): NumPy's answer is still returned."""
    if not _is_arraylike(a):
        warnings.warn(f"{fun_name} requires ndarray or scalar arguments, got {type(a)} at "
                      "position 0. In a future JAX release this will be an error.",
                      DeprecationWarning, stacklevel=3)


def _unwrapped_shape(a):
    m = getattr(a, "__jax_array__", None)
    return shape(m()) if m is not None else np.shape(a)


def shape(a):
    """Return the shape of an array or array-like as a tuple of ints.
    Args: a: array, scalar, or any object with a `shape` attribute.
    Returns: tuple of ints (always static, even under jit).
    Vs NumPy: shapes are static metadata in astjax, never traced values. As JAX, any
        other operand (a list, None) warns (DeprecationWarning) and gets NumPy's answer."""
    if isinstance(a, core.Tracer):
        return core.get_aval(a).shape
    if hasattr(a, "shape"):   # (JAX reads `a.shape`)
        return tuple(a.shape)
    _warn_not_arraylike("shape", a)
    return _unwrapped_shape(a)


def ndim(a):
    """Return the number of dimensions of `a`.
    Args: a: array, scalar, or any object with an `ndim` attribute.
    Returns: int, the rank of `a`.
    Vs NumPy: the rank is static, so this is a Python int under jit."""
    if isinstance(a, core.Tracer) or hasattr(a, "shape"):
        return len(shape(a))
    if hasattr(a, "ndim"):
        return a.ndim
    _warn_not_arraylike("ndim", a)
    return len(_unwrapped_shape(a))


def size(a, axis=None):
    """Return the element count of `a`, or its extent along `axis`.
    Args: a: array; axis: optional int (or tuple of ints: the product of their extents).
    Returns: int number of elements.
    Vs NumPy: the result is a static Python int, available under jit."""
    _warn_not_arraylike("size", a)
    s = shape(a) if isinstance(a, core.Tracer) or hasattr(a, "shape") else _unwrapped_shape(a)
    if axis is None:
        return int(np.prod(s, dtype=np.int64))
    return math.prod(s[i] for i in canonicalize_axes(axis, len(s), "size"))


def reshape(a, shape, order="C", *, copy=None, out_sharding=None) -> Array:
    """Give `a` a new shape holding the same elements.
    Args: a: array; shape: int or tuple, one entry may be -1; order: 'C' or 'F'; copy:
        accepted (arrays are immutable: the result never aliases writable memory);
        out_sharding: the result's layout, as `lax.reshape`'s (Explicit meshes).
    Returns: Array with shape `shape`.
    Vs NumPy: `shape` must be static; the result is a new immutable array, never a view;
        NumPy's old `newshape=` is a TypeError (JAX 0.10.2 removed it). As JAX, a NumPy
        operand is reshaped by its own method: the result is a NumPy array (dtype kept).
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.reshape(jnp.arange(6), (2, -1))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    if _is_key_array(a) and order == "C":   # (the shape functions act on whole keys)
        return a.reshape(shape)
    if out_sharding is None and isinstance(a, (np.ndarray, np.generic)):
        try:
            return a.reshape(shape, order=order)
        except ValueError as e:   # NumPy's classes, as JAX raises them here
            raise ShapeValueError(f"jnp.reshape of a NumPy array: {e}") from None
        except TypeError as e:
            raise ShapeError(f"jnp.reshape of a NumPy array: {e}") from None
    return _reshape(a, shape, order, out_sharding=out_sharding)


def _reshape(a, shape, order="C", *, out_sharding=None) -> Array:
    """`reshape` for astjax's own functions: the result is always an Array."""
    if _is_key_array(a) and order == "C":
        return a.reshape(shape)
    a = asarray_operand(jax_array_protocol(a))
    av = core.get_aval(a)
    shape = [canonical_dim(d) for d in _shape_entries(shape)]   # (symbolic dimensions kept)
    if shape.count(-1) > 1:
        raise ShapeError("reshape: only one dimension can be -1")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if is_symbolic_dim(av.size) or is_symbolic_dim(known):
            shape[shape.index(-1)] = symbolic_quotient(av.shape, shape, av.size, known)
        else:
            if known == 0 or av.size % known:
                raise ShapeError(f"cannot reshape array of shape {av.shape} (size {av.size}) "
                                 f"into shape {tuple(shape)} because the product of "
                                 f"specified axis sizes ({known}) does not evenly divide "
                                 f"{av.size}")   # (JAX's words)
            shape[shape.index(-1)] = av.size // known
    if math.prod(shape) != av.size:  # JAX's jnp.reshape: a TypeError
        raise ShapeError(f"cannot reshape array of shape {av.shape} (size {av.size}) into "
                         f"shape {tuple(shape)} (size {math.prod(shape)})")   # (JAX's words)
    if order not in ("C", "F"):   # JAX's classes: 'A' is not implemented, others unknown
        hint = "pass order='C' (row-major, the default) or order='F' (column-major)"
        if order == "A":
            raise NotImplementedInAstjaxError("np.reshape order=A is not implemented (in JAX "
                                              "either)", hint=hint)
        raise ArgumentValueError(f"Unexpected value for 'order' argument: {order!r:.40}",
                                 hint=hint)
    if order == "F":
        if out_sharding is not None:    # laid out for the reversed shape, as JAX does
            out_sharding = _out_layout(out_sharding, "jnp.reshape")
            spec = out_sharding.spec._normalized(len(shape))[::-1]
            out_sharding = type(out_sharding)(out_sharding.mesh, type(out_sharding.spec)(*spec))
        # JAX's one reshape of the axes in reverse order (`dimensions`), then `.T`
        return transpose(lax.reshape(a, tuple(reversed(shape)), tuple(range(av.ndim))[::-1],
                                     out_sharding=out_sharding))
    return lax.reshape(a, tuple(shape), out_sharding=out_sharding)


def ravel(a, order="C", *, out_sharding=None):
    """Flatten `a` into a one-dimensional array.
    Args: a: array; order: 'C' (row-major) or 'F'; out_sharding: as `reshape`'s.
    Returns: 1-D Array of `a.size` elements.
    Vs NumPy: always returns a new array (there are no views in astjax).
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.ravel(jnp.ones((2, 2)))
    Array([1., 1., 1., 1.], dtype=float32)
    """
    return _reshape(a, (-1,), order, out_sharding=out_sharding)


def flatten(a, order="C"):
    """Collapse `a` into one dimension (the method form of `ravel`).
    Args: a: array; order: 'C' or 'F'.
    Returns: 1-D Array.
    Vs NumPy: same as `ravel`: a fresh immutable array, no view/copy distinction."""
    return ravel(a, order)


def transpose(a, axes=None) -> Array:
    """Permute the axes of `a`; reverse them when `axes` is None.
    Args: a: array; axes: optional static permutation of range(a.ndim).
    Returns: Array with permuted axes.
    Vs NumPy: returns a new array rather than a strided view.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.transpose(jnp.arange(6).reshape(2, 3))
    Array([[0, 3],
           [1, 4],
           [2, 5]], dtype=int32)
    """
    if _is_key_array(a):
        return a.transpose() if axes is None else a.transpose(*axes)
    a = asarray_operand(a)
    nd = core.get_aval(a).ndim
    axes = tuple(reversed(range(nd))) if axes is None else canonicalize_axes(
        tuple(axes), nd, "transpose", unique=False)  # lax.transpose rejects a non-permutation
    return result(lax.transpose(a, axes))


def permute_dims(a, axes):
    """Permute the axes of `a` (Array API name of `transpose`).
    Args: a: array; axes: static permutation of its axes (required).
    Returns: Array with reordered axes.
    Vs NumPy: a new array, not a view; `axes` must be static."""
    return transpose(a, axes)


def matrix_transpose(x):
    """Swap the last two axes of `x`.
    Args: x: array with ndim >= 2.
    Returns: Array of shape (..., N, M) for input (..., M, N).
    Vs NumPy: errors for ndim < 2, following the Array API; returns a copy, not a view."""
    return swapaxes(x, -1, -2)


def moveaxis(a, source, destination):
    """Move axes of `a` from `source` to `destination`.
    Args: a: array; source, destination: int or sequences of ints.
    Returns: Array with the axes moved; the rest keep their order.
    Vs NumPy: axis positions must be static; the result is a new array.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.moveaxis(jnp.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = a if _is_key_array(a) else asarray_operand(a)   # (extended dtypes: lax's on data)
    nd = core.get_aval(a).ndim
    src = canonicalize_axes(source, nd, "moveaxis", unique=False)   # repeated: no perm,
    dst = canonicalize_axes(destination, nd, "moveaxis", unique=False)  # transpose raises
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


def swapaxes(a, axis1, axis2):
    """Exchange two axes of `a`.
    Args: a: array; axis1, axis2: int axes.
    Returns: Array with the two axes swapped.
    Vs NumPy: returns a new array rather than a view.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.swapaxes(jnp.zeros((2, 3)), 0, 1).shape
    (3, 2)
    """
    a = a if _is_key_array(a) else asarray_operand(a)   # (extended dtypes: lax's on data)
    nd = core.get_aval(a).ndim
    if isinstance(axis1, (bool, np.bool_)) or isinstance(axis2, (bool, np.bool_)):
        raise ArgumentValueError(f"swapaxes: the axes must be integers, got {axis1!r}, "
                                 f"{axis2!r}")   # (JAX 0.10.2: a ValueError)
    perm = list(range(nd))
    i, j = canonicalize_axis(axis1, nd, "swapaxes"), canonicalize_axis(axis2, nd, "swapaxes")
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def squeeze(a, axis=None) -> Array:
    """Drop length-1 axes of `a`.
    Args: a: array; axis: optional int or tuple of ints to drop.
    Returns: Array without those axes.
    Vs NumPy: `axis` must be static and each listed axis must have length 1.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.squeeze(jnp.zeros((1, 3, 1))).shape
    (3,)
    """
    if _is_key_array(a):
        return a.squeeze(axis)
    a = asarray_operand(a)
    av = core.get_aval(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(av.shape) if d == 1)
    else:
        axes = canonicalize_axes(axis, av.ndim, "squeeze")
        for ax in axes:
            if av.shape[ax] != 1:  # JAX: ValueError
                raise AxisError(f"cannot select an axis to squeeze out which has size not "
                                f"equal to one: axis {ax} of shape {av.shape}",
                                hint="squeeze only axes of size 1 (or pass axis=None)")
    return result(lax.squeeze(a, axes))


def expand_dims(a, axis) -> Array:
    """Insert length-1 axes into `a` at positions `axis`.
    Args: a: array; axis: int or tuple of ints in the output's numbering.
    Returns: Array with the new axes.
    Vs NumPy: positions are static; the result is a new array.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.expand_dims(jnp.arange(3), 0)
    Array([[0, 1, 2]], dtype=int32)
    """
    key = _is_key_array(a)
    a = a if key else asarray_operand(a)
    shape = list(a.shape if key else core.get_aval(a).shape)
    n = len(shape) + len(_axis_entries(axis))
    axes = sorted(canonicalize_axes(axis, n, "expand_dims"))
    if not key:
        return lax.expand_dims(a, axes)
    for ax in axes:
        shape.insert(ax, 1)
    return a.reshape(tuple(shape))


def atleast_1d(*arys):
    """Promote each input to at least one dimension.
    Args: *arys: arrays or scalars.
    Returns: one Array, or a list of Arrays for several inputs.
    Vs NumPy: Python scalars become weakly typed arrays."""
    out = [_reshape(a, (1,)) if ndim(a) == 0 else asarray(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """Promote each input to at least two dimensions.
    Args: *arys: arrays or scalars.
    Returns: one Array, or a list of them; 1-D inputs become shape (1, N).
    Vs NumPy: Python scalars become weakly typed arrays.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.atleast_2d(jnp.arange(2)).shape
    (1, 2)
    """
    out = []
    for a in arys:
        a = asarray(a)
        out.append(_reshape(a, (1,) * (2 - ndim(a)) + shape(a)) if ndim(a) < 2 else a)
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """Promote each input to at least three dimensions.
    Args: *arys: arrays or scalars.
    Returns: one Array or a list; (N,) -> (1, N, 1), (M, N) -> (M, N, 1).
    Vs NumPy: Python scalars become weakly typed arrays."""
    out = []
    for a in arys:
        a = asarray(a)
        n = ndim(a)
        s = shape(a)
        out.append(_reshape(a, (1, 1, 1)) if n == 0 else _reshape(a, (1,) + s + (1,)) if n == 1
                   else _reshape(a, s + (1,)) if n == 2 else a)
    return out[0] if len(out) == 1 else out


def _count(v, what):
    """A static count argument (sections of `split`, `tile`'s reps, `repeat`'s
    repeats): a Python or NumPy int, or a 0-d array whose value is known now; a staged
    one is a ConcretizationError (TypeError), as JAX's."""
    if isinstance(v, core.Tracer) or (np.ndim(v) == 0 and not isinstance(v, (int, np.integer))
                                      and hasattr(v, "dtype")):
        return static_int(v, what)
    return v


def concatenate(arrays, axis=0, dtype=None) -> Array:
    """Join a sequence of arrays along an existing axis.
    Args: arrays: sequence of arrays; axis: int, or None to flatten first; dtype: optional.
    Returns: Array joining the inputs.
    Vs NumPy: dtypes promote with JAX rules (weak types); there is no `out=` argument.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.concatenate([jnp.arange(2), jnp.arange(3)])
    Array([0, 1, 0, 1, 2], dtype=int32)
    """
    if (isinstance(arrays, np.ndarray) or hasattr(arrays, "aval")) and \
            not _is_key_array(arrays):
        return _concatenate_array(arrays, axis, dtype)
    arrays = [asarray(a) for a in arrays]
    if arrays and _typed_keys(arrays):
        return _keys_joined(concatenate, arrays, axis, 0)
    if not arrays:
        raise ShapeValueError("need at least one array to concatenate",
                              hint="pass a non-empty list or tuple of arrays")
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    arrays = promote_dtypes(*arrays)
    if dtype is not None:
        arrays = [astype(a, dtype) for a in arrays]
    nd = core.get_aval(arrays[0]).ndim
    if nd == 0:
        raise ShapeValueError("zero-dimensional arrays cannot be concatenated",
                              hint="use jnp.stack to join 0-d arrays into a 1-d one")
    return lax.concatenate(arrays, canonicalize_axis(axis, nd, "concatenate"))


def _concatenate_array(arr, axis, dtype):
    """`concatenate` of one array's leading slices: JAX's one reshape (`dimensions`
    bringing the leading axis next to `axis`)."""
    arr = asarray(arr, dtype=dtype)
    shape = core.get_aval(arr).shape
    if not shape or shape[0] == 0:
        raise ShapeValueError("Need at least one array to concatenate.",
                              hint="pass a non-empty list or tuple of arrays")
    if axis is None:
        return lax.reshape(arr, (math.prod(shape),))
    if len(shape) == 1:
        raise ShapeValueError("Zero-dimensional arrays cannot be concatenated.",
                              hint="use jnp.stack to join 0-d arrays into a 1-d one")
    axis = canonicalize_axis(axis, len(shape) - 1, "concatenate")
    new = shape[1:axis + 1] + (shape[0] * shape[axis + 1],) + shape[axis + 2:]
    return lax.reshape(arr, new, (*range(1, axis + 1), 0, *range(axis + 1, len(shape))))


concat = concatenate


def _keys_joined(join, keys, axis, new_axes):
    """`join` (stack or concatenate) of arrays of one extended dtype (typed keys, a user
    dtype): their data joined along the logical axis (`axis` counts logical axes; the
    element axes of the data stay last)."""
    if any(getattr(k, "dtype", None) != keys[0].dtype for k in keys):  # another dtype
        raise ArgumentValueError(f"dtype={keys[0].dtype!r} is not a valid dtype for JAX "
                                 "type promotion.", hint="join arrays of one extended dtype")
    if axis is None:
        keys, axis = [k.ravel() for k in keys], 0
    axis = canonicalize_axis(axis, keys[0].ndim + new_axes, join.__name__)
    first = _Physical(keys[0])
    return first.rebuild(join([_Physical(k).data for k in keys], axis))


def stack(arrays, axis=0, out=None, dtype=None) -> Array:
    """Join same-shaped arrays along a new axis.
    Args: arrays: sequence of arrays of one shape; axis: position of the new axis; out:
        only None (JAX's NotImplementedError otherwise); dtype: optional.
    Returns: Array with one more dimension than the inputs.
    Vs NumPy: JAX dtype promotion; no `out=` argument.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.stack([jnp.zeros(2), jnp.ones(2)])
    Array([[0., 0.],
           [1., 1.]], dtype=float32)
    """
    _no_out(out, "jnp.stack")
    stacked = getattr(arrays, "stacked", None)  # a list built by append in a scanned loop
    if stacked is not None:
        out = stacked if axis == 0 else moveaxis(stacked, 0, axis)
        return out if dtype is None else astype(out, dtype)
    arrays = [asarray(a) for a in arrays]
    if arrays and _typed_keys(arrays):
        return _keys_joined(stack, arrays, axis, 1)
    if not arrays:
        raise ShapeValueError("need at least one array to stack",
                              hint="pass a non-empty list or tuple of arrays")
    # (the axis first, as JAX: `axis=None` is its TypeError whatever the shapes)
    axis = canonicalize_axis(axis, core.get_aval(arrays[0]).ndim + 1, "stack")
    shapes = {core.get_aval(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ShapeValueError(f"all input arrays must have the same shape, got "
                              f"{', '.join(str(core.get_aval(a).shape) for a in arrays)}")
    # (as JAX: the operands promoted to one dtype, or cast to `dtype`, then one `stack`)
    arrays = promote_dtypes(*arrays) if dtype is None else [astype(a, dtype) for a in arrays]
    return lax.stack(arrays, axis)


def vstack(tup, dtype=None):
    """Stack arrays row-wise (along axis 0 after `atleast_2d`).
    Args: tup: sequence of arrays; dtype: optional result dtype.
    Returns: Array of at least two dimensions.
    Vs NumPy: JAX dtype promotion; no `out=` argument.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.vstack([jnp.arange(2), jnp.arange(2)])
    Array([[0, 1],
           [0, 1]], dtype=int32)
    """
    return concatenate([atleast_2d(a) for a in tup], 0, dtype)



def hstack(tup, dtype=None):
    """Stack arrays column-wise (axis 1, or axis 0 for 1-D inputs).
    Args: tup: sequence of arrays; dtype: optional result dtype.
    Returns: Array.
    Vs NumPy: JAX dtype promotion; no `out=` argument.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.hstack([jnp.arange(2), jnp.arange(3)])
    Array([0, 1, 0, 1, 2], dtype=int32)
    """
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, 0 if ndim(arrs[0]) == 1 else 1, dtype)


def dstack(tup, dtype=None):
    """Stack arrays along the third axis (after `atleast_3d`).
    Args: tup: sequence of arrays; dtype: optional result dtype.
    Returns: Array of at least three dimensions.
    Vs NumPy: JAX dtype promotion; no `out=` argument."""
    return concatenate([atleast_3d(a) for a in tup], 2, dtype)


def column_stack(tup):
    """Stack 1-D arrays as columns of a 2-D array.
    Args: tup: sequence of 1-D or 2-D arrays.
    Returns: 2-D Array.
    Vs NumPy: JAX dtype promotion of the inputs.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.column_stack([jnp.arange(2), jnp.arange(2)]).shape
    (2, 2)
    """
    arrs = [_reshape(a, (-1, 1)) if ndim(a) < 2 else asarray(a) for a in tup]
    return concatenate(arrs, 1)


def broadcast_to(array, shape, *, out_sharding=None):
    """Broadcast `array` to the static shape `shape`.
    Args: array: array or scalar; shape: target shape; out_sharding: the result's
        layout on an Explicit mesh (`lax.broadcast_in_dim`'s).
    Returns: Array of shape `shape`.
    Vs NumPy: returns a materialized immutable array, not a read-only view.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.broadcast_to(jnp.arange(3), (2, 3))
    Array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    shape = tuple(canonical_dim(d) for d in _shape_entries(shape))
    if _is_key_array(array):
        return array.broadcast_to(shape)
    if out_sharding is not None:
        x = asarray(array)
        nd = core.get_aval(x).ndim
        broadcast_shapes(core.get_aval(x).shape, shape)   # (NumPy's error first)
        s = out_sharding_arg(out_sharding, "jnp.broadcast_to")
        _check_broadcast_layout(x, shape, s)
        return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - nd, len(shape))),
                                    out_sharding=s)
    return broadcast_to_shape(asarray(array), shape)


def _check_broadcast_layout(x, shape, s):
    """JAX's check of `broadcast_to(..., out_sharding=s)`: each axis of `x` unsharded
    or sharded as the result's axis it becomes (JAX's ValueError otherwise)."""
    t = typeof(x)
    spec = s.spec._normalized(len(shape))
    nd = core.get_aval(x).ndim
    have = t.sharding.spec._normalized(nd) if nd else ()
    if all(a is None or a == b for a, b in zip(have, spec[len(shape) - nd:])):
        return

    def dim(d, e):
        return str(d) if e is None else f"{d}@{e}" if isinstance(e, str) else \
            f"{d}@({','.join(e)})"
    want = f"{np.dtype(t.dtype).name}[{','.join(dim(d, e) for d, e in zip(shape, spec))}]"
    raise ShapeValueError(f"Incompatible types for broadcasting: input type={t} and "
                          f"requested type={want}",
                          hint="lay the input out as the result's axes, or leave it unsharded")


def broadcast_arrays(*args):
    """Broadcast all arguments against each other.
    Args: *args: arrays or scalars.
    Returns: list of Arrays sharing the broadcast shape.
    Vs NumPy: results are new immutable arrays, not views.
    Example:
    >>> import astjax.numpy as jnp
    >>> [a.shape for a in jnp.broadcast_arrays(jnp.zeros((2, 1)), jnp.zeros(3))]
    [(2, 3), (2, 3)]
    """
    args = [asarray(a) for a in args]
    s = broadcast_shapes(*(shape(a) for a in args))
    return [broadcast_to_shape(a, s) for a in args]


def flip(m, axis=None):
    """Reverse the element order along `axis` (all axes when None).
    Args: m: array; axis: optional int or tuple of ints.
    Returns: Array with reversed order.
    Vs NumPy: returns a new array rather than a negative-stride view.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.flip(jnp.arange(3))
    Array([2, 1, 0], dtype=int32)
    """
    m = asarray(m)
    return _flip(m, canonicalize_axes(axis, ndim(m), "flip", unique=False))  # (rev: TypeError)


@_library_jit(static_argnames=("axis",), keep_call=True, eager=False)
def _flip(m, axis):
    """`flip` of an array along canonical axes (JAX's jitted `_flip`: staged, an inner
    `jit` equation)."""
    return lax.rev(m, axis)


def fliplr(m):
    """Reverse the order of columns (axis 1).
    Args: m: array with ndim >= 2.
    Returns: Array.
    Vs NumPy: returns a new array, not a view."""
    return flip(m, 1)


def flipud(m):
    """Reverse the order of rows (axis 0).
    Args: m: array with ndim >= 1.
    Returns: Array.
    Vs NumPy: returns a new array, not a view."""
    return flip(m, 0)


@_library_jit(static_argnames=("k", "axes"))
def rot90(m, k=1, axes=(0, 1)):
    """Rotate `m` by 90 degrees `k` times in the plane `axes`.
    Args: m: array; k: int number of turns; axes: two distinct axes.
    Returns: rotated Array.
    Vs NumPy: `k` and `axes` must be static.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.rot90(jnp.arange(4).reshape(2, 2))
    Array([[1, 3],
           [0, 2]], dtype=int32)
    """
    m = asarray(m)
    k %= 4
    a0, a1 = (canonicalize_axis(ax, ndim(m), "rot90") for ax in axes)
    if a0 == a1:
        raise AxisError(f"rot90: the axes must be different, got {tuple(axes)}")
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(ndim(m)))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(flip(m, a1), perm) if k == 1 else flip(transpose(m, perm), a1)


@_library_jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset=0, axis1=0, axis2=1):
    """Extract a diagonal of `a` over the axes `axis1`, `axis2`.
    Args: a: array; offset: int diagonal offset; axis1, axis2: int axes.
    Returns: Array with the diagonal as its last axis.
    Vs NumPy: returns a new array, never a read-only view.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.diagonal(jnp.arange(4).reshape(2, 2))
    Array([0, 3], dtype=int32)
    """
    a = asarray(a)
    # JAX takes a square 2-D main diagonal through a strong `eye` product: not weak
    square = shape(a) == shape(a)[::-1] and len(shape(a)) == 2 and offset == 0
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    s = shape(a)
    n, m = s[-2], s[-1]
    k = max(0, min(n - max(0, -offset), m - max(0, offset)))
    rows = np.arange(k) + max(0, -offset)
    cols = np.arange(k) + max(0, offset)
    d = _getitem(a, (Ellipsis, asarray(rows.astype(np.int32)), asarray(cols.astype(np.int32))))
    return _strong_result(d) if square and core.get_aval(a).dtype != np.bool_ else d


@_library_jit(static_argnames=("offset", "axis1", "axis2", "dtype"))
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum the elements on a diagonal of `a`.
    Args: a: array; offset: int; axis1, axis2: int axes; dtype: optional accumulator dtype;
        out: only None (JAX's NotImplementedError otherwise).
    Returns: Array of the diagonal sums.
    Vs NumPy: no `out=`; the dtype follows `jnp.sum` (int32/float32 unless x64).
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.trace(jnp.eye(3))
    Array(3., dtype=float32)
    """
    _no_out(out, "jnp.trace")
    a = asarray(a)
    nd = len(shape(a))
    if canonicalize_axis(axis1, nd) == canonicalize_axis(axis2, nd):
        raise ArgumentValueError(f"axis1 and axis2 can not be same. axis1={axis1} and "
                                 f"axis2={axis2}")
    # JAX's reduction: the diagonal masked in (an iota comparison) and the whole matrix
    # summed, whose association is not the diagonal's own sum (other float bits)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = shape(a)[-2:]
    rows = lax.add(lax.broadcasted_iota(np.int32, (n, m), 0), np.int32(offset))
    on_diagonal = lax.eq(rows, lax.broadcasted_iota(np.int32, (n, m), 1))
    return _sum(_where(on_diagonal, a, lax.full_like(a, 0)), axis=(-2, -1), dtype=dtype)
