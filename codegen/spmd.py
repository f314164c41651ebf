"""Partitioned programs: one global program, split over a mesh's devices by XLA's
SPMD partitioner (sharded `jit`, eager operations on sharded arrays).

astjax does not partition anything itself. It

1. lowers the jaxpr once, globally, annotating arguments and results with the
   layouts the user asked for (or those of the sharded arguments, or their
   Explicit types, `codegen/explicit.py`) and leaving the rest to XLA's
   propagation; constraints and `shard_map`s inside lower through their own rules
   with the program's device assignment in scope (`sharding.lowering_assignment`);
2. compiles it with `use_spmd_partitioning`, `num_partitions = N` and the device
   assignment [[d_0 .. d_N-1]] (partition i runs on d_i), letting XLA choose the
   layout of every unannotated argument and result;
3. reads the chosen layouts back from the executable (`get_parameter_shardings`,
   `get_output_shardings`) and turns them into NamedShardings over the program's
   mesh (`sharding.named_from_tiles`), so results carry the `.sharding` and the
   per-shard index ranges JAX gives them;
4. runs it on per-device buffers: each argument laid out as its parameter's
   layout (`codegen.sharded`), results wrapped as `GlobalArray`s. A program with
   ordered effects (an ordered `io_callback`) takes and returns their tokens first,
   as JAX's: replicated, one empty buffer per device, passed on from program to
   program (`codegen/runtime_tokens.py`).

Two lowerings, as in JAX 0.10.2: Shardy (the default, `jax_use_shardy_partitioner`):
`sdy.mesh` symbols, `sdy.sharding` attributes, `sdy.sharding_constraint`,
`sdy.manual_computation`, compiled with `use_shardy_partitioner`; and GSPMD (the
flag off): `mhlo.sharding` strings and the `Sharding` / `SPMDFullToShardShape`
custom calls. Both give the layouts recorded from JAX (tests/test_shardy.py runs
every recorded case under GSPMD too).
"""
from __future__ import annotations

import copy

import numpy as np

from astjax import core, tree_util
from astjax.config import config
from astjax import sharding_impls as shd
from astjax.core import ShapedArray
from astjax.ir import memory_space_rule
from astjax.errors import (ArgumentTypeError, ArgumentValueError, NotImplementedInAstjaxError,
                           caller_location)
from astjax.primitives import effects
from astjax.primitives.device_put import device_put_p
from astjax.primitives.ffi_call import Token
from astjax.primitives.shard_map import SPMD_PRIMITIVES, platform_index_operand, shard_map_p
from astjax.primitives.spmd import (check_sharding_fits, constrain_layouts, is_partial,
                                    is_layout, layouts_per_leaf, resolve_sharding)

from . import explicit, host_sharded, runtime, sharded, stablehlo
from .spmd_devices import (IncompatibleDevices, RefusedEntry, check_context_devices,
                           check_placed, check_types_placed, kept_layouts, leaf_names,
                           mesh_and_devices, over_mesh)
from .runtime_tokens import EMPTY, keep_tokens, replicated_over, token_handlers, token_inputs
from . import explicit_control  # noqa: F401 -- registers explicit.NESTED's rules
from .explicit_constraints import constrain_typed, constrain_unreduced, out_sharding
from .explicit_types import OneDeviceTyped
from .runtime import xc

__all__ = ["SpmdExecutable", "SpmdEntry", "needs_spmd", "layouts_of", "eager_apply",
           "eager_context", "replicated",
           "check_jit_shardings", "call_layouts", "partitioned", "jit_entry", "constrain_inline",
           "sharding_attr", "shardy"]


def spmd_shardings_in(jaxpr):
    """The shardings named by the partitioning primitives of `jaxpr` (nested too)
    and by the `out_sharding` of its operations."""
    out = []
    for eqn in core.all_eqns(jaxpr):
        if eqn.primitive in SPMD_PRIMITIVES:
            s = eqn.params.get("sharding")
            if s is not None:
                out.append(s)
            m = eqn.params.get("mesh")
            if m is not None:
                out.append(shd.NamedSharding(m, shd.PartitionSpec()))
        elif out_sharding(eqn) is not None:
            out.append(out_sharding(eqn))
        else:
            out += _placed_on_one(eqn)
    return out


def _placed_on_one(eqn):
    """The SingleDeviceShardings a `device_put` inside the program names: JAX runs the
    program on that device (its ValueError when the rest is elsewhere); a bare Device
    there it ignores."""
    if eqn.primitive is not device_put_p:
        return []
    return [d for d in eqn.params["devices"] if isinstance(d, shd.SingleDeviceSharding)]


def needs_spmd(jaxpr) -> bool:
    """Whether `jaxpr` contains a partitioning primitive, an operation that lays
    its result out (`out_sharding`) or a `device_put` to a SingleDeviceSharding."""
    return any(eqn.primitive in SPMD_PRIMITIVES or out_sharding(eqn) is not None
               or _placed_on_one(eqn) for eqn in core.all_eqns(jaxpr))


def layouts_of(leaves):
    """Per leaf: its sharding when it is a GlobalArray, its type's when it is a
    OneDeviceTyped, else None (a cache-key part)."""
    return tuple(x._sharding if type(x) is sharded.GlobalArray else x.type_sharding
                 if type(x) is OneDeviceTyped else None for x in leaves)


def _typed(sharding, aval, mesh):
    """On a mesh with Explicit axes the layout is part of the value's type, whose spec
    JAX writes with one entry per dimension (`P(None, None)`, not `P()`)."""
    if explicit.is_explicit(mesh):
        spec = sharding.spec._normalized(aval.ndim)
        return shd.NamedSharding(mesh, shd.PartitionSpec(*spec))
    return sharding


def replicated(mesh, aval):
    """A value of `aval` replicated over `mesh`, as its type writes it (`P(None, ...)` on
    Explicit axes, `P()` otherwise): where `set_mesh` puts results no layout names."""
    return _typed(shd.NamedSharding(mesh, shd.PartitionSpec()), aval, mesh)


_WHOLE = object()   # the layout of every value of a one-device program


def _from_xla(op, aval, mesh, devs):
    """An OpSharding read from an executable -> an astjax sharding over `mesh` (None:
    a one-device program whose layouts are SingleDeviceShardings)."""
    if mesh is None:
        return shd.SingleDeviceSharding(devs[0])
    if op is _WHOLE:
        return _typed(shd.NamedSharding(mesh, shd.PartitionSpec()), aval, mesh)
    h = xc.HloSharding.from_proto(op)
    if h.is_replicated():
        return _typed(shd.NamedSharding(mesh, shd.PartitionSpec()), aval, mesh)
    if h.is_maximal():   # (a host callback's result: on one device, JAX's GSPMDSharding)
        return sharded.GSPMDSharding(devs, str(h))
    if h.is_tiled() and len(h.subgroup_types()) <= 1:
        out = shd.named_from_tiles(mesh, aval.ndim, h.tile_assignment_dimensions(),
                                   h.tile_assignment_devices(), h.replicate_on_last_tile_dim(),
                                   devs)
        if out is not None:
            return _typed(out, aval, mesh)
    raise NotImplementedInAstjaxError(
        f"XLA laid a value of shape {aval.shape} out as {h}, which no PartitionSpec over "
        f"the mesh {mesh!r} describes", hint="constrain it with with_sharding_constraint "
                                             "or out_shardings")


_COLLECTIVE_OPS = ("all-reduce", "all-gather", "collective-permute", "all-to-all",
                   "reduce-scatter", "collective-broadcast")


class SpmdExecutable:
    """A program partitioned over `devs` (see the module docstring). `in_shardings`
    / `out_shardings`: per argument / result, the sharding to annotate, or None to
    let XLA choose. `mesh` names the layouts read back. `compiler_options`: `jit`'s
    (name, value) pairs, set on the compile options as for one device."""

    def __init__(self, text, in_avals, out_avals, devs, mesh, in_shardings, out_shardings,
                 sdy=False, compiler_options=(), out_kinds=None, ordered=(), kept=None):
        self.module_text, self.devices, self.mesh = text, tuple(devs), mesh
        out_kinds = out_kinds or [None] * len(out_avals)   # (codegen/host_sharded.py)
        # (a token parameter / result: PJRT's empty bool[0] buffer on each device)
        self.tokens = [_is_token(a) for a in out_avals]
        self.in_avals = [EMPTY if _is_token(a) else a for a in in_avals]
        self.out_avals = host_sharded.result_avals(
            [EMPTY if t else a for a, t in zip(out_avals, self.tokens)], out_kinds)
        in_shardings = [replicated_over(devs) if _is_token(a) else s
                        for s, a in zip(in_shardings, in_avals)]
        out_shardings = [replicated_over(devs) if t else s
                         for s, t in zip(out_shardings, self.tokens)]
        # the ordered effects whose runtime tokens `@main` takes and returns first
        # (codegen/runtime_tokens.py); not among the layouts above
        self.ordered = tuple(ordered)
        nt = len(self.ordered)
        n = len(self.devices)
        opts = xc.CompileOptions()
        opts.num_replicas = 1
        opts.num_partitions = n
        opts.device_assignment = xc.DeviceAssignment.create(
            np.array([[d.id for d in self.devices]]))
        build = opts.executable_build_options
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = sdy
        build.allow_spmd_sharding_propagation_to_parameters = [False] * nt + [
            s is None for s in in_shardings]
        build.allow_spmd_sharding_propagation_to_output = [False] * nt + [
            s is None for s in out_shardings]
        runtime.set_compiler_options(opts, compiler_options)
        self.exe = runtime.compile_mlir(text, self.devices, opts)
        # (a program over one device reports no shardings: every layout is whole)
        params = (self.exe.get_parameter_shardings() or [_WHOLE] * (nt + len(in_shardings)))[nt:]
        outs = (self.exe.get_output_shardings() or [_WHOLE] * (nt + len(out_shardings)))[nt:]
        self.in_shardings = [s if s is not None else _from_xla(op, a, mesh, self.devices)
                             for s, op, a in zip(in_shardings, params, self.in_avals)]
        self.out_shardings = [s if s is not None else _from_xla(op, a, mesh, self.devices)
                              for s, op, a in zip(out_shardings, outs, self.out_avals)]
        if kept is not None:   # (`kept_layouts`: JAX keeps the user's equivalent layout)
            self.out_shardings = [
                k if s is None and k is not None and _equivalent(got, k, a.ndim) else got
                for s, k, got, a in zip(out_shardings, kept, self.out_shardings,
                                        self.out_avals)]
        self.out_shardings = [s if k is None or s.memory_kind == k else s.with_memory_kind(k)
                              for s, k in zip(self.out_shardings, out_kinds)]
        for s in self.out_shardings:
            if isinstance(s, shd.SingleDeviceSharding) and n > 1:
                raise NotImplementedInAstjaxError(
                    "a result laid out on one device of a partitioned program "
                    "(SingleDeviceSharding) is not supported yet",
                    hint="lay results out with a NamedSharding")
        self.handlers = [xc.array_result_handler(a, _jaxlib_sharding(s, a, self.devices),
                                                 committed=True, _skip_checks=True)
                         for a, s in zip(self.out_avals, self.out_shardings)]
        self._handlers = token_handlers(nt, self.devices) + self.handlers
        # XLA's CPU collectives deadlock when several such programs are in flight
        # (docs/scaling.md): a partitioned program with collectives (the user's or
        # those the partitioner inserted) waits for its results on the CPU
        self.sync = (self.devices[0].platform == "cpu" and n > 1
                     and any(c in self.text for c in _COLLECTIVE_OPS))

    def _arg(self, x, s, aval):
        if type(x) is Token:
            x = np.zeros((0,), np.bool_)
        if type(x) is sharded.GlobalArray and (x._sharding == s or _equivalent(
                x._sharding, s, aval.ndim)):
            return x.on_devices(self.devices)
        g = sharded.put(x, s) if isinstance(s, (shd.NamedSharding, shd.SingleDeviceSharding)) \
            else None
        if type(g) is sharded.GlobalArray:
            return g.on_devices(self.devices)
        if isinstance(g, runtime.Array) and len(self.devices) == 1:   # a one-device mesh
            return g._buf
        raise NotImplementedInAstjaxError(f"a partitioned program's argument laid out as {s!r} "
                                          "is not supported yet")

    def prepare(self, args):
        """The multi-device jaxlib arrays of the first parameters' values, laid out
        once (a program's constants): pass them to `call` as `prepared`."""
        return [self._arg(x, s, a) for x, s, a in zip(args, self.in_shardings, self.in_avals)]

    def call(self, args, prepared=()):
        """Run on Arrays / host values (one per parameter after the `prepared`
        ones); returns GlobalArrays."""
        k, nt = len(prepared), len(self.ordered)
        arrays = list(prepared) + [self._arg(x, s, a) for x, s, a in zip(
            args, self.in_shardings[k:], self.in_avals[k:])]
        if nt:
            arrays = token_inputs(self.ordered, self.devices) + arrays
        outs = self.exe.execute_sharded(arrays).consume_with_handlers(self._handlers)
        if self.sync:   # XLA's CPU collectives: one partitioned program at a time
            for o in outs:
                o.block_until_ready()
        if nt:
            keep_tokens(self.ordered, outs[:nt], self.devices)
            outs = outs[nt:]
        return [Token() if t else _result(o, a, s, self.devices)
                for o, a, s, t in zip(outs, self.out_avals, self.out_shardings, self.tokens)]

    @property
    def text(self):
        """The partitioned HLO XLA compiled (with the collectives it inserted): what
        `jit(f).lower(...).compile().as_text()` shows."""
        return self.exe.hlo_modules()[0].to_string()

    as_text = text.fget


def _jaxlib_sharding(s, aval, devs):
    """jaxlib's sharding of a result laid out as `s` by a program over `devs`."""
    if isinstance(s, shd.SingleDeviceSharding):
        return runtime.sharding_for(s._device, sharded.host_kind(s))
    return sharded.xla_sharding(devs, s._hlo if isinstance(s, sharded.GSPMDSharding)
                                else shd.hlo_sharding(s, aval.ndim, devs), sharded.host_kind(s))


def _result(arr, aval, sharding, devs):
    """A partitioned program's result: a GlobalArray, or for a SingleDeviceSharding an
    Array committed to its device (JAX's result of a program on one device)."""
    if isinstance(sharding, shd.SingleDeviceSharding):
        return runtime.CommittedArray(arr, runtime.intern_aval(aval))
    return sharded.GlobalArray(arr, aval, sharding, devs)


def _is_token(aval) -> bool:
    return type(aval) is core.TokenAval


_equivalent_cache: dict = {}


def _equivalent(a, b, ndim):
    key = (a, b, ndim)
    r = _equivalent_cache.get(key)
    if r is None:
        r = _equivalent_cache[key] = a.is_equivalent_to(b, ndim)
    return r


def shardy() -> bool:
    """Whether partitioned programs are lowered with Shardy (`sdy` dialect) rather
    than GSPMD (`mhlo.sharding`): the `jax_use_shardy_partitioner` flag."""
    return bool(config.read("jax_use_shardy_partitioner"))


def sharding_attr(sharding, ndim, devs, sdy):
    """The argument / result attribute that lays a value out as `sharding` (None for
    None), in Shardy's form when `sdy`, else GSPMD's."""
    if sharding is None:
        return None
    if sdy:
        return f"sdy.sharding = #sdy.sharding{shd.sdy_sharding(sharding, ndim, devs)}"
    return f'mhlo.sharding = "{shd.hlo_sharding(sharding, ndim, devs)}"'


class SpmdEntry:
    """One compiled signature of a sharded `jit` (the counterpart of `api._Entry`):
    `compile()`, `run(leaves)`, `text`, `closed`, `out_tree`, `in_tree`,
    `executable`; `mesh`, `devices` and the layouts, None where XLA chooses:
    `param_shardings` (constants first), `result_shardings` and, of those, the ones
    the caller asked for (not taken from the results' types),
    `asked_result_shardings`."""

    def __init__(self, closed, out_tree, name, in_shardings, out_shardings, leaves,
                 donated=(), loc=None, compiler_options=(), arg_names=None):
        self.closed, self.out_tree, self.in_tree = closed, out_tree, None
        self.compiler_options = tuple(compiler_options)   # (name, value) pairs for XLA
        # (closed-over values on one device: constants of the module, as JAX's)
        self.program, self._embedded = stablehlo.embedded_constants(closed, runtime.ONE_DEVICE)
        jaxpr = self.program.jaxpr
        self.in_avals = [v.aval for v in jaxpr.invars]
        out_avals = [v.aval for v in jaxpr.outvars]
        layouts = list(layouts_of(leaves)) + [None] * (len(self.in_avals) - len(leaves))
        ins = [s if s is not None else lay for s, lay in zip(in_shardings, layouts)]
        for s in ins:   # (XLA's own layout of a callback's result: JAX refuses it too)
            if isinstance(s, sharded.GSPMDSharding):
                raise ArgumentTypeError(
                    f"Cannot convert GSPMDSharding {s._hlo} into SdyArray.", loc=loc,
                    hint="a host callback's result is on one device (XLA's maximal layout): "
                         "use it inside the jit that made it, or device_put it first")
        every = ins + list(out_shardings) + spmd_shardings_in(jaxpr)
        check_types_placed(leaves, loc)
        check_placed(leaves, None, name, loc, arg_names)   # (the arguments first: JAX
        # names them)
        self.mesh, self.devices = mesh_and_devices([s for s in every if s is not None], loc)
        self._kept = kept_layouts(jaxpr, ins, layouts, out_shardings)
        if self.devices is None:
            raise ArgumentValueError("a partitioned program needs a mesh: give a "
                                     "NamedSharding, or call it under `with mesh:`", loc=loc)
        check_placed(leaves, self.devices, name, loc, arg_names)
        effects.check_devices(jaxpr, len(self.devices), loc)   # (JAX's refusal)
        self.ordered = effects.ordered_effects(jaxpr)   # (their tokens: `@main`'s first)
        nconst = len(jaxpr.constvars)
        rep = shd.NamedSharding(self.mesh, shd.PartitionSpec()) if self.mesh is not None \
            else shd.SingleDeviceSharding(self.devices[0])
        self.param_shardings = [rep] * nconst + ins
        avals = [v.aval for v in jaxpr.constvars] + self.in_avals
        self.shardy = shardy()
        # memory kinds (codegen/host_sharded.py): None when every one is `device`
        self.kinds = host_sharded.kinds_of(self.param_shardings, out_shardings, out_avals,
                                           jaxpr)
        self._avals, self._out_avals = avals, out_avals
        self._lowering = (name, {i + nconst for i in donated}, list(out_shardings),
                          stablehlo.result_names(out_tree))
        self.platform = stablehlo.platform_name(self.devices[0])
        self.text = self.lower_for(self.platform)
        self.result_shardings = self.asked_result_shardings = list(out_shardings)
        self.consts = list(self.program.consts)
        self.executable, self._const_arrays = None, ()

    def lower_for(self, platform, platform_index=False):
        """The module text lowered for `platform`; with `platform_index`, `@main` first
        takes JAX's platform index (`lowering_platforms` naming several platforms)."""
        name, donated, out_shardings, result_names = self._lowering
        jaxpr = self.program.jaxpr
        if platform_index:
            index = core.Var(ShapedArray((), np.int32))
            jaxpr = core.Jaxpr([index, *jaxpr.constvars], jaxpr.invars, jaxpr.outvars,
                               jaxpr.eqns)
            donated = {i + 1 for i in donated}
        k = self.kinds or host_sharded.Kinds([None] * len(self._avals),
                                             [None] * len(self._out_avals), [])
        with shd.lowering_assignment(self.devices), \
                platform_index_operand("%arg0" if platform_index else None):
            texts = [None if _is_token(a) else host_sharded.with_kind(
                sharding_attr(s, a.ndim, self.devices, self.shardy), kind)
                for s, a, kind in zip(self.param_shardings, self._avals, k.args)]
            out_texts = [None if _is_token(a) else host_sharded.with_kind(
                sharding_attr(s, a.ndim, self.devices, self.shardy), kind)
                for s, a, kind in zip(out_shardings, self._out_avals, k.results)]
            if platform_index:
                texts = ['jax.global_constant = "_platform_index"', *texts]
            return stablehlo.lower_module(
                jaxpr, name=f"jit_{name}", donated=donated, platform=platform,
                num_partitions=len(self.devices), arg_shardings=texts,
                result_shardings=out_texts, preamble=self._mesh_decls,
                result_names=result_names, tokens=True, ordered=self.ordered,
                result_hook=self.kinds and self.kinds.hook(self._out_avals),
                embedded=self._embedded)

    def _mesh_decls(self):
        """The `sdy.mesh` declarations; JAX's printer copies a mesh of Explicit axes
        into a `stablehlo.mesh` attribute of its declaration."""
        decls = shd.sdy_mesh_decls()
        m = self.mesh
        if m is None or not explicit.is_explicit(m):
            return decls
        axes = ", ".join(f'"{n}"={k}' for n, k in m.shape.items())
        attr = " {stablehlo.mesh = {axes = [" + ", ".join(
            f'{{name = "{n}", size = {k} : i64}}' for n, k in m.shape.items()) + "]}}"
        return [d + attr if d.endswith(f"= <[{axes}]>") else d for d in decls]

    def for_platform(self, platform):
        """This signature lowered for `platform` instead (`Traced.lower(
        lowering_platforms=(platform,))`): a copy with its own module text."""
        if platform == self.platform:
            return self
        other = copy.copy(self)
        other.platform, other.executable, other._const_arrays = platform, None, ()
        other.text = self.lower_for(platform)
        return other

    def for_platforms(self, platforms):
        """The module text for several platforms, as JAX lowers a partitioned program
        whose operations lower alike on each: one body, `@main` taking the platform
        index first. A program whose lowering differs by platform is refused (JAX
        dispatches inside on the index)."""
        texts = {self.lower_for(p, platform_index=True) for p in platforms}
        if len(texts) != 1:
            raise NotImplementedInAstjaxError(
                f"lowering a partitioned (sharded) jit for {tuple(platforms)}, whose "
                "operations lower differently per platform, is not supported",
                hint="lower for one platform at a time", loc=caller_location())
        return texts.pop()

    def compile(self):
        if self.executable is None:
            self.executable = SpmdExecutable(self.text, self._avals, self._out_avals,
                                             self.devices, self.mesh, self.param_shardings,
                                             self.result_shardings, self.shardy,
                                             self.compiler_options,
                                             self.kinds and self.kinds.results, self.ordered,
                                             self._kept)
            self._const_arrays = self.executable.prepare(self.consts)
        return self

    def run(self, leaves):
        outs = self.executable.call(leaves, self._const_arrays)
        return tree_util.tree_unflatten(self.out_tree, outs)


# ------------------------------------------------------------------- sharded jit


def check_jit_shardings(in_shardings, out_shardings):
    """`jit`'s in_shardings / out_shardings, checked at `jit`: None when neither is
    given, else the pair (each a Sharding, a PartitionSpec, None or a pytree of them)."""
    if in_shardings is None and out_shardings is None:
        return None
    given = False
    for what, tree in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
        for s in tree_util.tree_leaves(tree, is_leaf=is_layout):
            if not is_layout(s):
                raise TypeError(f"jit {what} leaves must be a Sharding, a PartitionSpec or "
                                f"None, got {type(s).__name__} {s!r:.60}")
            given = given or s is not None
    # pytrees of None only (flax.nnx.jit passes them) leave every layout unspecified
    return (in_shardings, out_shardings) if given else None


_CONTEXT = "set_mesh"   # (the tag of `call_layouts`' last entry)


def call_layouts(fun, options, dyn_args, dyn_kwargs, leaves):
    """`jit`'s cache-key part for a call: `layouts_of(leaves)` and, under `set_mesh`,
    its mesh last (JAX's device context: the call is a partitioned program on the
    mesh's devices, its results laid out over it), after JAX's checks that `jit` has
    no `device=` / `backend=` (`options`) and no argument is committed elsewhere."""
    layouts = layouts_of(leaves)
    context = shd.context_mesh() if shd.context_meshes[0] else None
    if context is None:
        return layouts
    if options is not None and (options.device is not None or options.backend is not None):
        raise ArgumentValueError(
            "Mesh context manager should not be used with jit when backend or device is "
            "also specified as an argument to jit.", hint="drop jit's device= / backend=, "
            "or call it outside set_mesh", loc=caller_location())
    check_context_devices(context, fun, dyn_args, dyn_kwargs, leaves)
    return layouts + ((_CONTEXT, context),)


def partitioned(shardings, layouts, closed) -> bool:
    """Whether a `jit` call (its `shardings`, `call_layouts`, staged program) runs as
    a partitioned program: layouts given or carried by its arguments, partitioning
    operations, or `set_mesh` alone -- except a program with references at its
    boundary: `jit_refs` places those on `set_mesh`'s mesh."""
    context = layouts[-1][1] if layouts and type(layouts[-1]) is tuple else None
    if shardings or any(layouts[:-1] if context else layouts) or needs_spmd(closed.jaxpr):
        return True
    j = closed.jaxpr
    return context is not None and not any(
        type(v.aval) is core.AbstractRef for v in (*j.constvars, *j.invars, *j.outvars))


def _prefix(spec, tree, what, loc):
    """One resolved sharding (or None) per leaf of `tree`, from the prefix `spec`."""
    return [None if s is None else resolve_sharding(s, f"jit {what}", loc)
            for s in layouts_per_leaf(spec, tree, f"jit {what}", loc)]


def _flat_in(in_spec, dyn_args, n_leaves, loc):
    if in_spec is None:
        return [None] * n_leaves
    if n_leaves != len(tree_util.tree_leaves(tuple(dyn_args))):
        raise ArgumentValueError("pjit does not support kwargs when in_shardings is "
                                 "specified.", hint="pass the arguments positionally",
                                 loc=loc)
    if isinstance(in_spec, list):
        in_spec = tuple(in_spec)
    if not isinstance(in_spec, tuple):
        in_spec = (in_spec,) * len(dyn_args)
    flat = _prefix(in_spec, tuple(dyn_args), "in_shardings", loc)
    return flat + [None] * (n_leaves - len(flat))   # keyword arguments: XLA chooses


def jit_entry(closed, out_tree, name, shardings, dyn_args, leaves, donated, loc,
              compiler_options=(), leaf_layouts=None, staged=None, refuse_late=False,
              fun=None, dyn_kwargs=None):
    """The SpmdEntry of a `jit` call: layouts flattened to one per argument leaf
    and per result, checked against the avals; `compiler_options` are `jit`'s
    (name, value) pairs for XLA; `leaf_layouts` (per leaf, or None): the abstract
    arguments' shardings (`ShapeDtypeStruct(..., sharding=)`), where in_shardings
    gives none; `staged`: the program as staged, before its dead code was removed
    (its equations are typed too, as JAX types every one it traces); `refuse_late`
    (`jit(f).trace`): arguments on incompatible devices give a `RefusedEntry`, which
    raises JAX's error when lowered, as JAX's `Traced` does; `fun` (with `dyn_kwargs`):
    the function whose parameters name the arguments in that error."""
    in_spec, out_spec = shardings or (None, None)
    avals = [v.aval for v in closed.jaxpr.invars]
    ins = _flat_in(in_spec, dyn_args, len(avals), loc)
    if leaf_layouts is not None:
        ins = [s if s is not None else lay for s, lay in zip(ins, leaf_layouts)]
    for s, a, x in zip(ins, avals, leaves):
        if s is not None:
            check_sharding_fits(s, a, "jit in_shardings", loc)
            host_sharded.check_arg_kind(s, host_sharded.arg_kind(x), a, loc)
            if type(x) is sharded.GlobalArray and not (
                    x._sharding == s or _equivalent(x._sharding, s, a.ndim)):
                t = explicit.typed(x)   # (JAX prints the argument's type: `float32[4@x,2]`)
                raise ArgumentValueError(
                    f"Sharding passed to jit does not match the sharding on the respective "
                    f"arg. Got jit sharding: {s!r},\narg sharding: {x._sharding!r} for arg "
                    f"type: {t.str_short() if t is not None else _long_type(a)}",
                    hint="device_put the argument with the jit's sharding first, or drop "
                         "its in_shardings entry", loc=loc)
    outs = ([None] * len(closed.jaxpr.outvars) if out_spec is None else
            _prefix(out_spec, tree_util.tree_unflatten(out_tree, closed.jaxpr.outvars),
                    "out_shardings", loc))
    for s, v in zip(outs, closed.jaxpr.outvars):
        if s is not None:
            check_sharding_fits(s, v.aval, "jit out_shardings", loc)
    asked, as_staged = outs, staged if staged is not None else closed
    # (JAX types an argument as it is -- a ShapeDtypeStruct's layout, an array's, a host
    # value replicated over `set_mesh`'s mesh --, never by in_shardings, which lay it out)
    own = list(leaf_layouts) if leaf_layouts is not None else [None] * len(leaves)
    outs, env = _typed_results(closed, own, leaves, outs, loc, staged)
    closed = constrain_unreduced(constrain_typed(closed, env) if shardy() else closed, env)
    try:
        entry = SpmdEntry(closed, out_tree, name, ins, outs, leaves, donated, loc,
                          compiler_options, None if fun is None else
                          lambda: leaf_names(fun, dyn_args, dyn_kwargs or {}))
    except IncompatibleDevices as e:
        if not refuse_late:
            raise
        entry = RefusedEntry(closed, out_tree, e)
    entry.asked_result_shardings = asked   # (not those of the results' types: `export`)
    entry.staged = as_staged   # (`Traced.jaxpr`: without the constraints of its types)
    return entry


def _long_type(aval):
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _typed_results(closed, ins, leaves, outs, loc, staged=None):
    """Sharding in types (`codegen/explicit.py`), the arguments typed as the leaves
    (`ins`: a layout each abstract one names, else None), the closed-over arrays as
    they are laid out: JAX's ShardingTypeError,
    located at the operation, for incompatible Explicit layouts -- also in the dead code of the
    program as `staged` (whose forward equations type the cotangents of a gradient
    whose primal result is dropped); a result whose type has a layout (and no
    out_shardings entry) is laid out by it, as JAX lays it out."""
    def arguments(program):
        return {**explicit.const_types(program.jaxpr.constvars, program.consts), **{
            v: t for v, s, x in zip(program.jaxpr.invars, ins, leaves) if (t := (
                explicit.typed_sharding(s, v.aval) if s is not None else explicit.typed(x)
                or explicit.typed_abstract(None, v.aval))) is not None}}
    jaxpr = closed.jaxpr
    env = arguments(closed)
    dead = staged is not None and staged.jaxpr is not jaxpr
    given = arguments(staged) if dead else {}   # (closed-over arrays only the dead code reads)
    if not env and not given:
        return outs, env
    try:
        before = explicit.propagate(staged.jaxpr.eqns, given) if dead else {}
        explicit.propagate(jaxpr.eqns, env)
    except shd.ShardingTypeError as e:
        if e.loc is None:
            raise type(e)(e.message, loc=loc) from None
        raise
    env.update(before)      # (the same variables, typed beside their dead forward code)
    return [s if s is not None or not isinstance(v, core.Var) or v not in env   # (inside
            or not explicit.all_explicit(env[v].mesh)   # jit, one entry per dim; a type
            else shd.NamedSharding(env[v].mesh, env[v].pspec)   # over Auto axes too:
            for s, v in zip(outs, jaxpr.outvars)], env          # XLA's)


def constrain_inline(call, shardings, dyn_args, dyn_kwargs):
    """A sharded `jit` staged inside another program: its layouts become
    sharding constraints (`reshard`) on its arguments and results."""
    in_spec, out_spec = shardings
    if in_spec is not None:
        spec = tuple(in_spec) if isinstance(in_spec, (tuple, list)) else \
            (in_spec,) * len(dyn_args)
        dyn_args = constrain_layouts(tuple(dyn_args), spec)
    out = call(*dyn_args, **dyn_kwargs)
    return out if out_spec is None else constrain_layouts(out, out_spec)

# ------------------------------------------------------------------ eager operations

_eager_cache: dict = {}


def eager_apply(prim, args, params):
    """One primitive on concrete values, some of them GlobalArrays (or a partitioning
    primitive): compiled as a partitioned program with the operands' layouts, as
    JAX does, and cached per (primitive, params, avals, layouts)."""
    avals = [runtime._aval_of_host(a) if not isinstance(a, runtime.Array) else a.aval
             for a in args]
    layouts = layouts_of(args)
    context = shd.context_mesh() if shd.context_meshes[0] else None
    if context is not None:   # (set_mesh: JAX runs the operation as a `jit` on its mesh)
        check_context_devices(context, _prim_fun(prim), args, {}, args)
    try:
        key = (prim, tuple(sorted((k, runtime._hashable(v)) for k, v in params.items())),
               tuple(avals), layouts, shardy(), context)
        hash(key)
    except TypeError:
        key = None
    entry = _eager_cache.get(key) if key is not None else None
    if entry is None:
        t = explicit.check(prim, args, params)   # JAX's ShardingTypeError, Explicit axes
        invars = [core.Var(a) for a in avals]
        out = memory_space_rule(prim, avals, prim.abstract_eval(*avals, **params))
        out_avals = out if prim.multiple_results else [out]
        outvars = [core.Var(a) for a in out_avals]
        jaxpr = core.Jaxpr([], invars, outvars, [core.Eqn(prim, invars, outvars, params)])
        closed = core.ClosedJaxpr(jaxpr, [])
        if t is not None and len(outvars) == 1:
            closed = constrain_unreduced(closed, {outvars[0]: t})
        # (an unreduced operand keeps its layout: its shards are partial sums; one in
        # host memory stays there, codegen/host_sharded.py)
        ins = [s if isinstance(s, shd.NamedSharding) and (
            s.spec.unreduced or sharded.host_kind(s)) else None for s in layouts]
        outs_s = [None] * len(out_avals)
        if (prim in SPMD_PRIMITIVES and "sharding" in params
                and not is_partial(params["sharding"], avals[0].ndim, params.get("kind"))):
            outs_s = [params["sharding"]] * len(out_avals)
        elif t is not None and explicit.all_explicit(t.mesh):   # laid out by its type
            outs_s = [t.sharding]
        elif prim.name == "slice":
            outs_s = [_eager_slice_sharding(args[0], params)]
        elif prim is shard_map_p and not params.get("auto") and type(params["mesh"]) is \
                shd.Mesh:   # (JAX lays an eager shard_map's results out as its out_specs)
            outs_s = [shd.NamedSharding(params["mesh"], spec) for spec in params["out_specs"]]
        elif prim in SPMD_PRIMITIVES and params.get("kind") == "reshard":
            ins = [over_mesh(layouts[0], params["sharding"])]   # (XLA keeps its layout)
        if context is not None and not any(layouts):   # replicated over set_mesh's mesh
            ins = [shd.NamedSharding(context, shd.PartitionSpec())] * len(avals)
            outs_s = [s or _context_result(context, args, a, prim) for s, a in zip(outs_s,
                                                                          out_avals)]
        entry = SpmdEntry(closed, tree_util.tree_structure(list(range(len(out_avals)))),
                          f"eager_{prim.name}", ins, outs_s, list(args)).compile()
        if key is not None:
            _eager_cache[key] = entry
    outs = entry.run(args)
    return outs if prim.multiple_results else outs[0]


def eager_context(prim, args):
    """Whether an operation outside `jit` runs on `set_mesh`'s mesh (JAX runs it as a
    `jit` there): not on arrays in host memory."""
    return shd.context_mesh() is not None and not (
        runtime.memory_rule[1] is not None and any(type(a) is runtime.memory_rule[1]
                                                  for a in args))


def _context_result(mesh, args, aval, prim=None):
    """The layout of an eager result on `set_mesh`'s `mesh` whose operands are all
    single-device: replicated; on Explicit axes typed so (`P(None, ...)`) when an operand
    is a host value or there is none (JAX stages those with the mesh in their type),
    else `P()` (its operands' types name no mesh: XLA's replicated layout; also a copy
    of a host value, e.g. `new_ref(np_array)`'s, which JAX puts without a type)."""
    if prim is not None and prim.name == "copy":
        return shd.NamedSharding(mesh, shd.PartitionSpec())
    if not args or any(type(a) is not runtime.Array for a in args):
        return replicated(mesh, aval)
    return shd.NamedSharding(mesh, shd.PartitionSpec())


def _prim_fun(prim):
    """A function named as the primitive, of `*args`: what JAX's errors name an eager
    operation's arguments by (`args[0] of copy`)."""
    def fun(*args):
        return args
    fun.__name__ = fun.__qualname__ = prim.name
    return fun


def _eager_slice_sharding(x, params):
    """The layout JAX 0.10.2 gives an eager `slice` (`x[1:3]`, `lax.slice`) of an array
    over Auto axes: dimensions the slice cuts lose their mesh axes, the others keep
    them (inside `jit` the partitioner chooses; there it keeps them). None (XLA's
    choice) otherwise."""
    s = getattr(x, "_sharding", None)
    if type(x) is not sharded.GlobalArray or not isinstance(s, shd.NamedSharding) or any(
            t != shd.AxisType.Auto for t in s.mesh.axis_types):
        return None
    strides = params.get("strides") or (1,) * x.ndim
    spec = [e if (b == 0 and e_ == n and st == 1) else None
            for e, b, e_, st, n in zip(s.spec._normalized(x.ndim), params["start_indices"],
                                        params["limit_indices"], strides, x.shape)]
    while spec and spec[-1] is None:      # JAX writes these specs without trailing Nones
        spec.pop()
    return shd.NamedSharding(s.mesh, shd.PartitionSpec(*spec))


runtime.register_spmd(eager_apply, (sharded.GlobalArray, OneDeviceTyped), SPMD_PRIMITIVES,
                      eager_context)
