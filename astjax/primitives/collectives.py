"""Collective primitives over named axes: `psum`, `pmax`, `pmin`, `all_gather`,
`axis_index`, `ppermute`, `all_to_all` (JAX's names and params).

A named axis exists while a function is staged under `vmap(..., axis_name=...)` or
`pmap(..., axis_name=...)`: those push (name, size) with `extend_axis_env`, and the
`lax` wrappers (`astjax.lax_parallel`) check names against it (`AxisNameError`
outside). Meaning under `vmap` is given by the batch rules (the batched axis *is*
the named axis): `psum` = `reduce_sum` over the batch dim (the result is the same
for every lane, i.e. unmapped), `axis_index` = `iota`, `all_gather` = the batched
value with its batch axis moved to `all_gather_dimension`, `ppermute` = a gather of
lanes, `all_to_all` = a transpose between the batch axis and the split axis. A
collective over a different name than the one being batched is re-bound with the
batch axis carried along. Collectives have no NumPy `impl`: they only mean something
under a mapped axis. Lowerings (for `pmap`) are registered per primitive below.

Deviation from JAX: `all_to_all` carries `axis_size` as a param (as `all_gather`
does in JAX), so that abstract evaluation needs no axis environment. Each of
`psum`/`pmax`/`pmin` takes one operand (lax wrappers bind once per pytree leaf).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray, bind
from ..errors import AxisNameError, ShapeError
from .base import register
from .gather import GatherDimensionNumbers, GatherScatterMode

# ------------------------------------------------------------------ axis environment


class _Env(threading.local):
    def __init__(self):
        self.frames: list = []   # (name, size), innermost last


_env = _Env()


@contextmanager
def extend_axis_env(name, size):
    """Make axis `name` of `size` visible to collectives staged inside."""
    if name is None:
        yield
        return
    _env.frames.append((name, int(size)))
    try:
        yield
    finally:
        _env.frames.pop()


def axis_env():
    return list(_env.frames)


def axis_size(name, loc=None) -> int:
    """The size of the innermost axis called `name` (AxisNameError if none)."""
    for n, s in reversed(_env.frames):
        if n == name:
            return s
    names = [n for n, _ in _env.frames]
    raise AxisNameError(f"unbound axis name: {name!r}; "
                        + (f"the axes in scope are {names}" if names else
                           "no named axis is in scope here (collectives need to run under "
                           "vmap(..., axis_name=...) or pmap(..., axis_name=...))"), loc=loc)


def _names(axis_name):
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _batching():
    from ..transforms import batching
    return batching


def _rebind(p, args, dims, params):
    """The collective is over another axis than the one being batched: keep the
    batch dim where it is (elementwise-like primitives)."""
    return bind(p, *args, **params), dims[0]

# --------------------------------------------------------------------------- psum


def _reduce_collective(name, reducer_name, unmapped):
    p = core.new_primitive(name)

    def abstract_eval(x, *, axes, axis_index_groups=None):
        return x

    def batch(args, dims, *, axes, axis_index_groups=None):
        b = _batching()
        frame = b.axis_frame()
        params = dict(axes=axes, axis_index_groups=axis_index_groups)
        if frame.name not in axes:
            return _rebind(p, args, dims, params)
        x, d = args[0], dims[0]
        if d is None:
            out = unmapped(x, frame.size)
        else:
            out = bind(core.primitives[reducer_name], x, axes=(d,), out_sharding=None)
        rest = tuple(a for a in axes if a != frame.name)
        if rest:
            out = bind(p, out, axes=rest, axis_index_groups=axis_index_groups)
        return out, None

    register(p, abstract_eval=abstract_eval, batch=batch)
    return p


def _times_size(x, n):
    a = core.get_aval(x)
    if a.dtype == dtypes.bool_:
        x = bind(core.primitives["convert_element_type"], x, new_dtype=dtypes.int32,
                 weak_type=False)
        a = core.get_aval(x)
    return bind(core.primitives["mul"], x, np.asarray(n, a.dtype)[()])


psum_p = _reduce_collective("psum", "reduce_sum", _times_size)

# --------------------------------------------------------------------------- pmax
pmax_p = _reduce_collective("pmax", "reduce_max", lambda x, n: x)

# --------------------------------------------------------------------------- pmin
pmin_p = _reduce_collective("pmin", "reduce_min", lambda x, n: x)

# --------------------------------------------------------------------- axis_index
axis_index_p = core.new_primitive("axis_index")


def _axis_index_batch(args, dims, *, axis_name):
    b = _batching()
    frame = b.axis_frame()
    if frame.name != axis_name:
        return bind(axis_index_p, axis_name=axis_name), None
    return bind(core.primitives["iota"], dtype=dtypes.int32, shape=(frame.size,),
                dimension=0, sharding=None), 0


register(axis_index_p,
         abstract_eval=lambda *, axis_name: ShapedArray((), dtypes.int32),
         batch=_axis_index_batch)

# --------------------------------------------------------------------- all_gather
all_gather_p = core.new_primitive("all_gather")


def _all_gather_ae(x, *, all_gather_dimension, axis_name, axis_index_groups=None,
                   axis_size, tiled=False):
    shape = list(x.shape)
    if tiled:
        if not 0 <= all_gather_dimension < max(x.ndim, 1) or not shape:
            raise ShapeError(f"all_gather: axis {all_gather_dimension} is out of bounds for "
                             f"shape {x.shape}")
        shape[all_gather_dimension] *= axis_size
    else:
        if not 0 <= all_gather_dimension <= x.ndim:
            raise ShapeError(f"all_gather: axis {all_gather_dimension} is out of bounds for "
                             f"shape {x.shape}")
        shape.insert(all_gather_dimension, axis_size)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _all_gather_batch(args, dims, *, all_gather_dimension, axis_name, axis_index_groups=None,
                      axis_size, tiled=False):
    b = _batching()
    frame = b.axis_frame()
    x, d = args[0], dims[0]
    names = _names(axis_name)
    params = dict(all_gather_dimension=all_gather_dimension, axis_name=axis_name,
                  axis_index_groups=axis_index_groups, axis_size=axis_size, tiled=tiled)
    if frame.name not in names:
        if d is None:
            return bind(all_gather_p, x, **params), None
        x = b.moveaxis(x, d, 0)
        params["all_gather_dimension"] = all_gather_dimension + 1
        return bind(all_gather_p, x, **params), 0
    if len(names) > 1:
        raise AxisNameError(
            "all_gather over several axes at once is not supported under vmap; "
            "gather one axis at a time")
    from .. import lax
    x = b.matchaxis(x, d, all_gather_dimension, frame.size)
    if tiled:
        a = core.get_aval(x)
        shape = list(a.shape)
        k = all_gather_dimension
        shape[k:k + 2] = [shape[k] * shape[k + 1]]
        x = lax.reshape(x, tuple(shape))
    return x, None


register(all_gather_p, abstract_eval=_all_gather_ae, batch=_all_gather_batch)

# ----------------------------------------------------------------------- ppermute
ppermute_p = core.new_primitive("ppermute")


def _ppermute_batch(args, dims, *, axis_name, perm):
    b = _batching()
    frame = b.axis_frame()
    x, d = args[0], dims[0]
    if frame.name not in _names(axis_name):
        return _rebind(ppermute_p, args, dims, dict(axis_name=axis_name, perm=perm))
    from .. import lax
    n = frame.size
    x = b.matchaxis(x, d, 0, n)
    a = core.get_aval(x)
    src = np.zeros((n, 1), np.int32)
    recv = np.zeros((n,), bool)
    for s, t in perm:
        src[t, 0], recv[t] = s, True
    r = a.ndim - 1
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, r + 1)), collapsed_slice_dims=(0,),
                                start_index_map=(0,))
    out = bind(core.primitives["gather"], x, src, dimension_numbers=dn,
               slice_sizes=(1,) + a.shape[1:], indices_are_sorted=False,
               unique_indices=False, mode=GatherScatterMode.CLIP, fill_value=None)
    if not recv.all():
        mask = lax.broadcast_in_dim(recv, a.shape, (0,))
        zeros = lax.full(a.shape, np.zeros((), a.dtype)[()], a.dtype)
        out = bind(core.primitives["select_n"], mask, zeros, out)
    return out, 0


register(ppermute_p,
         abstract_eval=lambda x, *, axis_name, perm: x,
         batch=_ppermute_batch)

# --------------------------------------------------------------------- all_to_all
all_to_all_p = core.new_primitive("all_to_all")


def _all_to_all_ae(x, *, axis_name, split_axis, concat_axis, axis_size, axis_index_groups=None,
                   tiled=False):
    shape = list(x.shape)
    if not (0 <= split_axis < x.ndim and 0 <= concat_axis < x.ndim):
        raise ShapeError(f"all_to_all: split_axis {split_axis} / concat_axis {concat_axis} out "
                         f"of bounds for shape {x.shape}")
    if shape[split_axis] % axis_size:
        raise ShapeError(f"all_to_all: split axis of size {shape[split_axis]} is not divisible "
                         f"by the axis size {axis_size}")
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return ShapedArray(shape, x.dtype, x.weak_type)


def _all_to_all_batch(args, dims, *, axis_name, split_axis, concat_axis, axis_size,
                      axis_index_groups=None, tiled=False):
    b = _batching()
    frame = b.axis_frame()
    x, d = args[0], dims[0]
    params = dict(axis_name=axis_name, split_axis=split_axis, concat_axis=concat_axis,
                  axis_size=axis_size, axis_index_groups=axis_index_groups, tiled=tiled)
    if frame.name not in _names(axis_name):
        if d is None:
            return bind(all_to_all_p, x, **params), None
        x = b.moveaxis(x, d, 0)
        params.update(split_axis=split_axis + 1, concat_axis=concat_axis + 1)
        return bind(all_to_all_p, x, **params), 0
    from .. import lax
    n = frame.size
    x = b.matchaxis(x, d, 0, n)
    a = core.get_aval(x)
    per = list(a.shape[1:])
    # Y: lanes i, per-example axes with the split axis cut into (j, chunk)
    y_shape = [n]
    labels = ["i"]
    for k, s in enumerate(per):
        if k == split_axis:
            y_shape += [n, s // n]
            labels += ["j", ("a", k)]
        else:
            y_shape.append(s)
            labels.append(("a", k))
    y = lax.reshape(x, tuple(y_shape))
    out_labels = ["j"]
    for k in range(len(per)):
        out_labels += ["i", ("a", k)] if k == concat_axis else [("a", k)]
    y = lax.transpose(y, tuple(labels.index(lbl) for lbl in out_labels))
    out_shape = [n]
    for k, s in enumerate(per):
        s = s // n if k == split_axis else s
        out_shape.append(s * n if k == concat_axis else s)
    return lax.reshape(y, tuple(out_shape)), 0


register(all_to_all_p, abstract_eval=_all_to_all_ae, batch=_all_to_all_batch)

COLLECTIVES = (psum_p, pmax_p, pmin_p, axis_index_p, all_gather_p, ppermute_p, all_to_all_p)

__all__ = ["psum_p", "pmax_p", "pmin_p", "axis_index_p", "all_gather_p", "ppermute_p",
           "all_to_all_p", "extend_axis_env", "axis_env", "axis_size", "COLLECTIVES"]

# StableHLO lowerings (pmap: cross-replica ops) are registered by
# `astjax.codegen.collective_lowering`; the autodiff rules that transforms/ad_rules.py
# leaves out (all_gather transpose, pmax/pmin jvp) by `astjax.pmap_api`.
