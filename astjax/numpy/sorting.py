"""Sorting, searching and cumulative `jnp` functions: `argmax`, `argmin`, `cumsum`,
`cumprod`, `cumulative_sum`, `cumulative_prod`, `sort`, `argsort`, `nonzero`,
`flatnonzero`, `argwhere`, `lexsort`, as `jax.numpy` (`searchsorted`, `nanargmax`
and friends live in `searching` / `statistics`).

Index results are int32 (int64 under x64), as JAX's. `nonzero`/`argwhere` need a
static `size=` when the values are only known when the function runs (the
result's shape depends on them); with `size`, missing entries take `fill_value`
(default 0) and extra nonzeros are dropped, as in JAX.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..errors import (ArgumentError, ArgumentTypeError, ArgumentValueError,
                      ConcretizationError, NotImplementedInAstjaxError, ReductionError)
from ..primitives.gather import GatherScatterMode
from ..primitives.scatter import ScatterDimensionNumbers
from .operands import asarray, asarray_operand, promote_dtypes
from .util import canonicalize_axis, library_jit as _library_jit

__all__ = ["argmax", "argmin", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod",
           "sort", "argsort", "nonzero", "flatnonzero", "argwhere", "lexsort"]


def _index_dtype():
    return dtypes.canonicalize(dtypes.int64)


def _operand(a, name):
    a = asarray_operand(a, name)
    if dtypes.is_weak_scalar(a):
        [a] = promote_dtypes(a)
    return asarray(a)


def _axis(axis, ndim, name):
    return canonicalize_axis(axis, max(ndim, 1), name)  # a 0-d operand has one axis here


def _ravel(a):
    return lax.reshape(a, (core.get_aval(a).size,))


def _arg_reduction(name, lax_fn):
    def f(a, axis=None, out=None, keepdims=None):
        a = _operand(a, name)
        av = core.get_aval(a)
        if axis is None:
            a, ax = _ravel(a), 0
        else:
            ax = _axis(axis, av.ndim, name)
        if core.get_aval(a).shape[ax] == 0:
            raise ReductionError(f"attempt to get {name} of an empty sequence")
        r = lax_fn(a, ax, _index_dtype())
        if keepdims:
            shape = tuple(1 if axis is None or i == ax else d for i, d in enumerate(av.shape))
            r = lax.reshape(r, shape)
        return r
    f.__name__ = name
    return f


argmax = _arg_reduction("argmax", lax.argmax)
argmax.__doc__ = """Index of the first maximum along an axis.

Args:
  a: non-empty input array. axis: axis to search (None: flattened).
  keepdims: keep the reduced axis with size one.
Returns:
  Integer index array.
Differs from NumPy: no `out=`; NaN counts as the maximum, as in NumPy.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.argmax(jnp.array([1, 5, 2]))
  Array(1, dtype=int32)
"""
argmin = _arg_reduction("argmin", lax.argmin)
argmin.__doc__ = """Index of the first minimum along an axis.

Args:
  a: non-empty input array. axis: axis to search (None: flattened).
  keepdims: keep the reduced axis with size one.
Returns:
  Integer index array.
Differs from NumPy: no `out=`; NaN counts as the minimum, as in NumPy.
"""


def _cumulative(name, lax_fn):
    def f(a, axis=None, dtype=None, out=None):
        a = _operand(a, name)
        if axis is None:
            a, axis = _ravel(a), 0
        av = core.get_aval(a)
        axis = _axis(axis, av.ndim, name)
        if dtype is not None:
            dt = dtypes.canonicalize(dtypes.dtype(dtype), warn=True)
        elif av.dtype == dtypes.bool_:
            dt = dtypes.canonicalize(dtypes.int64)
        else:
            dt = av.dtype
        if dt != av.dtype or av.weak_type:  # JAX's cumulative results are strong
            a = lax.convert_element_type(a, dt)
        return lax_fn(a, axis)
    f.__name__ = name
    # (as JAX's: one executable; staged, an inner `jit` equation named `name`)
    return _library_jit(f, static_argnames=("axis", "dtype"), keep_call=True)


cumsum = _cumulative("cumsum", lax.cumsum)
cumsum.__doc__ = """Running sum along an axis.

Args:
  a: input array. axis: axis to accumulate over (None: the flattened array).
  dtype: accumulator / result dtype.
Returns:
  Array of partial sums, shaped like `a` (1-D when `axis` is None).
Differs from NumPy: no `out=`; results follow JAX's dtype rules.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.cumsum(jnp.array([1, 2, 3]))
  Array([1, 3, 6], dtype=int32)
"""
cumprod = _cumulative("cumprod", lax.cumprod)
cumprod.__doc__ = """Running product along an axis.

Args:
  a: input array. axis: axis to accumulate over (None: the flattened array).
  dtype: accumulator / result dtype.
Returns:
  Array of partial products, shaped like `a` (1-D when `axis` is None).
Differs from NumPy: no `out=`; results follow JAX's dtype rules.
"""


def _cumulative_inclusive(fn, ident):
    def f(x, /, *, axis=None, dtype=None, include_initial=False):
        x = _operand(x, fn.__name__)
        if axis is None:
            if core.get_aval(x).ndim > 1:
                raise ArgumentValueError("axis must be given for arrays of more than one dimension")
            axis = 0
        if dtype is None and fn is cumsum:  # the Array API: narrow integers sum in the default width
            dt = core.get_aval(x).dtype
            if dt.kind in "iu":
                wide = dtypes.canonicalize(np.dtype(np.int64 if dt.kind == "i" else np.uint64))
                dtype = wide if wide.itemsize > dt.itemsize else None
        r = fn(x, axis, dtype)
        if include_initial:
            ax = _axis(axis, core.get_aval(r).ndim, fn.__name__)
            cfg = [(0, 0, 0)] * core.get_aval(r).ndim
            cfg[ax] = (1, 0, 0)
            r = lax.pad(r, np.asarray(ident, core.get_aval(r).dtype)[()], cfg)
        return r
    return f


cumulative_sum = _cumulative_inclusive(cumsum, 0)
cumulative_sum.__doc__ = """Running sum along an axis (Array API form of `cumsum`).

Args:
  x: input array. axis: required for arrays of rank > 1. dtype: result dtype.
  include_initial: prepend the initial value 0 along `axis`.
Returns:
  Array of partial sums (one longer along `axis` with `include_initial`).
Differs from NumPy: results follow JAX's dtype rules.

Example:
  >>> import astjax.numpy as jnp
  >>> jnp.cumulative_sum(jnp.array([1, 2, 3]), include_initial=True)
  Array([0, 1, 3, 6], dtype=int32)
"""
cumulative_prod = _cumulative_inclusive(cumprod, 1)
cumulative_prod.__doc__ = """Running product along an axis (Array API form of `cumprod`).

Args:
  x: input array. axis: required for arrays of rank > 1. dtype: result dtype.
  include_initial: prepend the initial value 1 along `axis`.
Returns:
  Array of partial products (one longer along `axis` with `include_initial`).
Differs from NumPy: results follow JAX's dtype rules.
"""


@_library_jit(static_argnames=("axis", "kind", "order", "stable", "descending"), keep_call=True)
def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Sorted copy of an array along an axis.

    Args:
      a: input array. axis: axis to sort along (None: the flattened array).
      kind: accepted for compatibility. stable: accepted; the sort is always
        stable. descending: sort from largest to smallest.
    Returns:
      The sorted array.
    Differs from NumPy: always stable; `order=` (structured arrays) is unsupported;
    NaNs sort to the end.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.sort(jnp.array([3, 1, 2]))
      Array([1, 2, 3], dtype=int32)
      >>> jnp.sort(jnp.array([3, 1, 2]), descending=True)
      Array([3, 2, 1], dtype=int32)
    """
    if order is not None:
        raise ArgumentValueError("jnp.sort does not support the `order` argument")
    a = _operand(a, "sort")
    if axis is None:
        a, axis = _ravel(a), 0
    av = core.get_aval(a)
    if av.ndim == 0:
        return a
    ax = _axis(axis, av.ndim, "sort")
    r = lax.sort(a, ax, is_stable=bool(stable))
    return lax.rev(r, (ax,)) if descending else r


@_library_jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"),
              keep_call=True)
def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """Indices that would sort an array along an axis.

    Args:
      a: input array. axis: axis to sort along (None: the flattened array).
      kind: accepted for compatibility. stable: whether ties keep their order (False:
        XLA's unstable sort, as JAX's). descending: order from largest to smallest.
      dtype: the integer dtype of the indices (default: the default integer dtype).
    Returns:
      Integer index array shaped like `a` (1-D when `axis` is None).
    Differs from NumPy: `order=` is unsupported.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.argsort(jnp.array([3, 1, 2]))
      Array([1, 2, 0], dtype=int32)
    """
    if order is not None:
        raise ArgumentValueError("jnp.argsort does not support the `order` argument")
    a = _operand(a, "argsort")
    if axis is None:
        a, axis = _ravel(a), 0
    av = core.get_aval(a)
    idx = _index_dtype() if dtype is None else dtypes.canonicalize(dtypes.dtype(dtype), warn=True)
    if av.ndim == 0:
        return lax.full((), 0, idx)
    ax = _axis(axis, av.ndim, "argsort")
    iota = lax.broadcasted_iota(idx, av.shape, ax)
    if descending and stable:   # (reversed in and out: ties keep their order)
        a, iota = lax.rev(a, (ax,)), lax.rev(iota, (ax,))
    # (unstable and descending: XLA's order of ties, reversed, as JAX's)
    _, perm = lax.sort((a, iota), ax, is_stable=bool(stable), num_keys=1)
    return lax.rev(perm, (ax,)) if descending else perm


@_library_jit(static_argnames=("axis",))
def lexsort(keys, axis=-1):
    """Indirect stable sort on several keys; the last key is the primary one.

    Args:
      keys: sequence of equally shaped arrays (or a 2-D array of keys).
      axis: axis to sort along.
    Returns:
      Integer indices that order the data by the keys.
    Differs from NumPy: at least one key is required.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.lexsort((jnp.array([1, 0, 1]), jnp.array([0, 0, 1])))
      Array([1, 0, 2], dtype=int32)
    """
    keys = [_operand(k, "lexsort") for k in keys]
    if not keys:
        raise ArgumentTypeError("lexsort needs at least one key")
    shape = core.get_aval(keys[0]).shape
    ax = _axis(axis, len(shape), "lexsort")
    iota = lax.broadcasted_iota(_index_dtype(), shape, ax)
    outs = lax.sort(tuple(keys[::-1]) + (iota,), ax, is_stable=True, num_keys=len(keys))
    return outs[-1]


def _known(a):
    if isinstance(a, Tracer):
        return a.known
    if isinstance(a, (np.ndarray, np.generic, bool, int, float)):
        return np.asarray(a)
    if hasattr(a, "_buf"):
        return np.asarray(a)
    return None


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero elements, one index array per dimension.

    Args:
      a: input array of rank >= 1. size: static number of results to return.
      fill_value: padding value (or one per dimension) for unused slots
        (default 0).
    Returns:
      Tuple of integer arrays, one per dimension of `a`.
    Differs from NumPy: the result length depends on the data; under jit pass
    `size=` (extra hits are dropped, missing ones take `fill_value`).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.nonzero(jnp.array([0, 5, 0, 7]))
      (Array([1, 3], dtype=int32),)
      >>> jnp.nonzero(jnp.array([0, 5, 0, 7]), size=3, fill_value=-1)
      (Array([ 1,  3, -1], dtype=int32),)
    """
    if dtypes.is_user_extended(getattr(a, "dtype", None)):   # (JAX compares it with 0)
        raise NotImplementedInAstjaxError(
            f"nonzero of an array of extended dtype {a.dtype.name}: it has no values to "
            "compare with 0 (JAX's NotImplementedError)",
            hint="convert it to its representation dtype first (lax.convert_element_type)")
    a = asarray(asarray_operand(a, "nonzero"))
    av = core.get_aval(a)
    if av.ndim == 0:
        raise ArgumentValueError("nonzero of a 0-d array is not defined; use atleast_1d first")
    idt = _index_dtype()
    if size is None:
        known = _known(a)
        if known is None:
            raise ConcretizationError(
                "jnp.nonzero's result shape depends on the values, which are only known when "
                "the function runs", hint="pass a static size=, e.g. jnp.nonzero(x, size=n, "
                "fill_value=-1)")
        return tuple(asarray(i.astype(idt)) for i in np.nonzero(np.asarray(known)))
    size = int(size)
    mask = a if av.dtype == dtypes.bool_ else lax.ne(a, lax.full_like(a, 0))
    m = lax.convert_element_type(_ravel(mask), idt)
    n = av.size
    pos = lax.sub(lax.cumsum(m, 0), lax.full_like(m, np.asarray(1, idt)[()])) if n else m
    target = lax.select(lax.convert_element_type(m, dtypes.bool_), pos,
                        lax.full_like(pos, np.asarray(size, idt)[()]))
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
    flat = lax.scatter(lax.full((size,), 0, idt), lax.reshape(target, (n, 1)),
                       lax.iota(idt, n), dn, unique_indices=True,
                       mode=GatherScatterMode.FILL_OR_DROP)
    count = lax.reduce_sum(m, (0,))
    valid = lax.lt(lax.iota(idt, size), lax.broadcast(count, (size,)))
    fills = fill_value if isinstance(fill_value, (tuple, list)) else [fill_value] * av.ndim
    if len(fills) != av.ndim:
        raise ArgumentValueError(f"fill_value has {len(fills)} entries for an array of rank "
                            f"{av.ndim}")
    out, stride = [], 1
    for d in reversed(range(av.ndim)):
        c = flat
        if stride != 1:
            c = lax.div(c, lax.full_like(c, np.asarray(stride, idt)[()]))
        if d:
            c = lax.rem(c, lax.full_like(c, np.asarray(av.shape[d], idt)[()]))
        f = 0 if fills[d] is None else fills[d]
        out.append(lax.select(valid, c, lax.full_like(c, np.asarray(f, idt)[()])))
        stride *= av.shape[d]
    return tuple(out[::-1])


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero elements of the flattened array.

    Args:
      a: input array. size / fill_value: as for `nonzero`.
    Returns:
      1-D integer array of flat indices.
    Differs from NumPy: under jit a static `size=` is needed (see `nonzero`).
    """
    return nonzero(_ravel(asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """Coordinates of the non-zero elements, one row per element.

    Args:
      a: input array. size / fill_value: as for `nonzero`.
    Returns:
      Integer array of shape `(count, a.ndim)`.
    Differs from NumPy: under jit a static `size=` is needed (see `nonzero`).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.argwhere(jnp.array([[0, 1], [2, 0]]))
      Array([[0, 1],
             [1, 0]], dtype=int32)
    """
    a = asarray(asarray_operand(a, "argwhere"))
    av = core.get_aval(a)
    b = lax.reshape(a, (1,)) if av.ndim == 0 else a
    cols = nonzero(b, size=size, fill_value=fill_value)
    n = core.get_aval(cols[0]).shape[0]
    r = lax.concatenate([lax.reshape(c, (n, 1)) for c in cols], 1)
    if av.ndim == 0:
        return lax.slice(r, (0, 0), (n, 0))
    return r
