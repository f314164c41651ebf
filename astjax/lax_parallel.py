"""`lax.psum`, `lax.pmean`, `lax.pmax`, `lax.pmin`, `lax.all_gather`, `lax.axis_index`,
`lax.ppermute`, `lax.all_to_all`: collectives over a named axis of an enclosing
`vmap(..., axis_name=...)` or `pmap(..., axis_name=...)`. Outside one they raise a
located `AxisNameError`. Pytrees are handled leaf by leaf."""
from __future__ import annotations

import numpy as np

from . import core, dtypes, tree_util
from .core import bind
from .errors import AxisNameError, caller_location
from .primitives import collectives as _c

__all__ = ["psum", "pmean", "pmax", "pmin", "all_gather", "axis_index", "ppermute", "pshuffle",
           "all_to_all", "axis_size"]


def _axes(axis_name):
    if isinstance(axis_name, (tuple, list)):
        return tuple(axis_name)
    return (axis_name,)


def _check(axis_name):
    """Sizes of the named axes; a located AxisNameError if one is not in scope."""
    return [_c.axis_size(a, loc=caller_location()) for a in _axes(axis_name)]


def _no_groups(axis_index_groups):
    if axis_index_groups is not None:
        raise AxisNameError("axis_index_groups is not supported", loc=caller_location())


def _leaf(x):
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x


def _reduction(prim, name):
    def reduce(x, axis_name, *, axis_index_groups=None):
        _no_groups(axis_index_groups)
        axes = _axes(axis_name)
        _check(axes)
        return tree_util.tree_map(
            lambda v: bind(prim, _leaf(v), axes=axes, axis_index_groups=None), x)
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"`lax.{name}`: {name[1:]} of `x` over the named axis (leaf by leaf)."
    return reduce


psum = _reduction(_c.psum_p, "psum")
pmax = _reduction(_c.pmax_p, "pmax")
pmin = _reduction(_c.pmin_p, "pmin")


def pmean(x, axis_name, *, axis_index_groups=None):
    _no_groups(axis_index_groups)
    axes = _axes(axis_name)
    n = int(np.prod(_check(axes)))

    def mean(v):
        v = _leaf(v)
        a = core.get_aval(v)
        if not dtypes.is_inexact(a.dtype):
            from . import lax
            v = lax.convert_element_type(v, dtypes.canonicalize(dtypes.float64))
            a = core.get_aval(v)
        s = bind(_c.psum_p, v, axes=axes, axis_index_groups=None)
        return bind(core.primitives["div"], s, np.asarray(n, a.dtype)[()])
    return tree_util.tree_map(mean, x)


def axis_index(axis_name):
    _check(axis_name)
    if isinstance(axis_name, (tuple, list)):
        if len(axis_name) != 1:
            raise AxisNameError("axis_index of several axes is not supported",
                                loc=caller_location())
        axis_name = axis_name[0]
    return bind(_c.axis_index_p, axis_name=axis_name)


def axis_size(axis_name):
    """The (static) size of a named axis."""
    return int(np.prod(_check(axis_name)))


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    _no_groups(axis_index_groups)
    sizes = _check(axis_name)
    if len(sizes) != 1:
        raise AxisNameError("all_gather over several axes at once is not supported",
                            loc=caller_location())
    name = _axes(axis_name)[0]

    def gather(v):
        v = _leaf(v)
        nd = core.get_aval(v).ndim
        ax = axis % (nd if tiled else nd + 1) if (nd or not tiled) else axis
        return bind(_c.all_gather_p, v, all_gather_dimension=int(ax), axis_name=name,
                    axis_index_groups=None, axis_size=sizes[0], tiled=bool(tiled))
    return tree_util.tree_map(gather, x)


def ppermute(x, axis_name, perm):
    sizes = _check(axis_name)
    name = _axes(axis_name)[0] if len(_axes(axis_name)) == 1 else tuple(axis_name)
    perm = tuple((int(s), int(t)) for s, t in perm)
    n = int(np.prod(sizes))
    srcs, dsts = [s for s, _ in perm], [t for _, t in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts) or any(
            not 0 <= i < n for i in srcs + dsts):
        raise AxisNameError(f"ppermute: perm {perm} is not a partial permutation of "
                            f"range({n})", hint="give each source and destination once",
                            loc=caller_location())
    return tree_util.tree_map(
        lambda v: bind(_c.ppermute_p, _leaf(v), axis_name=name, perm=perm), x)


def pshuffle(x, axis_name, perm):
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    _no_groups(axis_index_groups)
    sizes = _check(axis_name)
    name = _axes(axis_name)[0]
    n = int(np.prod(sizes))
    from . import lax

    def a2a(v):
        v = _leaf(v)
        a = core.get_aval(v)
        sa, ca = split_axis % a.ndim, concat_axis % a.ndim
        if tiled:
            if a.shape[sa] % n:
                raise AxisNameError(f"all_to_all: split axis of size {a.shape[sa]} is not "
                                    f"divisible by the axis size {n}", loc=caller_location())
            return bind(_c.all_to_all_p, v, axis_name=name, split_axis=sa, concat_axis=ca,
                        axis_size=n, axis_index_groups=None, tiled=True)
        if a.shape[sa] != n:
            raise AxisNameError(f"all_to_all: the split axis has size {a.shape[sa]}, but the "
                                f"axis {name!r} has size {n}", loc=caller_location())
        if sa < ca:
            ca += 1
            v = lax.expand_dims(v, (ca,))
        elif sa > ca:
            v = lax.expand_dims(v, (ca,))
            sa += 1
        out = bind(_c.all_to_all_p, v, axis_name=name, split_axis=sa, concat_axis=ca,
                   axis_size=n, axis_index_groups=None, tiled=False)
        if sa != ca:
            out = lax.squeeze(out, (sa,))
        return out
    return tree_util.tree_map(a2a, x)
