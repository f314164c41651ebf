"""`astjax.pmap`: SPMD over several devices, on XLA's own replica runtime.

`pmap(f, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices)` stages
`f` once on the per-device avals (mapped axes removed, `axis_name` in scope for the
collectives of `astjax.lax`), lowers it to one StableHLO module with
`mhlo.num_replicas = N` (collectives become cross-replica ops, see
`primitives.collectives`) and runs it on N devices: replica i on device i.
The program carries a unit axis at each mapped argument's and result's device axis,
so each device's buffer is its block of the global array: results are GlobalArrays
(`codegen/sharded.py`) laid out as JAX 0.10.2 lays out pmap results,
`NamedSharding(Mesh(devices, (axis_name,)), P(..., axis_name))` (`P()` for
`out_axes=None`), and they (or any array already in that layout) feed the next
`pmap`, `jit` and eager operations without a host round trip. Compiled per input
signature and cached.

Staged inside another program (`jit` of a larger function, `grad`, `vmap`,
`make_jaxpr`), a pmap is a `shard_map` over a 1-D mesh of its devices, as JAX now
implements pmap, so those compositions are ordinary ones.

On the CPU, `ASTJAX_NUM_CPU_DEVICES=N` (set before astjax is imported) gives N
devices, so all of this runs without an accelerator.

The public `astjax.shard_map` is here too (`shard_map_public`): the primitive's
wrapper (`primitives/shard_map.py`) given what needs layouts known above the primitive
layer -- on a mesh whose axes are all Explicit an argument's layout is part of its
type (`codegen/explicit.py`), so its `in_specs` must match it (JAX's ValueError
otherwise) and, without `in_specs`, they are read from it.
"""
from __future__ import annotations

import functools

import numpy as np

from . import core, dtypes, tree_util, util
from .codegen import explicit, replicated, runtime, runtime_tokens, stablehlo
from .errors import (AstjaxError, ArgumentTypeError, ArgumentValueError, AxisNameError,
                     NotImplementedInAstjaxError, ShapeError, caller_location)
from .primitives import collectives as coll
from .primitives import collectives_p2p, effects
from .primitives.collectives_typed import pvary_p
from .primitives.base import lax_ops, moveaxis
from .primitives.shard_map import shard_map
from .sharding_impls import (AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec,
                       hlo_sharding)
from .codegen import sharded
from .codegen.runtime import xc
from .api import jit, devices as _devices_of
from .staging import (StagedCallable, as_callable, arg_hints, donated_leaves, leaf_labels,
                      mapped_leaves, stage_flat, wrapped_signature)
from .transforms.dce import dce_closed
from .transforms.discharge import discharge_closed
from .batching_api import _broadcast_prefix, _check_axes_spec
from .traceback_util import at_boundary as _at_boundary, boundary as _boundary

__all__ = ["pmap", "Pmapped", "shard_map_public"]


def _axis_names_of(eqn):
    p = eqn.params
    if "axes" in p:
        return tuple(p["axes"])
    n = p.get("axis_name")
    return tuple(n) if isinstance(n, (tuple, list)) else (n,)


def _check_collectives(jaxpr, axis_name):
    """Every collective left after staging must be over the pmap axis."""
    found = False
    for eqn in core.all_eqns(jaxpr):
        if eqn.primitive in coll.COLLECTIVES + collectives_p2p.P2P_COLLECTIVES + (pvary_p,):
            found = True
            bad = [n for n in _axis_names_of(eqn) if n != axis_name]
            if bad:
                raise AxisNameError(
                    f"`{eqn.primitive.name}` over axis {bad[0]!r}, but the enclosing pmap's "
                    f"axis is {axis_name!r}", loc=eqn.source_info)
    return found


class _Entry:
    """One compiled signature of a pmap. The program is staged with a unit axis at
    each mapped argument's and result's device axis (squeezed / expanded inside, a
    no-op for XLA), so that each device's buffer is exactly its block of the global
    array: results are GlobalArrays laid out as JAX 0.10.2 lays out pmap results
    (`NamedSharding(Mesh(devices, (axis_name,)), P(..., axis_name at out_axes))`),
    and such arrays feed the next pmap, `jit` and eager operations as they are."""

    def __init__(self, closed, out_tree, out_axes, in_dims, devs, axis_name, name, loc,
                 donated=()):
        # (closed-over values: constants of the module, as JAX's)
        program, embedded = stablehlo.embedded_constants(closed, runtime.ONE_DEVICE)
        jaxpr = program.jaxpr
        n = len(devs)
        has_collectives = _check_collectives(jaxpr, axis_name)
        effects.check_devices(jaxpr, n, loc)   # (JAX's refusal of an ordered debug print)
        # an ordered io_callback: its token threaded, the runtime token passed call to
        # call (one empty buffer per device), as a partitioned jit's
        self.ordered = effects.ordered_effects(jaxpr)
        toks = [runtime_tokens.EMPTY] * len(self.ordered)
        nconst = len(jaxpr.constvars)
        with core.extend_axis_env(axis_name, n, kind="pmap"):
            # donated leaves: `jax.buffer_donor` parameters, whose buffers PJRT takes
            # over (the arrays passed are deleted, as in JAX)
            self.text = stablehlo.lower_module(jaxpr, name=f"pmap_{name}", num_replicas=n,
                                               donated={i + nconst for i in donated},
                                               ordered=self.ordered, embedded=embedded)
        self.closed, self.out_tree, self.devices = closed, out_tree, tuple(devs)
        self.in_avals = [v.aval for v in jaxpr.invars]        # per device, unit axes
        self.in_dims = list(in_dims)
        in_avals = [v.aval for v in jaxpr.constvars] + self.in_avals
        out_avals = [a.aval for a in jaxpr.outvars]
        try:
            self.executable = replicated.ReplicatedExecutable(
                self.text, toks + in_avals, toks + out_avals, devs,
                [None] * (len(toks) + len(out_avals)), sync=has_collectives)
        except Exception as e:
            if isinstance(e, AstjaxError):
                raise
            raise NotImplementedInAstjaxError(f"XLA could not compile this pmap: {e}",
                                              loc=loc) from None
        self.const_arrays = [replicated.put_sharded(np.asarray(c), core.get_aval(c), devs,
                                                    None)
                             if not isinstance(c, core.Tracer) else None
                             for c in program.consts]
        self.mesh = pmap_mesh(devs, axis_name)
        self.in_layouts = [self._layout(a, d) for a, d in zip(self.in_avals, self.in_dims)]
        self.out_layouts = [self._layout(a, ax) for a, ax in zip(out_avals, out_axes)]
        self.handlers = runtime_tokens.token_handlers(len(toks), self.devices) + [
            xc.array_result_handler(g, sharded.xla_sharding(devs, hlo), committed=True,
                                    _skip_checks=True) for g, _, hlo in self.out_layouts]

    def _layout(self, aval, d):
        """(global aval, NamedSharding, hlo text) of a per-device value `aval` whose
        unit axis `d` is the device axis (None: replicated)."""
        shape = list(aval.shape)
        name = self.mesh.axis_names[0]
        if d is None:
            spec = PartitionSpec()
        else:
            shape[d] = len(self.devices)
            spec = PartitionSpec(*([None] * d + [name]))
        g = core.ShapedArray(tuple(shape), aval.dtype, aval.weak_type)
        s = NamedSharding(self.mesh, spec)
        return g, s, hlo_sharding(s, g.ndim, self.devices)

    def _argument(self, x, aval, d, layout):
        """One argument as a multi-device jaxlib array (one buffer per device)."""
        devs = self.devices
        if isinstance(x, sharded.GlobalArray) and x._devices == devs and x.aval.shape == \
                layout[0].shape and x.aval.dtype == aval.dtype and (
                    x._sharding == layout[1]
                    or hlo_sharding(x._sharding, x.ndim, devs) == layout[2]):
            return x.on_devices(devs)   # already laid out as the program needs: no copy
        v = np.asarray(x, aval.dtype)
        parts = [v] * len(devs) if d is None else \
            [np.take(v, [i], d) for i in range(len(devs))]
        bufs = [runtime.put_host(p, aval, dev) for p, dev in zip(parts, devs)]
        return xc.ArrayImpl(layout[0], sharded.xla_sharding(devs, layout[2]), bufs,
                            committed=True, _skip_checks=True)

    def run(self, leaves, dims):
        arrays = list(self.const_arrays)
        for x, d, aval, layout in zip(leaves, self.in_dims, self.in_avals, self.in_layouts):
            arrays.append(self._argument(x, aval, d, layout))
        ex, nt = self.executable, len(self.ordered)
        if nt:
            arrays = runtime_tokens.token_inputs(self.ordered, self.devices) + arrays
        outs = ex.exe.execute_sharded(arrays).consume_with_handlers(self.handlers)
        if ex.sync:
            for o in outs:
                o.block_until_ready()
        if nt:
            runtime_tokens.keep_tokens(self.ordered, outs[:nt], self.devices)
            outs = outs[nt:]
        res = [sharded.GlobalArray(o, g, s, self.devices)
               for o, (g, s, _) in zip(outs, self.out_layouts)]
        return tree_util.tree_unflatten(self.out_tree, res)


#: JAX's name of the mesh axis of a pmap without `axis_name`
INTERNAL_AXIS = "_internal_pmap_axis_name"


def _check_not_nested(mesh, loc):
    """JAX 0.10.2's error for a pmap inside another pmap (or a shard_map): its
    shard_map's mesh is not the context mesh, whose axes are Manual there."""
    frames = core.axis_frames("pmap") + core.axis_frames("shard_map")
    if frames:
        kind = mesh.abstract_mesh._kind
        outer = AbstractMesh([f.size for f in frames], [f.name for f in frames],
                             [AxisType.Manual] * len(frames), _kind=kind)
        raise ArgumentValueError(f"The context mesh {outer!r} should match the mesh passed "
                                 f"to shard_map {mesh!r}", loc=loc,
                                 hint="nested pmap is not supported (as in JAX 0.10.2): "
                                      "use one pmap over a flattened axis, or shard_map "
                                      "over a 2-D mesh")


def pmap_mesh(devs, axis_name):
    """The 1-D mesh of a pmap's results (JAX 0.10.2: an Auto axis named after the
    pmap's axis_name, `_internal_pmap_axis_name` without one)."""
    name = INTERNAL_AXIS if axis_name is None else axis_name
    return Mesh(np.array(devs, dtype=object), (name,))


class Pmapped(StagedCallable):
    """`pmap(f, ...)`."""
    _jit_is_identity = True   # `jit(pmap(f))` returns the pmap (see api.jit)

    def __init__(self, fun, axis_name=None, in_axes=0, out_axes=0,
                 static_broadcasted_argnums=(), devices=None, donate_argnums=(), *,
                 backend=None, axis_size=None):
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        _check_axes_spec(in_axes, "in_axes")
        _check_axes_spec(out_axes, "out_axes")
        self.fun, self.axis_name = fun, axis_name
        self.in_axes, self.out_axes = in_axes, out_axes
        s = static_broadcasted_argnums
        self.static_argnums = frozenset((s,) if isinstance(s, int) else tuple(s or ()))
        self.devices = None if devices is None else tuple(devices)
        self.backend, self.axis_size = backend, axis_size
        d = donate_argnums
        self.donate_argnums = frozenset((d,) if isinstance(d, int) else tuple(d or ()))
        if self.donate_argnums & self.static_argnums:
            raise ValueError(f"`static_argnums` {sorted(self.static_argnums)} and "
                             f"`donate_argnums` {sorted(self.donate_argnums)} cannot intersect.")
        self._cache: dict = {}
        self._fast: dict = {}
        self._global_fns: dict = {}   # multi-process: signature -> jitted global program
        util.wraps_function(self, fun)

    def __repr__(self):
        return f"pmap({getattr(self.fun, '__name__', self.fun)!s})"

    __signature__ = property(wrapped_signature)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    @_boundary
    def __call__(self, *args, **kwargs):
        if core.current_builder() is not None:
            return self.stage_inline(*args, **kwargs)
        if self.devices is None and len(runtime.global_devices()) > len(runtime.devices()):
            return self._across_processes(args, kwargs)
        # Fast path: top-level array arguments of a signature seen before (no pytree
        # flattening, no staging-cache key); see `_fast_sig`.
        sig = None
        if not kwargs and not self.static_argnums:
            try:
                sig = (_x64[0]["jax_enable_x64"], *map(_fast_sig, args))
            except _NoFastPath:
                sig = None
            else:
                hit = self._fast.get(sig)
                if hit is not None:
                    return hit[0].run(args, hit[1])
        try:
            entry, leaves, dims = self._entry(args, kwargs)
        except Exception as e:   # (filtered here, if this is the outermost boundary)
            _at_boundary(e)
            raise
        if sig is not None and len(leaves) == len(args):
            if len(self._fast) > 1024:
                self._fast.clear()
            self._fast[sig] = (entry, dims)
        return entry.run(leaves, dims)

    def _across_processes(self, args, kwargs):
        """A pmap in a multi-process job (astjax.distributed): each process passes
        its local slice of the mapped axis (one entry per local device) and gets its
        local slice of the results, as in JAX. Run as one partitioned program over
        every device of the job: the mapped arguments become global arrays laid out
        over a 1-D mesh, and the body is the pmap staged as a shard_map."""
        loc = caller_location()
        if self.out_axes != 0 or kwargs or self.donate_argnums:
            raise NotImplementedInAstjaxError(
                "pmap across processes supports out_axes=0 and positional arguments only, "
                "without donate_argnums", loc=loc)
        devs = tuple(runtime.global_devices())
        name = INTERNAL_AXIS if self.axis_name is None else self.axis_name
        mesh = Mesh(np.array(devs, dtype=object), (name,))
        _check_not_nested(mesh, loc)
        dyn_args, statics = self._split(args)
        dims = self._in_dims(dyn_args, {}, {i for i, _ in statics}, loc)
        leaves, in_tree = tree_util.flatten_for_staging((tuple(dyn_args), {}))
        glob = []
        for x, d in zip(leaves, dims):
            if d is None:
                glob.append(sharded.put(x, NamedSharding(mesh, PartitionSpec())))
            else:
                v = np.moveaxis(np.asarray(x), d, 0)
                glob.append(sharded.make_array_from_process_local_data(
                    NamedSharding(mesh, PartitionSpec(name)), v))
        key = (in_tree, tuple(dims), statics)
        fn = self._global_fns.get(key)
        if fn is None:
            axes = tree_util.tree_unflatten(tree_util.tree_structure(tuple(dyn_args)),
                                            [None if d is None else 0 for d in dims])

            def global_fn(*flat):
                a, _ = tree_util.tree_unflatten(in_tree, flat)
                clone = Pmapped(self._rebuild(statics), name, in_axes=axes, devices=devs)
                return clone.stage_inline(*a)
            fn = self._global_fns[key] = jit(global_fn)
        outs, out_tree = tree_util.flatten_for_staging(fn(*glob))
        local_devs = sharded.local(devs)
        local_mesh = Mesh(np.array(local_devs, dtype=object), (name,))
        res = []
        for o in outs:
            shape = (len(local_devs),) + tuple(o.shape[1:])
            aval = core.ShapedArray(shape, o.dtype, o.weak_type)
            res.append(sharded.assemble(aval, NamedSharding(local_mesh, PartitionSpec(name)),
                                        o._buffers() if hasattr(o, "_buffers") else [o._buf],
                                        local_devs))
        return tree_util.tree_unflatten(out_tree, res)

    def _as_jit(self, args, kwargs):
        """The pmap as a `jit` of a function that stages it inline (a shard_map over
        its devices), as JAX lowers `pmap(f)` and `jit(pmap(f))`: module `jit__fun`,
        positional arguments laid out along their mapped axis over the pmap's devices
        (and results, for `out_axes=0`)."""
        def _fun(*a, **kw):
            return self.stage_inline(*a, **kw)
        _fun.__wrapped__ = self.fun
        statics = tuple(sorted(self.static_argnums))
        if kwargs or statics:
            return jit(_fun, static_argnums=statics)
        loc = caller_location()
        dyn_args, _, leaves, _, _, norm, _, devs = self._mapped(args, kwargs, loc)
        name = INTERNAL_AXIS if self.axis_name is None else self.axis_name
        mesh = Mesh(np.array(devs, dtype=object), (name,))
        layouts = [NamedSharding(mesh, PartitionSpec() if d is None else
                                 PartitionSpec(*[None] * d, name)) for d in norm]
        ins = tree_util.tree_unflatten(tree_util.tree_structure(tuple(dyn_args)), layouts)
        outs = NamedSharding(mesh, PartitionSpec(name)) if self.out_axes == 0 else None
        return jit(_fun, in_shardings=ins, out_shardings=outs)

    def lower(self, *args, **kwargs):
        """`Lowered` (as JAX's `pmap(f).lower(...)` / `jit(pmap(f)).lower(...)`): the
        partitioned StableHLO module of the pmap over its devices."""
        return self._as_jit(args, kwargs).lower(*args, **kwargs)

    def trace(self, *args, **kwargs):
        """`Traced`: the jaxpr of the pmap for these arguments (a shard_map)."""
        return self._as_jit(args, kwargs).trace(*args, **kwargs)

    def stage_inline(self, *args, **kwargs):
        """Inside another program (jit of a larger function, grad, make_jaxpr) a pmap
        is a `shard_map` over a 1-D mesh of its devices, as JAX now implements pmap:
        each mapped argument is split along its mapped axis (moved to the front),
        the body runs on one slice per device with `axis_name` bound, and the
        results are stacked along `out_axes` (`None`: device 0's value)."""
        loc = caller_location()
        lax = lax_ops()
        dyn_args, statics, leaves, in_tree, avals, norm, n, devs = self._mapped(args, kwargs, loc)
        # (JAX 0.10.2 names the axis of a pmap without axis_name `_internal_pmap_axis_name`)
        name = INTERNAL_AXIS if self.axis_name is None else self.axis_name
        mesh = Mesh(np.array(devs, dtype=object), (name,))
        _check_not_nested(mesh, loc)
        moved = [x if d in (None, 0) else moveaxis(x, d, 0) for x, d in zip(leaves, norm)]
        fun = self._rebuild(statics)
        out_tree = [None]

        def body(*local):
            vals = [x if d is None else lax.squeeze(x, (0,)) for x, d in zip(local, norm)]
            a, kw = tree_util.tree_unflatten(in_tree, vals)
            outs, out_tree[0] = tree_util.flatten_for_staging(as_callable(fun)(*a, **kw))
            # (JAX's expand_dims: a broadcast_in_dim; a Python scalar result too)
            return [lax.broadcast_in_dim(o, (1, *np.shape(o)), tuple(range(1, np.ndim(o) + 1)))
                    for o in outs]
        specs = tuple(PartitionSpec() if d is None else PartitionSpec(name) for d in norm)
        outs = shard_map(body, mesh=mesh, in_specs=specs, out_specs=PartitionSpec(name),
                         check_vma=False)(*moved)
        tree = tree_util.tree_unflatten(out_tree[0], list(range(len(outs))))
        axes = _broadcast_prefix(self.out_axes, tree, "out_axes", loc)
        res = [lax.index_in_dim(o, 0, 0, keepdims=False) if ax is None else
               o if ax % o.ndim == 0 else moveaxis(o, 0, ax % o.ndim)
               for o, ax in zip(outs, axes)]
        return tree_util.tree_unflatten(out_tree[0], res)

    # -- staging ------------------------------------------------------------------

    def _split(self, args):
        dyn, statics = [], []
        for i, a in enumerate(args):
            if i in self.static_argnums:
                statics.append((i, a))
            else:
                dyn.append(a)
        return dyn, tuple(statics)

    def _rebuild(self, statics):
        fun = self.fun
        if not statics:
            return fun

        def with_statics(*dyn, **kw):
            args = list(dyn)
            for i, v in sorted(statics):
                args.insert(i, v)
            return as_callable(fun)(*args, **kw)
        with_statics.__wrapped__ = fun
        return with_statics

    def _in_dims(self, dyn_args, kwargs, static_pos, loc):
        in_axes = self.in_axes
        if isinstance(in_axes, tuple):
            n_all = len(dyn_args) + len(static_pos)
            if len(in_axes) == n_all and static_pos:  # entries for static args: drop them
                in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static_pos)
            if len(in_axes) != len(dyn_args):
                raise ArgumentValueError(
                    f"pmap in_axes must be an int, None, or a tuple with one entry per "
                    f"positional argument, but got len(in_axes)={len(self.in_axes)} for "
                    f"{n_all} arguments", hint="give one in_axes entry per positional argument",
                    loc=loc)
            dims = _broadcast_prefix(in_axes, tuple(dyn_args), "in_axes", loc)
        elif isinstance(in_axes, dict):
            raise ArgumentTypeError("pmap in_axes must be an int, None, or a tuple, got a dict",
                                    hint="wrap it in a tuple: in_axes=({...},)", loc=loc)
        else:
            dims = [in_axes] * len(tree_util.tree_leaves(tuple(dyn_args)))
        return dims + [0] * len(tree_util.tree_leaves(kwargs))

    def _devices_for(self, n, sizes, loc):
        if self.devices is not None:
            if len(self.devices) != n:
                raise ShapeError(
                    f"pmap was given {len(self.devices)} devices, but the mapped axis has "
                    f"size {n}: " + _sizes_text(sizes),
                    hint="the mapped (leading) axis needs one entry per device", loc=loc)
            return self.devices
        avail = runtime.devices()
        if self.backend is not None:   # (JAX's RuntimeError for a platform not present)
            avail = _devices_of(self.backend)
        if n > len(avail):
            raise ArgumentValueError(
                f"pmap over an axis of size {n} needs {n} devices, but only {len(avail)} "
                f"{'is' if len(avail) == 1 else 'are'} available ({avail[0].platform}): "
                + _sizes_text(sizes),
                hint=("on the CPU, set the environment variable ASTJAX_NUM_CPU_DEVICES="
                      f"{n} before importing astjax; or split the batch into "
                      f"{len(avail)} along the mapped axis"), loc=loc)
        return tuple(avail[:n])

    def _mapped(self, args, kwargs, loc):
        """The call's arguments checked and split: (dynamic args, statics, leaves,
        in_tree, leaf avals, normalized mapped axes, mapped size, devices)."""
        dyn_args, statics = self._split(args)
        static_pos = {i for i, _ in statics}
        dims = self._in_dims(dyn_args, kwargs, static_pos, loc)
        leaves, in_tree = tree_util.flatten_for_staging((tuple(dyn_args), kwargs))
        names = leaf_labels(self.fun, dyn_args, kwargs)
        avals, norm, sizes = mapped_leaves(
            "pmap", leaves, dims, names, loc,
            "use in_axes=None for arguments that every device gets whole")
        if not sizes:
            raise ArgumentValueError("pmap requires at least one argument with a mapped axis.",
                                     hint="map at least one argument, e.g. in_axes=0", loc=loc)
        if len({s for *_, s in sizes}) > 1:
            raise ShapeError("pmap got different sizes for the axes to be mapped: "
                             + _sizes_text(sizes),
                             hint="every mapped argument needs the same size along its mapped "
                                  "axis (one entry per device)", loc=loc)
        n = sizes[0][3]
        if self.axis_size is not None and self.axis_size != n:
            raise ArgumentValueError(f"Specified axis_size {self.axis_size} doesn't match "
                                     f"received axis_size {n}.", loc=loc,
                                     hint="axis_size must be the mapped arguments' size "
                                          "(one process), or leave it out")
        return dyn_args, statics, leaves, in_tree, avals, norm, n, self._devices_for(n, sizes, loc)

    def _entry(self, args, kwargs):
        loc = caller_location()
        dyn_args, statics, leaves, in_tree, avals, norm, n, devs = self._mapped(args, kwargs, loc)
        try:
            key = (statics, in_tree, tuple(avals), tuple(norm),
                   tuple(d.id for d in devs), dtypes.config.x64_enabled)
            entry = self._cache.get(key)
        except TypeError:
            raise ArgumentValueError("static_broadcasted_argnums arguments must be hashable, got "
                                     + ", ".join(type(v).__name__ for _, v in statics),
                                     loc=loc) from None
        if entry is None:
            shard_avals = [a if d is None else
                           a.update(shape=a.shape[:d] + a.shape[d + 1:])
                           for a, d in zip(avals, norm)]
            hints = arg_hints(self.fun, dyn_args, kwargs) if not statics else None
            name = INTERNAL_AXIS if self.axis_name is None else self.axis_name   # (JAX's)
            with core.extend_axis_env(name, n, kind="pmap"):
                closed, out_tree = stage_flat(self._rebuild(statics), in_tree, shard_avals,
                                              hints)
            closed = discharge_closed(closed, "pmap")   # mutable references -> values
            out_axes = self._out_axes(closed, out_tree, loc)
            with core.extend_axis_env(name, n, kind="pmap"):
                closed = _with_unit_axes(closed, norm, out_axes)
            closed = dce_closed(closed)
            entry = _Entry(closed, out_tree, out_axes, norm, devs, name,
                           getattr(self.fun, "__name__", "fn"), loc,
                           donated_leaves(self.donate_argnums, dyn_args, statics))
            self._cache[key] = entry
        return entry, leaves, norm

    def _out_axes(self, closed, out_tree, loc):
        outs = closed.jaxpr.outvars
        tree = tree_util.tree_unflatten(out_tree, list(range(len(outs))))
        axes = _broadcast_prefix(self.out_axes, tree, "out_axes", loc)
        norm = []
        for a, ax in zip(outs, axes):
            if ax is None:
                norm.append(None)
                continue
            nd = a.aval.ndim + 1
            if not -nd <= ax < nd:
                raise ShapeError(f"pmap out_axes={ax} is out of bounds for an output of rank "
                                 f"{nd}", loc=loc)
            norm.append(ax % nd)
        return norm


# JAX's name for the type of `pmap(f)`: libraries test it (chex's `is_traceable`)
Pmapped.__name__ = Pmapped.__qualname__ = "PmapFunction"
PmapFunction = Pmapped


def _with_unit_axes(closed, in_dims, out_axes):
    """`closed` (staged on per-device avals) as a program whose mapped arguments and
    results carry a unit axis at the device axis: each device's buffer is then its
    block of the global array."""
    lax = lax_ops()
    jaxpr = closed.jaxpr
    avals = [v.aval if d is None else
             v.aval.update(shape=v.aval.shape[:d] + (1,) + v.aval.shape[d:])
             for v, d in zip(jaxpr.invars, in_dims)]

    def body(*xs):
        vals = [x if d is None else lax.squeeze(x, (d,)) for x, d in zip(xs, in_dims)]
        outs = core.inline_jaxpr(jaxpr, closed.consts, vals)
        return [o if ax is None else lax.expand_dims(o, (ax,))
                for o, ax in zip(outs, out_axes)]
    return core.stage(body, avals)


class _NoFastPath(Exception):
    pass


_x64 = (dtypes.config._values,)


def _fast_sig(a):
    """A hashable signature of one top-level array argument, by value (never by id:
    avals of GlobalArrays are not interned)."""
    t = type(a)
    if t is sharded.GlobalArray:
        return (t, a.aval)
    if t is runtime.Array:
        return (t, a.aval)
    if t is np.ndarray:
        return (t, a.shape, a.dtype)
    if t is float or t is int or t is bool:
        return t
    raise _NoFastPath


def _sizes_text(sizes):
    return "; ".join(f"argument {n} of shape {sh} has size {s} along axis {d}"
                     for n, sh, d, s in sizes)


def pmap(fun=None, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Parallel map over devices: `pmap(f)(xs)` runs `f` on slice i of `xs` (along the
    mapped axis) on device i, as one SPMD program; collectives over `axis_name`
    (`lax.psum`, `pmean`, `all_gather`, ...) communicate between the devices.
    `backend` ('cpu', 'gpu', ...) picks the devices of that platform (unless
    `devices` are given); `axis_size`, in one process, must be the mapped size of
    the arguments (JAX's ValueError otherwise; an argument must still be mapped)."""
    if fun is None:
        return functools.partial(pmap, axis_name=axis_name, in_axes=in_axes,
                                 out_axes=out_axes,
                                 static_broadcasted_argnums=static_broadcasted_argnums,
                                 devices=devices, backend=backend, axis_size=axis_size,
                                 donate_argnums=donate_argnums)
    if not callable(fun):
        raise ArgumentTypeError(f"pmap needs a function, got {type(fun).__name__}",
                                loc=caller_location())
    if devices is not None:
        devices = tuple(devices)
        if not devices:
            raise ArgumentValueError("'devices' argument to pmap must be non-empty, or None.",
                                     loc=caller_location())
    return Pmapped(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices,
                   donate_argnums, backend=backend, axis_size=axis_size)


def shard_map_public(f=None, /, *, out_specs, in_specs=None, mesh=None,
                     axis_names=frozenset(), check_vma=True):
    """`jax.shard_map(f, mesh=, in_specs=, out_specs=, axis_names=, check_vma=)`: run
    `f` once per device of `mesh` on that device's shard of each argument, the mesh
    axes bound as named axes for the collectives; on an all-Explicit mesh the
    arguments' layouts must be their in_specs, and give them when omitted."""
    return shard_map(f, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                     axis_names=axis_names, check_vma=check_vma,
                     layout_of=explicit.layout_of)


class _Infer:
    """smap's default `in_axes`: inferred from the arguments' layouts."""

    def __repr__(self):
        return "Infer"


_INFER = _Infer()


def smap(f=None, /, *, in_axes=_INFER, out_axes, axis_name):
    """`jax.smap`: `shard_map` over the one mesh axis `axis_name` of the context mesh
    (`set_mesh`), with vmap-style axes: argument axis `in_axes` (an int, None for
    replicated, a tuple per argument; left out: inferred from the arguments' layouts
    on an Explicit mesh) is split over the devices along `axis_name`, and each
    result's `out_axes` axis is where the shards are put back together."""
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got "
                        f"{axis_name}")
    if in_axes is not None and in_axes is not _INFER and not isinstance(in_axes, (int, tuple)):
        raise TypeError("smap in_axes must be an int, None, or a tuple of entries "
                        "corresponding to the positional arguments passed to the function, "
                        f"but got {in_axes}.")
    for what, axes in (("in_axes", None if in_axes is _INFER else in_axes),
                       ("out_axes", out_axes)):
        if not all(isinstance(a, int) for a in tree_util.tree_leaves(axes)):
            raise TypeError(f"smap {what} must be an int, None, or (nested) container "
                            f"with those types as leaves, but got {axes}.")

    def spec(axis):
        return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)
    specs = lambda axes: tree_util.tree_map(spec, axes, is_leaf=lambda a: a is None)  # noqa: E731
    return shard_map_public(f, in_specs=None if in_axes is _INFER else specs(in_axes),
                            out_specs=specs(out_axes), axis_names={axis_name})
