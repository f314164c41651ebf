"""Reductions: sum, prod, max, min, mean, var, std, any, all, argmax/argmin, with
NumPy's axis/keepdims/dtype/where arguments."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import AxisNameError, ReductionError
from ..primitives.base import max_value as _max_value, min_value as _min_value
from . import ufuncs
from .operands import asarray
from .ufuncs import asarray_operand, broadcast_to_shape, where as _where
from .util import canonicalize_axes


def _axes(axis, ndim, name):
    """The reduced axes: `util.canonicalize_axes`, and JAX's error for a string axis (a
    named axis, which jnp reductions here do not bind)."""
    names = axis if isinstance(axis, (tuple, list)) else (axis,)
    for a in names:
        if isinstance(a, str):
            raise AxisNameError(f"`{name}`: found an unbound axis name: {a}",
                                hint="jnp reductions take integer axes; reduce over a named "
                                     "vmap/pmap axis with lax.psum / lax.pmax / lax.pmin")
    return canonicalize_axes(axis, ndim, name)


def _keep(x, axes, in_shape):
    shape = tuple(1 if i in axes else d for i, d in enumerate(in_shape))
    return lax.reshape(x, shape)


def _reduction(name, lax_fn, *, upcast_bool=False, bool_op=None, init=None, identity=True):
    def f(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        a = asarray(asarray_operand(a))  # a Python scalar: a 0-d array, never a WeakConst
        av = core.get_aval(a)
        axes = _axes(axis, av.ndim, name)
        if not identity and initial is None:
            if where is not None:
                raise ReductionError(f"reduction operation {name} does not have an identity, "
                                     "so to use a where mask one has to specify 'initial'")
            if _count(av.shape, axes) == 0:
                raise ReductionError(f"zero-size array to reduction operation {name} which "
                                     "has no identity")
        if dtype is not None:
            a = lax.convert_element_type(a, dtypes.canonicalize(dtypes.dtype(dtype), warn=True))
        elif upcast_bool and (av.dtype == dtypes.bool_ or (dtypes.is_int(av.dtype) and av.dtype.itemsize < 4)):
            a = lax.convert_element_type(a, dtypes.canonicalize(
                dtypes.uint32 if dtypes.issubdtype(av.dtype, np.unsignedinteger) else dtypes.int64))
        elif bool_op is not None and av.dtype == dtypes.bool_:
            return _finish(bool_op(a, axes), axes, av.shape, keepdims)
        if where is not None:
            ident = init(core.get_aval(a).dtype)
            a = _where(broadcast_to_shape(where, av.shape), a, lax.full_like(a, ident))
        r = lax_fn(a, axes) if axes else a
        if initial is not None:
            r = getattr(ufuncs, {"sum": "add", "prod": "multiply", "max": "maximum",
                                 "min": "minimum"}[name])(r, initial)
        return _finish(r, axes, av.shape, keepdims)
    f.__name__ = name
    return f


def _finish(r, axes, shape, keepdims):
    """The reduction's result, its axes kept when `keepdims`; strongly typed, as JAX's
    (a reduction of a Python scalar or weak value is not weak)."""
    r = _keep(r, axes, shape) if keepdims else r
    ra = core.get_aval(r)
    return lax.convert_element_type(r, ra.dtype, weak_type=False) if ra.weak_type else r


sum = _reduction("sum", lax.reduce_sum, upcast_bool=True, init=lambda d: 0)  # noqa: A001
prod = _reduction("prod", lax.reduce_prod, upcast_bool=True, init=lambda d: 1)
max = _reduction("max", lax.reduce_max, init=_min_value, identity=False)  # noqa: A001
min = _reduction("min", lax.reduce_min, init=_max_value, identity=False)  # noqa: A001
amax, amin = max, min


def _bool_reduction(name, lax_fn):
    def f(a, axis=None, out=None, keepdims=False, where=None):
        a = asarray(asarray_operand(a))
        av = core.get_aval(a)
        if av.dtype != dtypes.bool_:
            a = lax.ne(a, lax.full_like(a, 0))
        if where is not None:
            a = _where(broadcast_to_shape(where, av.shape), a, name == "all")
        axes = _axes(axis, av.ndim, name)
        r = lax_fn(a, axes) if axes else a
        return _finish(r, axes, av.shape, keepdims)
    f.__name__ = name
    return f


all = _bool_reduction("all", lax.reduce_and)  # noqa: A001
any = _bool_reduction("any", lax.reduce_or)  # noqa: A001


def _count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """The mean; float16/bfloat16 sums accumulate in float32, as JAX's (R16)."""
    a = asarray_operand(a)
    av = core.get_aval(a)
    if dtype is None:
        dtype = av.dtype if dtypes.is_inexact(av.dtype) else dtypes.dtype(float)
    dtype = dtypes.canonicalize(dtypes.dtype(dtype))
    comp = dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype
    axes = _axes(axis, av.ndim, "mean")
    if where is None:
        n = _count(av.shape, axes)
        s = sum(lax.convert_element_type(a, comp), axis=axes, keepdims=keepdims)
        m = lax.div(s, np.asarray(n, comp)[()])
    else:
        w = broadcast_to_shape(where, av.shape)
        s = sum(lax.convert_element_type(a, comp), axis=axes, keepdims=keepdims, where=w)
        m = lax.div(s, sum(lax.convert_element_type(w, comp), axis=axes, keepdims=keepdims))
    return m if comp == dtype else lax.convert_element_type(m, dtype)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, correction=None):
    if correction is not None:
        ddof = correction
    a = asarray_operand(a)
    av = core.get_aval(a)
    comp = av.dtype if dtypes.is_inexact(av.dtype) else dtypes.canonicalize(dtypes.dtype(float))
    a = lax.convert_element_type(a, comp)
    axes = _axes(axis, av.ndim, "var")
    m = mean(a, axis=axes, keepdims=True, where=where)
    centered = lax.sub(a, broadcast_to_shape(m, av.shape))
    if dtypes.issubdtype(comp, np.complexfloating):
        sq = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        sq = lax.integer_pow(centered, 2)
    if where is None:
        n = _count(av.shape, axes)
        s = sum(sq, axis=axes, keepdims=keepdims)
        return lax.div(s, np.asarray(n - ddof, core.get_aval(s).dtype)[()])
    w = broadcast_to_shape(where, av.shape)
    s = sum(sq, axis=axes, keepdims=keepdims, where=w)
    n = sum(lax.convert_element_type(w, core.get_aval(s).dtype), axis=axes, keepdims=keepdims)
    return lax.div(s, lax.sub(n, np.asarray(ddof, core.get_aval(s).dtype)[()]))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, correction=None):
    return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, where, correction))


def ptp(a, axis=None, out=None, keepdims=False):
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))
