"""Set operations on slices and with indices: `unique` along an axis (distinct rows,
columns, ... with `return_index` / `return_inverse` / `return_counts`, `size` and
`fill_value`) and `intersect1d(return_indices=True)`; `searching.py` routes those calls
here.

Slices are ordered lexicographically (`lexsort` on their flattened elements, the first
element the primary key, NaN last), adjacent distinct slices are marked, and the marks
are gathered with `nonzero(size=)`, so everything stages with a static result length.
Without `size=` the array must be concrete: the result is computed at its full length
and cut to the number of distinct slices, as JAX computes it."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, lax
from ..core import Tracer
from ..errors import ArgumentValueError, ConcretizationError
from . import ufuncs as uf
from .indexing import take
from .operands import asarray, asarray_operand, promote_dtypes
from .reductions import any as _any, max as _max, min as _min, sum as _sum
from .shapes import concatenate, moveaxis, ravel, _reshape as reshape
from .sorting import argsort, cumsum, lexsort, nonzero
from .ufuncs import where
from .util import canonicalize_axis, library_jit

__all__: list = []


def _int_dtype():
    return dtypes.canonicalize(dtypes.dtype(int))


def _known(x, what):
    if isinstance(x, Tracer):
        if x.known is None:
            raise ConcretizationError(
                f"{what} depends on the values of the array, which are only known when the "
                f"function runs", hint="pass a static `size=` to fix the output length")
        return x.known
    return x


def _sorted_slices(a, equal_nan):
    """(slices sorted lexicographically, first-of-its-kind mask, sort permutation) of
    `a`'s slices along axis 0."""
    n, rest = a.shape[0], a.shape[1:]
    m = math.prod(rest)
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        # a NaN in either part makes the whole value NaN, so all NaNs sort together
        a = where(uf.isnan(a), np.asarray(np.nan, a.dtype)[()], a)
    if m == 0:   # one empty slice stands for them all
        return (lax.full((1,) + rest, 0, a.dtype), lax.full((1,), False, dtypes.bool_),
                lax.full((1,), 0, _int_dtype()))
    flat = reshape(a, (n, m))
    perm = lexsort([lax.index_in_dim(flat, j, 1, False) for j in range(m - 1, -1, -1)]) \
        if n else lax.full((0,), 0, _int_dtype())
    aux = take(a, perm, axis=0)
    if n == 0:
        return aux, lax.full((0,), False, dtypes.bool_), perm
    hi, lo = lax.slice_in_dim(aux, 1, n, axis=0), lax.slice_in_dim(aux, 0, n - 1, axis=0)
    differ = lax.ne(hi, lo)
    if equal_nan and dtypes.is_inexact(a.dtype):
        differ = lax.bitwise_and(differ, lax.bitwise_not(lax.bitwise_and(uf.isnan(hi),
                                                                        uf.isnan(lo))))
    if len(rest):
        differ = _any(differ, axis=tuple(range(1, a.ndim)))
    mask = lax.concatenate([lax.full((1,), True, dtypes.bool_), differ], 0)
    return aux, mask, perm


@library_jit(static_argnums=(1, 2, 3, 4, 5, 6, 7))
def _unique_slices(ar, axis, return_index, return_inverse, return_counts, equal_nan, size,
                   fill_value):
    """unique along `axis` with a static `size`; the last output is the true count."""
    a = moveaxis(ar, axis, 0)
    n = a.shape[0]
    idt = _int_dtype()
    aux, mask, perm = _sorted_slices(a, equal_nan)
    count = _sum(mask, dtype=idt)
    empty = aux.size == 0
    ind = None if empty else nonzero(mask, size=size)[0]
    result = aux if empty else take(aux, ind, axis=0)
    if fill_value is not None:
        fv = lax.convert_element_type(asarray_operand(fill_value), aux.dtype)
        if empty:
            result = lax.broadcast_in_dim(fv, (size,) + aux.shape[1:], ())
        else:
            valid = uf.less(lax.iota(idt, size), count)
            result = where(lax.broadcast_in_dim(valid, result.shape, (0,)), result, fv)
    out = [moveaxis(result, 0, axis)]
    if return_index:
        out.append(lax.convert_element_type(perm if empty else take(perm, ind), idt))
    if return_inverse:
        if empty:
            out.append(lax.full((n,), 0, idt))
        else:   # inverse[perm[i]] = (number of distinct slices up to i) - 1
            rank = uf.subtract(cumsum(mask, dtype=idt), 1)
            out.append(take(rank, argsort(perm)))
    if return_counts:
        if not empty:
            (idx,) = nonzero(mask, size=size + 1)
            tail = lax.slice_in_dim(idx, 1, size + 1)
            idx = lax.concatenate([lax.slice_in_dim(idx, 0, 1),
                                   where(uf.not_equal(tail, 0), tail,
                                         np.asarray(mask.shape[0], idt)[()])], 0)
            out.append(lax.convert_element_type(uf.subtract(
                lax.slice_in_dim(idx, 1, size + 1), lax.slice_in_dim(idx, 0, size)), idt))
        else:
            out.append(lax.full((1 if n else 0,), n, idt))
    out.append(count)
    return tuple(out)


def unique_along_axis(ar, axis, return_index, return_inverse, return_counts, equal_nan,
                      size, fill_value):
    """`jnp.unique(ar, ..., axis=axis)`: distinct slices of `ar` along `axis`."""
    ar = asarray(asarray_operand(ar))
    axis = canonicalize_axis(axis, ar.ndim, "unique")
    n = ar.shape[axis]
    if n == 0 and size and fill_value is None:
        raise ArgumentValueError("jnp.unique: for zero-sized input with nonzero size "
                                 "argument, fill_value must be specified",
                                 hint="pass fill_value=")
    flags = (bool(return_index), bool(return_inverse), bool(return_counts), bool(equal_nan))
    if size is not None:
        res = _unique_slices(ar, axis, *flags, int(size), fill_value)[:-1]
    else:
        _known(ar, "the number of unique values")
        *full, count = _unique_slices(ar, axis, *flags, max(n, 1), None)
        k = int(np.asarray(count)) if math.prod(ar.shape) else full[0].shape[axis]
        cut = lambda r, ax=0: lax.slice_in_dim(r, 0, min(k, r.shape[ax]), axis=ax)
        res = [cut(full.pop(0), axis)]
        for flag, per_value in zip(flags[:3], (True, False, True)):
            if flag:   # the inverse has one entry per input slice: kept whole
                r = full.pop(0)
                res.append(cut(r) if per_value else r)
    return res[0] if len(res) == 1 else tuple(res)


@library_jit(static_argnums=(2, 3, 4))
def _intersect_indices(a, b, assume_unique, size, fill_value):
    """(values, indices into a, indices into b) of the sorted intersection, `size` long;
    missing slots take `fill_value` (values) and the array lengths (indices)."""
    na, nb = a.shape[0], b.shape[0]
    idt = _int_dtype()
    if assume_unique:
        ia, ib = lax.iota(idt, na), lax.iota(idt, nb)
        both = concatenate([a, b])
        valid = lax.full((na + nb,), True, dtypes.bool_)
        ka = lax.full((), na, idt)
    else:
        ua, ia, ka = _unique_slices(a, 0, True, False, False, True, na, 0)
        ub, ib, kb = _unique_slices(b, 0, True, False, False, True, nb, 0)
        # the distinct values of a, then those of b, then padding
        pos = lax.iota(idt, na + nb)
        from_b = uf.subtract(pos, ka)
        in_a, in_b = uf.less(pos, ka), uf.less(from_b, kb)
        both = where(in_a, take(ua, pos, mode="clip"), take(ub, from_b, mode="clip"))
        valid = lax.bitwise_or(in_a, lax.bitwise_and(lax.bitwise_not(in_a), in_b))
    n = na + nb
    pad, aux, src = lax.sort((lax.bitwise_not(valid), both, lax.iota(idt, n)), 0,
                             is_stable=True, num_keys=2)
    # an intersection value appears twice in a row: once from a, once from b
    pair = lax.bitwise_and(lax.eq(lax.slice(aux, (1,), (n,)), lax.slice(aux, (0,), (n - 1,))),
                           lax.bitwise_not(lax.slice(pad, (1,), (n,))))
    found = _sum(pair, dtype=idt)
    (at,) = nonzero(pair, size=size, fill_value=n)
    slot_ok = uf.less(lax.iota(idt, size), found)
    vals = take(aux, at, mode="fill", fill_value=0)
    if fill_value is None:
        vals = where(slot_ok, vals, _max(vals))
        vals = where(slot_ok, vals, _min(vals))
    else:
        vals = where(slot_ok, vals, lax.convert_element_type(asarray_operand(fill_value),
                                                             aux.dtype))
    i1 = where(slot_ok, take(src, at, mode="fill", fill_value=na), na)
    i2 = where(slot_ok, uf.subtract(take(src, uf.add(at, 1), mode="fill", fill_value=nb), ka),
               nb)
    i1 = take(ia, i1, mode="fill", fill_value=na)
    i2 = take(ib, i2, mode="fill", fill_value=nb)
    return vals, i1, i2, found


def intersect1d_indices(ar1, ar2, assume_unique, size, fill_value):
    """`jnp.intersect1d(ar1, ar2, return_indices=True)`: the sorted intersection and
    where its values first occur in the flattened `ar1` and `ar2`."""
    a, b = promote_dtypes(asarray_operand(ar1), asarray_operand(ar2))
    a, b = ravel(a), ravel(b)
    if size is not None:
        return _intersect_indices(a, b, bool(assume_unique), int(size), fill_value)[:3]
    _known(a, "intersect1d's result length")
    _known(b, "intersect1d's result length")
    vals, i1, i2, found = _intersect_indices(a, b, bool(assume_unique),
                                             max(a.shape[0] + b.shape[0], 1), None)
    k = int(np.asarray(found))
    return tuple(lax.slice_in_dim(r, 0, k) for r in (vals, i1, i2))
