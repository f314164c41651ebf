"""Collective primitives over named axes: `psum`, `pmax`, `pmin`, `axis_index`,
`all_gather`, `ppermute`, `all_to_all` (JAX's names and params), each with every
rule and its `lax` wrapper (`lax.psum`, `lax.pmean`, `lax.all_gather`, ...).

A named axis exists while a function is staged under `vmap(..., axis_name=...)` or
`pmap(..., axis_name=...)`: those push it on core's axis stack
(`core.extend_axis_env`), and the wrappers check names against it (a located
`AxisNameError` outside). Pytrees are handled leaf by leaf.

Meaning under `vmap` is given by the batch rules (the batched axis *is* the named
axis): `psum` = `reduce_sum` over the batch dim (the result is the same for every
lane, i.e. unmapped), `axis_index` = `iota`, `all_gather` = the batched value with
its batch axis moved to `all_gather_dimension`, `ppermute` = a gather of lanes,
`all_to_all` = a transpose between the batch axis and the split axis. A collective
over a different name than the one being batched is re-bound with the batch axis
carried along. Collectives are batched even when their operands are unmapped
(`always_batch`). They have no NumPy `impl`: they only mean something under a
mapped axis.

Under `pmap` the program is compiled with `mhlo.num_replicas = N` and runs once per
device; a collective over the pmap axis lowers to a cross-replica op over replica
group [0 .. N-1] (replica i runs on the pmap's i-th device):

  psum / pmax / pmin -> stablehlo.all_reduce (add / max / min region)
  all_gather         -> stablehlo.all_gather
  ppermute           -> stablehlo.collective_permute
  all_to_all         -> stablehlo.all_to_all
  axis_index         -> stablehlo.replica_id

The pmap axes a module may use are the "pmap" frames of the axis stack around
`stablehlo.lower_module`; a collective over any other name (a vmap axis is batched
away before lowering) is an AxisNameError.

Inside a `shard_map` body (`primitives/shard_map.py`) the mesh axes are named axes and
the program is partitioned, not replicated: a collective over mesh axes lowers to
the same ops over groups of *partitions* (logical device ids, one group per
combination of the other mesh axes, `sharding.manual_groups`), with a channel
handle and `use_global_device_ids`; `axis_index` reads the partition's index from
a table indexed by `partition_id`. `psum_scatter` binds `reduce_scatter`
(`collectives_scatter.py`), all_gather's transpose.

Deviation from JAX: `all_to_all` carries `axis_size` as a param (as `all_gather`
does in JAX), so that abstract evaluation needs no axis environment (the passes that
re-stage a shard_map or pmap body -- its transpose, linearization, vmap -- do not all
keep its named axes in scope); printed jaxprs leave it out, as JAX's. Each of
`psum`/`pmax`/`pmin` takes one operand (the wrappers bind once per pytree leaf).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, tree_util
from .. import sharding_impls as shd
from ..core import ShapedArray, bind
from ..errors import (ArgumentValueError, AxisNameError,
                      NotImplementedInAstjaxError, ShapeError, caller_location)
from .base import (deflinear, is_zero, lax_ops, mark_unsupported, matchaxis, moveaxis, nondiff,
                   register, shown_params)
from .elementwise import div_p, mul_p
from .gather import GatherDimensionNumbers, GatherScatterMode, gather_p
from .reductions import reduce_max_p, reduce_min_p, reduce_sum_p
from .selection import select_n_p
from .structural import convert_element_type_p, iota_p

__all__ = ["psum_p", "pmax_p", "pmin_p", "axis_index_p", "all_gather_p", "ppermute_p",
           "all_to_all_p", "COLLECTIVES",
           "psum", "pmean", "pmax", "pmin", "all_gather", "axis_index", "ppermute", "pshuffle",
           "all_to_all", "axis_size"]

# ------------------------------------------------------------------ shared helpers


def _names(axis_name):
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _check(axis_name):
    """Sizes of the named axes; a located AxisNameError if one is not in scope."""
    return [core.axis_size(a, loc=caller_location()) for a in _names(axis_name)]


def _index_groups(axis_index_groups):
    """`axis_index_groups` as a tuple of tuples (None stays None), after JAX's check
    that the groups cover the indices 0 .. k-1 exactly once (a located ValueError)."""
    if axis_index_groups is None:
        return None
    groups = tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    flat = [i for g in groups for i in g]
    if sorted(flat) != list(range(len(flat))):
        raise ArgumentValueError("axis_index_groups must cover all indices exactly once",
                                 loc=caller_location())
    return groups


def _no_vmap_groups(axis_index_groups, what="axis_index_groups not supported in vmap "
                    "collectives. Please open a feature request!"):
    """JAX's NotImplementedError for groups over the axis being batched."""
    if axis_index_groups is not None:
        raise NotImplementedInAstjaxError(what)


def _index_in_group(names, sizes, groups):
    """This lane's linear index over `names` (first major), or with `groups` its
    position within its group."""
    lax = lax_ops()
    i = bind(axis_index_p, axis_name=names[0])
    for n, k in zip(names[1:], sizes[1:]):
        i = lax.add(lax.mul(i, np.int32(k)), bind(axis_index_p, axis_name=n))
    if groups is None:
        return i
    table = np.zeros(sum(len(g) for g in groups), np.int32)
    for g in groups:
        table[list(g)] = np.arange(len(g), dtype=np.int32)
    return lax.dynamic_index_in_dim(table, i, 0, keepdims=False,
                                    allow_negative_indices=False)


def _leaf(x):
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x


def _varying(v, names):
    """`v`, inside a `check_vma` shard_map body, cast to vary over the manual axes of
    `names` it does not vary over (JAX's implicit pvary before a collective)."""
    if core.operand_hook[0] is None or not isinstance(v, core.Tracer):   # (no body)
        return v
    from .collectives_typed import collective_pvary   # (a later family)
    return collective_pvary(v, _names(names))


def _all_shard_map_axes(names):
    """Whether every name is a mesh axis of an enclosing shard_map."""
    bound = {f.name for f in core.axis_frames("shard_map")}
    return all(n in bound for n in names)


def _rebind(p, args, dims, params):
    """The collective is over another axis than the one being batched: keep the
    batch dim where it is (elementwise-like primitives)."""
    return bind(p, *args, **params), dims[0]


def _manual(names):
    """The mesh when `names` are axes of the `shard_map` body being lowered."""
    mesh = shd.current_manual_mesh()
    if mesh is not None and all(n in mesh.axis_names for n in names):
        return mesh
    return None


def _groups_text(groups):
    """The replica_groups attribute; uneven groups are padded with -1, as JAX does."""
    k, m = len(groups), max(len(g) for g in groups)
    body = ", ".join("[" + ", ".join(str(int(i)) for i in list(g) + [-1] * (m - len(g)))
                     + "]" for g in groups)
    return f"dense<[{body}]> : tensor<{k}x{m}xi64>"


def _collective_attrs(ctx, axes, axis_index_groups=None):
    """(attributes, group size, groups) of a collective over `axes`: replica groups
    under pmap; under shard_map, groups of partitions (logical device ids) with a
    channel and global device ids, as a partitioned program needs."""
    names = _names(axes)
    mesh = _manual(names)
    if mesh is None:
        text, m = _groups(axes, axis_index_groups)
        return {"replica_groups": text}, m, None
    groups = shd.manual_groups(mesh, names, shd.current_assignment())
    if axis_index_groups is not None:   # (JAX's: each index group within every group)
        groups = [[g[i] for i in ig] for g in groups for ig in axis_index_groups]
    n = getattr(ctx.mb, "channels", 0) + 1
    ctx.mb.channels = n
    return ({"channel_handle": f"#stablehlo.channel_handle<handle = {n}, type = 1>",
             "replica_groups": _groups_text(groups), "use_global_device_ids": "unit"},
            len(groups[0]), groups)


def _groups(axes, axis_index_groups=None):
    """replica_groups attribute text for a collective over `axes` (lowering)."""
    names = _names(axes)
    bound = {f.name: f.size for f in core.axis_frames("pmap")}
    for n in names:
        if n not in bound:
            raise AxisNameError(
                f"collective over axis {n!r}, which is not a pmap axis of this program"
                + (f" (pmap axes: {list(bound)})" if bound else ""))
    if len(names) != 1:
        raise AxisNameError(f"a collective over several pmap axes {names} is not supported")
    n = bound[names[0]]
    groups = ([list(g) for g in axis_index_groups] if axis_index_groups
              else [list(range(n))])
    return _groups_text(groups), len(groups[0])

# ---------------------------------------------------------------- psum, pmax, pmin


def _reducer_op(kind, dtype):
    if dtype == dtypes.bool_:
        return {"sum": "stablehlo.or", "max": "stablehlo.or", "min": "stablehlo.and"}[kind]
    return {"sum": "stablehlo.add", "max": "stablehlo.maximum",
            "min": "stablehlo.minimum"}[kind]


def _reduce_collective(name, kind, reducer_p, unmapped):
    p = core.new_primitive(name)

    def abstract_eval(x, *, axes, axis_index_groups=None):
        return x

    def lowering(ctx, x, *, axes, axis_index_groups=None):
        attrs, _, _ = _collective_attrs(ctx, axes, axis_index_groups)
        aval = ctx.avals_in[0]
        scalar = ShapedArray((), aval.dtype)
        op = _reducer_op(kind, aval.dtype)
        body = ctx.region([scalar, scalar], lambda a, b: [ctx.mb.op(op, [a, b], [scalar])[0]])
        return ctx.op1("stablehlo.all_reduce", [x], regions=[body], attrs=attrs)

    def batch(args, dims, *, axes, axis_index_groups=None):
        frame = core.axis_frame()
        params = dict(axes=axes, axis_index_groups=axis_index_groups)
        if frame.name not in axes:
            return _rebind(p, args, dims, params)
        _no_vmap_groups(axis_index_groups)
        x, d = args[0], dims[0]
        if d is None:
            out = unmapped(x, frame.size)
        else:
            out = bind(reducer_p, x, axes=(d,), out_sharding=None)
        rest = tuple(a for a in axes if a != frame.name)
        if rest:
            out = bind(p, out, axes=rest, axis_index_groups=axis_index_groups)
        return out, None

    register(p, abstract_eval=abstract_eval, lowering=lowering, batch=batch)
    p.always_batch = True
    return p


def _reduction(p, name):
    def reduce(x, axis_name, *, axis_index_groups=None):
        groups = _index_groups(axis_index_groups)
        axes = _names(axis_name)
        _check(axes)

        def one(v):
            if groups is not None and p is psum_p and not isinstance(v, core.Tracer):
                # a constant (`psum(1, ...)`): JAX's group size times it
                return _times_size(_leaf(v), len(groups[0]))
            if p is psum_p:
                return _bind_psum(_leaf(v), axes, groups)
            return bind(p, _varying(_leaf(v), axes), axes=axes, axis_index_groups=groups)
        return tree_util.tree_map(one, x)
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"`lax.{name}`: {name[1:]} of `x` over the named axis (leaf by leaf)."
    return reduce


def _times_size(x, n):
    a = core.get_aval(x)
    if a.dtype == dtypes.bool_:
        x = bind(convert_element_type_p, x, new_dtype=dtypes.int32, weak_type=False)
        a = core.get_aval(x)
    return bind(mul_p, x, np.asarray(n, a.dtype)[()])


psum_p = _reduce_collective("psum", "sum", reduce_sum_p, _times_size)


def _psum_transpose(ct, x, **params):
    # (the per-device adjoint; JAX's typed one over manual axes, whose operand varies over
    # them (the wrappers cast it first): psum_invariant's, a pvary of the cotangent)
    if is_zero(ct):
        return [None]
    if params["axis_index_groups"] is None:
        from .collectives_typed import typed_sum_transpose   # (a later family)
        typed = typed_sum_transpose(ct, params["axes"])
        if typed is not None:
            return [typed]
    return [bind(psum_p, ct, **params)]


deflinear(psum_p, _psum_transpose)
psum = _reduction(psum_p, "psum")


def _bind_psum(v, axes, groups):
    """`psum` of one leaf: JAX's `psum_invariant` inside a `check_vma` body over its
    manual axes (`collectives_typed`), else `psum_p`."""
    if groups is None and isinstance(v, core.Tracer):
        from .vma import psum_typing   # (a later family)
        typed = psum_typing(v, axes)
        if typed is not None:
            from .collectives_typed import psum_invariant
            return psum_invariant(v, axes, typed)
    return bind(psum_p, v, axes=axes, axis_index_groups=groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """`lax.pmean`: the mean of `x` over the named axis (leaf by leaf; with
    `axis_index_groups`, over each group, of the first group's size as in JAX)."""
    groups = _index_groups(axis_index_groups)
    axes = _names(axis_name)
    n = int(np.prod(_check(axes))) if groups is None else len(groups[0])

    def mean(v):
        v = _leaf(v)
        a = core.get_aval(v)
        if not dtypes.is_inexact(a.dtype):
            v = lax_ops().convert_element_type(v, dtypes.canonicalize(dtypes.float64))
            a = core.get_aval(v)
        s = _bind_psum(v, axes, groups)
        return bind(div_p, s, np.asarray(n, a.dtype)[()])
    return tree_util.tree_map(mean, x)


def _pminmax_jvp(p):
    """d pmax(x) = the tangent of the device(s) holding the max (averaged over ties)."""
    def rule(primals, tangents, *, axes, axis_index_groups=None):
        lax = lax_ops()
        (x,), (t,) = primals, tangents
        y = core.bind(p, x, axes=axes, axis_index_groups=axis_index_groups)
        if isinstance(t, core.Zero):
            return y, core.Zero(core.get_aval(y))
        aval = core.get_aval(y)
        mask = lax.convert_element_type(lax.eq(x, y), aval.dtype)
        num = core.bind(psum_p, lax.mul(t, mask), axes=axes,
                        axis_index_groups=axis_index_groups)
        cnt = core.bind(psum_p, mask, axes=axes, axis_index_groups=axis_index_groups)
        return y, lax.div(num, cnt)
    p.jvp = rule


pmax_p = _reduce_collective("pmax", "max", reduce_max_p, lambda x, n: x)
_pminmax_jvp(pmax_p)
pmax = _reduction(pmax_p, "pmax")

pmin_p = _reduce_collective("pmin", "min", reduce_min_p, lambda x, n: x)
_pminmax_jvp(pmin_p)
pmin = _reduction(pmin_p, "pmin")

# --------------------------------------------------------------------- axis_index
axis_index_p = core.new_primitive("axis_index")


def _axis_index_lowering(ctx, *, axis_name):
    mesh = _manual((axis_name,))
    auto = shd.current_auto_axes()
    if mesh is not None and auto and mesh.shape[axis_name] == 1:   # (JAX's constant)
        return ctx.constant(np.asarray(0, np.int32), ShapedArray((), np.int32))
    if mesh is not None and auto:
        # partially manual (Shardy): the partition id is read in a nested computation
        # manual over the automatic axes too, as JAX lowers it
        devs = shd.current_assignment()
        rep = "#sdy.sharding_per_value<[" + shd.sdy_sharding(
            shd.NamedSharding(mesh, shd.PartitionSpec()), 0, devs) + "]>"
        names = ", ".join(f'"{a}"' for a in mesh.axis_names if a in auto)

        def body():
            with shd.manual_axes(mesh):
                return [_axis_index_lowering(ctx, axis_name=axis_name)]
        region = ctx.region([], body, terminator="sdy.return")
        return ctx.op1("sdy.manual_computation", [], attrs={
            "in_shardings": "#sdy.sharding_per_value<[]>", "out_shardings": rep,
            "manual_axes": f"#sdy<manual_axes{{{names}}}>"}, regions=[region])
    if mesh is not None:   # shard_map: look the partition's index up in a table
        devs = shd.current_assignment()
        table = shd.axis_index_table(mesh, axis_name, devs)
        t_aval = ShapedArray((len(devs),), np.int32)
        t = ctx.constant(table, t_aval)
        pid = ctx.op1("stablehlo.partition_id", [], ShapedArray((), np.uint32))
        i = ctx.op1("stablehlo.convert", [pid], ShapedArray((), np.int32))
        one = ctx.op1("stablehlo.dynamic_slice", [t, i], ShapedArray((1,), np.int32),
                      attrs={"slice_sizes": ctx.i64([1])})
        return ctx.op1("stablehlo.reshape", [one])
    _groups((axis_name,))
    rid = ctx.op1("stablehlo.replica_id", [], ShapedArray((), np.uint32))
    return ctx.op1("stablehlo.convert", [rid])


def _axis_index_batch(args, dims, *, axis_name):
    frame = core.axis_frame()
    if frame.name != axis_name:
        return bind(axis_index_p, axis_name=axis_name), None
    return bind(iota_p, dtype=dtypes.int32, shape=(frame.size,), dimension=0,
                sharding=None), 0


register(axis_index_p,
         abstract_eval=lambda *, axis_name: ShapedArray((), dtypes.int32),
         lowering=_axis_index_lowering, batch=_axis_index_batch)
axis_index_p.always_batch = True
nondiff(axis_index_p)


def axis_index(axis_name):
    """`lax.axis_index`: this lane's (device's) index along the named axis."""
    sizes = _check(axis_name)
    if isinstance(axis_name, (tuple, list)):
        if len(axis_name) != 1 and not _all_shard_map_axes(axis_name):
            raise AxisNameError("axis_index of several axes is supported inside "
                                "shard_map only", loc=caller_location())
        lax = lax_ops()   # the linear index, first name major, summed as JAX does (0 + ...)
        i, inner = np.int32(0), 1
        for n, k in zip(reversed(axis_name), reversed(sizes)):
            i = lax.add(i, lax.mul(bind(axis_index_p, axis_name=n), np.int32(inner)))
            inner *= k
        return i
    return bind(axis_index_p, axis_name=axis_name)


def axis_size(axis_name):
    """`lax.axis_size`: the (static) size of a named axis."""
    return int(np.prod(_check(axis_name)))

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


def _all_gather_lowering(ctx, x, *, all_gather_dimension, axis_name, axis_index_groups=None,
                         axis_size, tiled=False):
    attrs, _, _ = _collective_attrs(ctx, axis_name, axis_index_groups)
    aval = ctx.avals_in[0]
    d = all_gather_dimension
    if not tiled:  # gather along a new unit axis
        shape = list(aval.shape)
        shape.insert(d, 1)
        x = ctx.op1("stablehlo.reshape", [x], aval.update(shape=tuple(shape)))
    return ctx.op1("stablehlo.all_gather", [x], attrs={"all_gather_dim": f"{d} : i64", **attrs})


def _all_gather_jvp(primals, tangents, **params):
    out = bind(all_gather_p, *primals, **params)
    if is_zero(tangents[0]):
        return out, core.Zero(core.get_aval(bind(all_gather_p, *primals, **params)))
    return out, bind(all_gather_p, tangents[0], **params)


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name, axis_index_groups=None,
                          axis_size, tiled=False):
    """all_gather's transpose is `reduce_scatter` (JAX's: psum_scatter of the cotangent
    along the gathered dimension)."""
    if is_zero(ct):
        return [None]
    from .collectives_scatter import reduce_scatter_p   # (a later family)
    return [bind(reduce_scatter_p, ct, axis_name=_names(axis_name),
                 scatter_dimension=all_gather_dimension, axis_index_groups=axis_index_groups,
                 axis_size=axis_size, tiled=tiled)]


def _all_gather_batch(args, dims, *, all_gather_dimension, axis_name, axis_index_groups=None,
                      axis_size, tiled=False):
    frame = core.axis_frame()
    x, d = args[0], dims[0]
    names = _names(axis_name)
    params = dict(all_gather_dimension=all_gather_dimension, axis_name=axis_name,
                  axis_index_groups=axis_index_groups, axis_size=axis_size, tiled=tiled)
    if frame.name not in names:
        if d is None:
            return bind(all_gather_p, x, **params), None
        x = moveaxis(x, d, 0)
        params["all_gather_dimension"] = all_gather_dimension + 1
        return bind(all_gather_p, x, **params), 0
    if len(names) > 1:
        raise AxisNameError(
            "all_gather over several axes at once is not supported under vmap; "
            "gather one axis at a time")
    _no_vmap_groups(axis_index_groups, "axis_index_groups not supported in vmap")
    x = matchaxis(x, d, all_gather_dimension, frame.size)
    if tiled:
        a = core.get_aval(x)
        shape = list(a.shape)
        k = all_gather_dimension
        shape[k:k + 2] = [shape[k] * shape[k + 1]]
        x = lax_ops().reshape(x, tuple(shape))
    return x, None


register(all_gather_p, abstract_eval=_all_gather_ae, lowering=_all_gather_lowering,
         jvp=_all_gather_jvp, transpose=_all_gather_transpose, batch=_all_gather_batch)
all_gather_p.always_batch = True


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to="varying"):
    """`lax.all_gather`: every lane's `x` (with `axis_index_groups`, every lane's of
    this lane's group), stacked (or concatenated if `tiled`) along `axis`. `to` is the
    result's manual-axis type: ``'varying'`` (JAX's default) or ``'invarying'``
    (`collectives_typed.all_gather_invariant`) or ``'reduced'``
    (`collectives_typed.all_gather_reduced`)."""
    allowed = {"varying", "reduced", "invarying"}
    if to not in allowed:
        raise ArgumentValueError("Got unexpected `to` value for `jax.lax.all_gather`. "
                                 f"Allowed `to` values are: {allowed}", loc=caller_location())
    if to != "varying":
        if axis_index_groups is not None:   # JAX's own refusal
            raise NotImplementedError
        from .collectives_typed import all_gather_invariant, all_gather_reduced   # (later)
        return (all_gather_invariant if to == "invarying" else all_gather_reduced)(
            x, axis_name, axis=axis, tiled=tiled)
    groups = _index_groups(axis_index_groups)
    sizes = _check(axis_name)
    names = _names(axis_name)
    if len(sizes) != 1 and not _all_shard_map_axes(names):
        raise AxisNameError("all_gather over several axes at once is supported inside "
                            "shard_map only", loc=caller_location())
    name = names   # (a tuple, as JAX's param)
    size = int(np.prod(sizes)) if groups is None else len(groups[0])

    def gather(v):
        v = _varying(_leaf(v), names)
        nd = core.get_aval(v).ndim
        ax = axis % (nd if tiled else nd + 1) if (nd or not tiled) else axis
        return bind(all_gather_p, v, all_gather_dimension=int(ax), axis_name=name,
                    axis_index_groups=groups, axis_size=size, tiled=bool(tiled))
    return tree_util.tree_map(gather, x)

# ----------------------------------------------------------------------- ppermute
ppermute_p = core.new_primitive("ppermute")


def _ppermute_lowering(ctx, x, *, axis_name, perm):
    out = ctx.avals_out[0]
    if not perm:
        _collective_attrs(ctx, axis_name)
        return ctx.broadcast(ctx.constant(np.zeros((), out.dtype), out.update(shape=())),
                             out.update(shape=()), out)
    attrs, _, groups = _collective_attrs(ctx, axis_name)
    extra = {}
    if groups is None:
        pair_list = [(s, t) for s, t in perm]
    else:   # shard_map: the permutation within every group of partitions
        pair_list = [(g[s], g[t]) for g in groups for s, t in perm]
        extra = {"channel_handle": attrs["channel_handle"]}
    pairs = ", ".join(f"[{int(s)}, {int(t)}]" for s, t in pair_list)
    return ctx.op1("stablehlo.collective_permute", [x], attrs={
        "source_target_pairs": f"dense<[{pairs}]> : tensor<{len(pair_list)}x2xi64>", **extra})


def _ppermute_batch(args, dims, *, axis_name, perm):
    frame = core.axis_frame()
    x, d = args[0], dims[0]
    if frame.name not in _names(axis_name):
        return _rebind(ppermute_p, args, dims, dict(axis_name=axis_name, perm=perm))
    lax = lax_ops()
    n = frame.size
    x = matchaxis(x, d, 0, n)
    a = core.get_aval(x)
    src = np.zeros((n, 1), np.int32)
    recv = np.zeros((n,), bool)
    for s, t in perm:
        src[t, 0], recv[t] = s, True
    r = a.ndim - 1
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, r + 1)), collapsed_slice_dims=(0,),
                                start_index_map=(0,))
    out = bind(gather_p, x, src, dimension_numbers=dn, slice_sizes=(1,) + a.shape[1:],
               indices_are_sorted=False, unique_indices=False, mode=GatherScatterMode.CLIP,
               fill_value=None)
    if not recv.all():
        mask = lax.broadcast_in_dim(recv, a.shape, (0,))
        zeros = lax.full(a.shape, np.zeros((), a.dtype)[()], a.dtype)
        out = bind(select_n_p, mask, zeros, out)
    return out, 0


register(ppermute_p, abstract_eval=lambda x, *, axis_name, perm: x,
         lowering=_ppermute_lowering, batch=_ppermute_batch)
ppermute_p.always_batch = True
deflinear(ppermute_p, lambda ct, x, *, axis_name, perm: [
    None if is_zero(ct) else bind(ppermute_p, ct, axis_name=axis_name,
                                  perm=tuple((t, s) for s, t in perm))])


def ppermute(x, axis_name, perm):
    """`lax.ppermute`: lane `t` receives lane `s`'s `x` for each `(s, t)` in `perm`
    (zeros where no lane sends)."""
    sizes = _check(axis_name)
    name = _names(axis_name)   # (a tuple, as JAX's param)
    perm = tuple((int(s), int(t)) for s, t in perm)
    n = int(np.prod(sizes))
    srcs, dsts = [s for s, _ in perm], [t for _, t in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts) or any(
            not 0 <= i < n for i in srcs + dsts):
        raise AxisNameError(f"ppermute: perm {perm} is not a partial permutation of "
                            f"range({n})", hint="give each source and destination once",
                            loc=caller_location())
    return tree_util.tree_map(
        lambda v: bind(ppermute_p, _varying(_leaf(v), name), axis_name=name, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """`lax.pshuffle`: lane `i` receives lane `perm[i]`'s `x`."""
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))

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


def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_size,
                         axis_index_groups=None, tiled=False):
    attrs, m, groups = _collective_attrs(ctx, axis_name, axis_index_groups)
    attrs.pop("use_global_device_ids", None)   # (all_to_all has no such attribute)
    return ctx.op1("stablehlo.all_to_all", [x], attrs={
        "split_dimension": f"{int(split_axis)} : i64",
        "concat_dimension": f"{int(concat_axis)} : i64",
        "split_count": f"{int(m)} : i64", **attrs})


def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, **params):
    if is_zero(ct):
        return [None]
    return [bind(all_to_all_p, ct, split_axis=concat_axis, concat_axis=split_axis, **params)]


def _all_to_all_batch(args, dims, *, axis_name, split_axis, concat_axis, axis_size,
                      axis_index_groups=None, tiled=False):
    frame = core.axis_frame()
    x, d = args[0], dims[0]
    params = dict(axis_name=axis_name, split_axis=split_axis, concat_axis=concat_axis,
                  axis_size=axis_size, axis_index_groups=axis_index_groups, tiled=tiled)
    if frame.name not in _names(axis_name):
        if d is None:
            return bind(all_to_all_p, x, **params), None
        x = moveaxis(x, d, 0)
        params.update(split_axis=split_axis + 1, concat_axis=concat_axis + 1)
        return bind(all_to_all_p, x, **params), 0
    _no_vmap_groups(axis_index_groups, "Please open a feature request!")
    lax = lax_ops()
    n = frame.size
    x = matchaxis(x, d, 0, n)
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


# (printed as JAX's, whose all_to_all has no `axis_size`: see the module's docstring)
register(all_to_all_p, abstract_eval=_all_to_all_ae, lowering=_all_to_all_lowering,
         batch=_all_to_all_batch).pp_shown = shown_params(("axis_size",))
all_to_all_p.always_batch = True
deflinear(all_to_all_p, _all_to_all_transpose)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """`lax.all_to_all`: split `x` along `split_axis` into one chunk per lane, send
    chunk j to lane j, and concatenate what arrives along `concat_axis` (with
    `axis_index_groups`, within the lane's group)."""
    groups = _index_groups(axis_index_groups)
    sizes = _check(axis_name)
    name = _names(axis_name)[0]
    n = int(np.prod(sizes)) if groups is None else len(groups[0])
    lax = lax_ops()

    def a2a(v):
        v = _leaf(v)
        a = core.get_aval(v)
        sa, ca = split_axis % a.ndim, concat_axis % a.ndim
        if tiled:
            if a.shape[sa] % n:
                raise AxisNameError(f"all_to_all: split axis of size {a.shape[sa]} is not "
                                    f"divisible by the axis size {n}", loc=caller_location())
            return bind(all_to_all_p, _varying(v, name), axis_name=name, split_axis=sa,
                        concat_axis=ca, axis_size=n, axis_index_groups=groups, tiled=True)
        if a.shape[sa] != n:
            raise AxisNameError(f"all_to_all: the split axis has size {a.shape[sa]}, but the "
                                f"axis {name!r} has size {n}", loc=caller_location())
        if sa < ca:
            ca += 1
            v = lax.expand_dims(v, (ca,))
        elif sa > ca:
            v = lax.expand_dims(v, (ca,))
            sa += 1
        out = bind(all_to_all_p, _varying(v, name), axis_name=name, split_axis=sa,
                   concat_axis=ca, axis_size=n, axis_index_groups=groups, tiled=False)
        if sa != ca:
            out = lax.squeeze(out, (sa,))
        return out
    return tree_util.tree_map(a2a, x)


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """`lax.pswapaxes`: swap the mapped axis `axis_name` with the positional axis
    `axis` (whose size must be the axis size): an all-to-all splitting and
    concatenating along `axis`."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


COLLECTIVES = (psum_p, pmax_p, pmin_p, axis_index_p, all_gather_p, ppermute_p, all_to_all_p)
for _p in COLLECTIVES:  # the family's one shared fact, stated once
    mark_unsupported(_p, "impl", "a collective only means something under a mapped axis "
                     "(vmap/pmap); there is no single-array NumPy reference")
