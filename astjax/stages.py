"""`astjax.stages` (JAX's `jax.stages`): the stages of an ahead-of-time compile.

    jit(f).trace(*args)  -> Traced    the staged jaxpr and the output structure
          .lower()       -> Lowered   the StableHLO module (text, MLIR object, HLO)
          .compile()     -> Compiled  the XLA executable (optimized HLO, costs, memory)

`ShapeDtypeStruct` (an array's shape and dtype, nothing allocated) stands in for an
argument at any stage. Each stage wraps one signature's entry of a `jit` (what
`api.Jitted` caches per signature: `closed`, `out_tree`, `in_tree`, `text` and, once
compiled, `executable`), so tracing, lowering and compiling again reuse the cache.
"""
from __future__ import annotations

import contextlib
import copy
import math
import weakref
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from . import core, dtypes, tree_util
from .shape_poly import canonical_shape
from . import sharding_impls as _sharding
from .codegen import compile_cache, runtime, stablehlo
from .errors import (ArgumentTypeError, ArgumentValueError, JAXValueError,
                     NotImplementedInAstjaxError, caller_location)
from .codegen import explicit as _explicit, spmd as _spmd
from .codegen.spmd_devices import incompatible_context, leaf_names
from .extend.backend import UnknownBackendError
from .staging import leaf_aval

__all__ = ["ShapeDtypeStruct", "ArgInfo", "Traced", "Lowered", "Compiled",
           "CompilerOptions", "Wrapped"]

CompilerOptions = dict[str, Any]


class ShapeDtypeStruct:
    """An abstract array: a `shape`, a `dtype`, a `weak_type` flag and optionally a
    `sharding`.

    Pass it in place of an array to `eval_shape`, `jit(...).trace` / `.lower` or
    `make_jaxpr`; nothing is allocated. Instances are immutable.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> s = astjax.ShapeDtypeStruct((2, 3), jnp.float32)
        >>> s, s.ndim, s.size
        (ShapeDtypeStruct(shape=(2, 3), dtype=float32), 2, 6)
    """
    __slots__ = ("shape", "dtype", "weak_type", "_sharding")

    def __init__(self, shape, dtype, *, sharding=None, weak_type=False):
        if dtype is None:
            raise ArgumentValueError("ShapeDtypeStruct: dtype must be specified.",
                                     loc=caller_location())
        if sharding is not None and not isinstance(
                sharding, (_sharding.Sharding, _sharding.PartitionSpec)):
            raise ArgumentValueError(
                f"sharding should be an instance of `jax.sharding.Sharding` or "
                f"`jax.sharding.PartitionSpec`. Got {sharding} of type {type(sharding)}.",
                loc=caller_location())
        object.__setattr__(self, "shape", canonical_shape(shape))
        object.__setattr__(self, "dtype", dtype if isinstance(dtype, dtypes.ExtendedDType)
                           else np.dtype(dtype))  # typed keys: key<fry>
        object.__setattr__(self, "weak_type", bool(weak_type))
        object.__setattr__(self, "_sharding", sharding)

    def __setattr__(self, name, value):
        raise AttributeError(f"Cannot reassign attributes ({name}) of immutable "
                             "ShapeDtypeStruct objects")

    @property
    def sharding(self):
        """The sharding given; a PartitionSpec is read, at each access, over the
        current `set_mesh` mesh (a NamedSharding), as JAX's: TypeError without one."""
        s = self._sharding
        if not isinstance(s, _sharding.PartitionSpec):
            return s
        mesh = _sharding.get_mesh()
        if mesh.empty:
            raise ArgumentTypeError(
                "When specifying PartitionSpec to `ShapeDtypeStruct`, the context mesh "
                "cannot be empty. Please use `jax.set_mesh` to set the mesh context.",
                hint="read it under `with jax.set_mesh(mesh):`", loc=caller_location())
        return _sharding.NamedSharding(mesh, s)

    def _given(self):
        """The sharding as given, read over the current mesh where there is one."""
        s = self._sharding
        return s if isinstance(s, _sharding.PartitionSpec) and _sharding.get_mesh().empty \
            else self.sharding

    @property
    def ndim(self):
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self):
        """The number of elements."""
        return math.prod(self.shape)

    @property
    def aval(self):
        """The abstract value (`core.ShapedArray`) this stands for."""
        return core.ShapedArray(self.shape, self.dtype, self.weak_type)

    @classmethod
    def like(cls, x):
        """The ShapeDtypeStruct of an array (or anything with an abstract value)."""
        aval = leaf_aval(x)
        # a single-device array's placement is not part of it (JAX: uncommitted);
        # an array laid out over several devices keeps its layout
        sharding = getattr(x, "sharding", None)
        if not isinstance(sharding, _sharding.Sharding) or len(sharding.device_set) < 2:
            sharding = None
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type, sharding=sharding)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        extra = f", sharding={self._given()}" if self._sharding is not None else ""
        extra += ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{extra})"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and (
            (self.shape, self.dtype, self.weak_type, self._given())
            == (other.shape, other.dtype, other.weak_type, other._given()))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


def abstract_arguments(tree):
    """`tree` with each leaf that is no array value but has a `shape` and a `dtype`
    (a ShapedArray, a struct of the user's) replaced by a ShapeDtypeStruct: what
    JAX's abstract stages (`eval_shape`, `make_jaxpr`, `jit(...).trace` / `.lower`)
    accept in place of an array, where a call refuses it."""
    def one(x):
        if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(
                x, ShapeDtypeStruct):
            try:
                core.get_aval(x)
            except TypeError:
                return ShapeDtypeStruct(x.shape, x.dtype,
                                        weak_type=bool(getattr(x, "weak_type", False)))
        return x
    return tree_util.tree_map(one, tree)


@dataclass(frozen=True)
class ArgInfo:
    """What a stage knows of one argument leaf: its abstract value and whether it is
    donated (`args_info` of every stage is a pytree of these)."""
    _aval: core.ShapedArray
    donated: bool

    @property
    def shape(self):
        """The leaf's shape."""
        return self._aval.shape

    @property
    def dtype(self):
        """The leaf's dtype."""
        return self._aval.dtype


class _Stage:
    """What every stage tells of its signature (the entry `_entry` of a `jit`)."""

    def __init__(self, entry, fun_name, donate_argnums, donated_leaves, arg_types=None):
        self._entry = entry
        self._fun_name = fun_name
        self.donate_argnums = tuple(donate_argnums)
        self._donated = frozenset(donated_leaves)
        self._arg_types = arg_types   # (argument_types of the leaves, or None)

    @property
    def in_tree(self):
        """The pytree structure of `(args, kwargs)` (static arguments left out)."""
        return self._entry.in_tree

    @property
    def out_tree(self):
        """The pytree structure of the result."""
        return self._entry.out_tree

    @property
    def in_avals(self):
        """The abstract values of the argument leaves, as a pytree `(args, kwargs)`."""
        return tree_util.tree_unflatten(self.in_tree, self._typed_in_avals())

    @property
    def args_info(self):
        """A pytree `(args, kwargs)` of `ArgInfo`: each leaf's aval, and whether
        it is donated."""
        return tree_util.tree_unflatten(self.in_tree, [
            ArgInfo(a, i in self._donated) for i, a in enumerate(self._typed_in_avals())])

    def _typed_in_avals(self):
        """The argument leaves' avals, with their layouts over Explicit mesh axes as
        JAX's types have them (`float32[4@a,4]`)."""
        avals = list(self._entry.in_avals)
        return avals if not self._arg_types else [
            a if t is None or type(a) is not core.ShapedArray else _explicit.TypedAval(t)
            for a, t in zip(avals, self._arg_types)] + avals[len(self._arg_types):]

    @property
    def out_info(self):
        """The result's structure with a `ShapeDtypeStruct` per leaf."""
        return tree_util.tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(v.aval.shape, v.aval.dtype, weak_type=v.aval.weak_type)
            for v in self._entry.closed.jaxpr.outvars])

    def _like(self, cls, entry=None):
        return cls(entry or self._entry, self._fun_name, self.donate_argnums, self._donated,
                   self._arg_types)

    def _result_layouts(self, abstract):
        """JAX's sharding of each result in `out_info`: the `out_shardings` asked for,
        else the result's type's over a mesh whose axes are all Explicit (over the
        AbstractMesh when `abstract`, the Mesh once lowered); None for the others (also
        over Explicit and Auto axes: JAX's `out_info`)."""
        n = len(self._entry.closed.jaxpr.outvars)
        asked = getattr(self._entry, "asked_result_shardings", None) or [None] * n
        program = getattr(self._entry, "staged", None)   # (with a gradient's forward code)
        if program is None or len(program.jaxpr.outvars) != n:
            program = self._entry.closed
        types = result_types(program, self._arg_types) \
            if self._arg_types is not None else [None] * n
        return [s if s is not None else None if t is None or not _explicit.all_explicit(
            t.mesh) else _sharding.NamedSharding(
            t.mesh.abstract_mesh if abstract else t.mesh, t.sharding.spec)
                for s, t in zip(asked, types)]


# a compiled program's Jaxpr -> the ClosedJaxpr staged before references were
# discharged and dead code removed (`remember_staging`): what `Traced.jaxpr` shows
_staged_as: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def remember_staging(program: core.ClosedJaxpr, staged: core.ClosedJaxpr) -> None:
    """Record that the program a `jit` compiles, `program`, was staged as `staged`."""
    if program.jaxpr is not staged.jaxpr:
        _staged_as[program.jaxpr] = staged


def staged_as(program: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """The ClosedJaxpr a `jit`'s compiled `program` was staged as (`program` itself
    when nothing was removed or discharged)."""
    return _staged_as.get(program.jaxpr, program)


class Traced(_Stage):
    """`jit(f).trace(*args)`: `f` staged for one signature. `.jaxpr` is the
    ClosedJaxpr (printed as JAX prints it), `.out_info` the result's shapes,
    `.lower()` the next stage."""

    @property
    def jaxpr(self):
        """The staged program (a ClosedJaxpr): every equation staged, as JAX's
        `Traced.jaxpr` holds every one traced (the compiled program has dead code
        removed and mutable references discharged), its types laid out over Explicit
        mesh axes printed as JAX prints them (`f32[4@x,4]`)."""
        closed = getattr(self._entry, "staged", None) or staged_as(self._entry.closed)
        return _explicit.with_types(closed, (), self._arg_types) \
            if self._arg_types is not None else closed

    @property
    def fun_name(self):
        """The staged function's name."""
        return self._fun_name

    @property
    def out_info(self):
        """The result's structure with a `ShapeDtypeStruct` per leaf, laid out as
        `out_shardings` asks or, over Explicit mesh axes, as its type says (an
        AbstractMesh's NamedSharding, as JAX's)."""
        return tree_util.tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(v.aval.shape, v.aval.dtype, weak_type=v.aval.weak_type, sharding=s)
            for v, s in zip(self._entry.closed.jaxpr.outvars, self._result_layouts(True))])

    @property
    def out_avals(self):
        """The abstract values of the result leaves, as the result's pytree."""
        return tree_util.tree_unflatten(self.out_tree,
                                        [v.aval for v in self._entry.closed.jaxpr.outvars])

    def lower(self, *, lowering_platforms=None):
        """The StableHLO of this signature (`Lowered`), for the platform the function
        runs on or, with `lowering_platforms=('cuda',)`, for that one (what JAX allows
        on a machine without it: the text, not an executable). Several platforms give
        JAX's multi-platform module: `@main` takes the platform index first (a
        `tensor<i32>`, `jax.global_constant = "_platform_index"`)."""
        if lowering_platforms is None:
            self._entry.text   # (lowered here: what the platform refuses raises now, as JAX)
            return self._like(Lowered)
        names = tuple(map(_lowering_platform, lowering_platforms))
        for_platform = getattr(self._entry, "for_platform", None)
        if for_platform is None:
            raise NotImplementedInAstjaxError(
                f"lowering for {names}: astjax lowers a jit taking references or tokens "
                "for the platform it runs on only",
                hint="leave lowering_platforms out", loc=caller_location())
        if len(names) == 1:
            entry = for_platform(names[0])
            entry.text
            return self._like(Lowered, entry)
        return self._like(Lowered, _MultiPlatform(self._entry, names))


def _lowering_platform(name):
    """A `lowering_platforms` entry as a lowering platform: "gpu" is the GPU platform
    present (JAX's RuntimeError without one), any other name is kept as JAX keeps it."""
    if str(name).lower() == "gpu":
        gpus = [d for d in runtime.global_devices() if d.platform in ("gpu", "cuda", "rocm")]
        if not gpus:
            raise UnknownBackendError(
                "Unknown backend: 'gpu' requested, but no platforms that are instances of "
                "gpu are present. Platforms present are: " + ",".join(
                    sorted({d.platform for d in runtime.global_devices()})),
                hint="name the platform: 'cuda' or 'rocm'", loc=caller_location())
        return stablehlo.platform_name(gpus[0])
    return stablehlo.check_platform(name)


class _MultiPlatform:
    """The module of a `jit` signature (`dispatch_keys.Entry`; a partitioned one's
    is `SpmdEntry.for_platforms`) lowered for several platforms, as JAX lowers
    `lowering_platforms=('cpu', 'cuda')`: `@main`'s first argument is the platform index, an i32 the caller passes (its position in
    `platforms`). When every platform lowers the program alike, that is the whole
    difference from a one-platform module (JAX's text); otherwise `@main` is a
    `stablehlo.case` on the index calling one private function per platform
    (`@_platform_cpu`, ..., as `jax.export` lays out such modules), where JAX puts
    the `case` around each platform-dependent operation instead -- the same program.
    JAX 0.10.2 cannot compile it (ValueError), nor can astjax."""

    def __init__(self, entry, platforms):
        self.closed, self.out_tree, self.in_tree = entry.closed, entry.out_tree, entry.in_tree
        self.in_avals, self.platforms = entry.in_avals, platforms
        self.compiler_options, self.executable = entry.compiler_options, None
        if hasattr(entry, "for_platforms"):   # a partitioned program: codegen/spmd.py
            self.text = entry.for_platforms(platforms)
            return
        jaxpr = entry.program.jaxpr
        index = core.Var(core.ShapedArray((), np.int32))
        with_index = core.Jaxpr([index, *jaxpr.constvars], jaxpr.invars, jaxpr.outvars,
                                jaxpr.eqns)
        args = dict(entry.lower_args, donated={i + 1 for i in entry.lower_args["donated"]})
        attrs = [_PLATFORM_INDEX] + [None] * (len(jaxpr.constvars) + len(jaxpr.invars))
        texts = [stablehlo.lower_module(with_index, platform=p, arg_shardings=attrs, **args)
                 for p in platforms]
        if any(t.host_callbacks for t in texts):   # (JAX's refusal)
            raise NotImplementedInAstjaxError(
                "multi-platform lowering for python_callback", loc=caller_location(),
                hint="lower a function with host callbacks for one platform at a time")
        self.text = texts[0] if len(set(texts)) == 1 else _dispatching_module(
            jaxpr, platforms, entry.lower_args)

    def compile(self):
        raise JAXValueError(
            f"a module lowered for several platforms {self.platforms} cannot be compiled "
            "(JAX 0.10.2 raises ValueError too): it takes the platform index as an argument",
            hint="lower for one platform (lowering_platforms=('cpu',)) to compile, or "
                 "use jax.export for a module that runs on several", loc=caller_location())


_PLATFORM_INDEX = 'jax.global_constant = "_platform_index"'


def _dispatching_module(jaxpr, platforms, lower_args):
    """A module whose `@main(%platform_index, args...)` calls, by a `stablehlo.case`
    on the index, the private function `@_platform_<p>` holding `jaxpr` lowered for
    platform `p`."""
    params = [*jaxpr.constvars, *jaxpr.invars]
    types = [stablehlo.tensor_type(v.aval) for v in params]
    out_avals = [v.aval for v in jaxpr.outvars]
    funcs = []
    symbols = stablehlo.Symbols(["main", *(f"_platform_{p}" for p in platforms)])
    for p in platforms:
        mb = stablehlo.ModuleBuilder()
        mb.symbols = symbols   # (inner `jit` functions: unique across the platforms)
        names = [f"%arg{i}" for i in range(len(params))]
        mb.types.update(zip(names, types))
        nc = len(jaxpr.constvars)
        with core.collector_paused():
            outs = stablehlo.lower_jaxpr(mb, jaxpr, names[:nc], names[nc:], p,
                                         lower_args.get("embedded", ()))
        mb.emit(f"func.return {', '.join(outs)} : {', '.join(mb.types[o] for o in outs)}"
                if outs else "func.return")
        sig = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
        funcs.append(f"func.func private @_platform_{p}({sig}) -> "
                     f"({', '.join(mb.types[o] for o in outs)}) {{\n"
                     + "\n".join(mb.lines) + "\n}")
        funcs.extend(mb.functions)
    mb = stablehlo.ModuleBuilder()
    mb.types["%arg0"] = "tensor<i32>"
    args = [f"%arg{i + 1}" for i in range(len(params))]
    mb.types.update(zip(args, types))

    def branch(p):
        return mb.region([], lambda: mb.op("func.call", args, out_avals,
                                           {"callee": f"@_platform_{p}"}))
    outs = mb.op("stablehlo.case", ["%arg0"], out_avals, regions=[branch(p) for p in platforms])
    mb.emit(f"func.return {', '.join(outs)} : {', '.join(mb.types[o] for o in outs)}"
            if outs else "func.return")
    donated, names = lower_args["donated"], lower_args["result_names"]
    sig = [f"%arg0: tensor<i32> {{{_PLATFORM_INDEX}}}"] + [
        f"{a}: {t}" + (" {jax.buffer_donor = true}" if i in donated else "")
        for i, (a, t) in enumerate(zip(args, types))]
    res = [f"{mb.types[o]} {{jax.result_info = \"{stablehlo.mlir_string(n)}\"}}"
           if names is not None and len(names) == len(outs) else mb.types[o]
           for o, n in zip(outs, names or [None] * len(outs))]
    main = (f"func.func public @main({', '.join(sig)}) -> ({', '.join(res)}) {{\n"
            + "\n".join(mb.lines) + "\n}")
    body = "".join("\n".join("  " + ln for ln in f.splitlines()) + "\n"
                   for f in [main, *funcs])
    safe = stablehlo.module_symbol(lower_args["name"])
    return (f"module @{safe} attributes {{mhlo.num_partitions = 1 : i32, "
            f"mhlo.num_replicas = 1 : i32}} {{\n{body}}}\n")


_DIALECTS = ("stablehlo", "hlo")


def _dialect(dialect):
    dialect = "stablehlo" if dialect is None else dialect
    if dialect not in _DIALECTS:
        raise ArgumentValueError(f"Unknown dialect {dialect!r}",
                                 hint="use 'stablehlo' or 'hlo'", loc=caller_location())
    return dialect


def _xla_computation(text):
    """The StableHLO module `text` converted to XLA's HLO (an XlaComputation: its
    `as_hlo_text()`, `as_serialized_hlo_module_proto()`, ...)."""
    return runtime.xc._xla.mlir.mlir_module_to_xla_computation(
        text, use_tuple_args=False, return_tuple=False)


class Lowered(_Stage):
    """`jit(f).lower(*args)`: the StableHLO module of one signature."""

    @property
    def out_info(self):
        """The result's structure with a `ShapeDtypeStruct` per leaf (no weak type,
        as JAX's), laid out as `out_shardings` asks or, over Explicit mesh axes, as
        its type says (a NamedSharding over the Mesh)."""
        return tree_util.tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(v.aval.shape, v.aval.dtype, sharding=s)
            for v, s in zip(self._entry.closed.jaxpr.outvars, self._result_layouts(False))])

    def as_text(self, dialect=None, *, debug_info=False):
        """The module as text: StableHLO (default) in MLIR's pretty form, as JAX
        prints it (the module is parsed and printed by jaxlib's MLIR, so ops read
        `%c = stablehlo.constant dense<2> : tensor<i32>`), or, with `dialect='hlo'`,
        XLA's HLO before optimization; with `debug_info`, astjax's emitted text with
        every op ending in its source location (`loc(...)`)."""
        if _dialect(dialect) == "hlo":
            return _xla_computation(self._entry.text).as_hlo_text()
        if debug_info:
            return stablehlo.with_locations(self._entry.text)
        return compile_cache._parsed_module(self._entry.text).operation.get_asm(
            enable_debug_info=False)

    def compiler_ir(self, dialect=None):
        """The module as an object: an MLIR `Module` (jaxlib's MLIR bindings; `str`
        of it is the StableHLO text) or, with `dialect='hlo'`, an XlaComputation."""
        if _dialect(dialect) == "hlo":
            return _xla_computation(self._entry.text)
        return compile_cache._parsed_module(self._entry.text)

    def cost_analysis(self):
        """XLA's cost estimate of the unoptimized module: a dict of `flops`,
        `transcendentals`, `bytes accessed`, ... (as JAX returns it)."""
        module = _xla_computation(self._entry.text).get_hlo_module()
        return runtime.xc._xla.hlo_module_cost_analysis(runtime.client(), module)

    def compile(self, compiler_options=None):
        """Compile with XLA (`Compiled`); `compiler_options` (a dict) are added to
        `jit`'s own and handed to XLA as `jit(compiler_options=)` hands them."""
        if not compiler_options:
            return self._like(Compiled, self._entry.compile())
        base = self._entry
        entry = copy.copy(base)   # (jit's cached entry keeps its own options)
        entry.compiler_options = tuple(base.compiler_options) + tuple(compiler_options.items())
        entry.executable = None
        device = getattr(base, "device", None)   # (a partitioned program has none)
        if hasattr(base, "placed"):
            entry.placed, entry.device = {}, None
        entry.compile()
        return self._like(Compiled, entry.placed_on(device) if device else entry)

    def __str__(self):
        """The StableHLO text astjax emitted (generic op form, with the per-op source
        origins `explain` links to user lines); `as_text()` is JAX's printout."""
        return self._entry.text


class Compiled(_Stage):
    """`jit(f).lower(*args).compile()`: the executable of one signature. Calling it
    with arguments of another structure, shape or dtype is a located TypeError (as
    in JAX), never a run on reinterpreted buffers."""

    def as_text(self):
        """The optimized HLO XLA compiled (after fusion and, for a partitioned
        program, with the collectives the partitioner inserted)."""
        return self._entry.executable.as_text()

    @property
    def out_info(self):
        """The result's structure with a `ShapeDtypeStruct` per leaf, laid out as the
        executable lays it out (no weak type, as JAX's)."""
        return tree_util.tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(v.aval.shape, v.aval.dtype, sharding=s)
            for v, s in zip(self._entry.closed.jaxpr.outvars, self._layouts()[1])])

    def runtime_executable(self):
        """jaxlib's loaded executable."""
        return self._entry.executable.exe

    def cost_analysis(self):
        """XLA's cost estimate of the optimized program: a dict of `flops`,
        `transcendentals`, `bytes accessed`, ... (JAX 0.10.2 returns the dict)."""
        return self._entry.executable.exe.cost_analysis()

    def memory_analysis(self):
        """XLA's memory statistics (`argument_size_in_bytes`,
        `output_size_in_bytes`, `temp_size_in_bytes`, ...)."""
        return self._entry.executable.exe.get_compiled_memory_stats()

    def _layouts(self):
        """(argument shardings, result shardings), flat."""
        ex = self._entry.executable
        if isinstance(ex, runtime.Executable):
            one = _sharding.SingleDeviceSharding(ex.device)
            # (not `ex.out_avals`: those of an ordered program start with its tokens)
            return [one] * len(self._entry.in_avals), [one] * self.out_tree.num_leaves
        nconst = len(ex.in_shardings) - len(self._entry.in_avals)
        return list(ex.in_shardings[nconst:]), list(ex.out_shardings)

    @property
    def input_shardings(self):
        """The arguments' shardings, as the pytree `(args, kwargs)`."""
        return tree_util.tree_unflatten(self.in_tree, self._layouts()[0])

    @property
    def output_shardings(self):
        """The results' shardings, as the result's pytree."""
        return tree_util.tree_unflatten(self.out_tree, self._layouts()[1])

    def __call__(self, *args, **kwargs):
        entry = self._entry
        leaves, in_tree = tree_util.flatten_for_staging((tuple(args), kwargs))
        if in_tree != entry.in_tree:
            raise ArgumentTypeError(
                f"function compiled for input structure {entry.in_tree} was called with "
                f"{in_tree}", hint="pass arguments of the structure given to .lower(...) "
                "(static arguments are not passed again)", loc=caller_location())
        for i, (x, want) in enumerate(zip(leaves, entry.in_avals)):
            got = leaf_aval(x)
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                raise ArgumentTypeError(
                    f"argument types differ from the types for which this computation was "
                    f"compiled: leaf {i} is {got.str_short(True)}, compiled for {want.str_short(True)}",
                    hint="lower and compile again for these shapes, or call the jitted "
                         "function itself (it compiles per signature)", loc=caller_location())
        placed = getattr(entry, "run_placed", None)   # one device: JAX's placement rule
        if placed is None and isinstance(entry, _spmd.SpmdEntry):
            _check_layouts(entry, leaves, self._layouts()[0])
        return placed(leaves, None, self._fun_name) if placed else entry.run(leaves)


def argument_types(fun, leaves):
    """JAX's type of each argument leaf of an abstract evaluation (`eval_shape`,
    `jit(fun).trace` / `.lower`): a Typed laid out over Explicit mesh axes -- a
    ShapeDtypeStruct's sharding (a PartitionSpec: over `set_mesh`'s mesh, JAX's
    TypeError without one), an array's, or replicated over `set_mesh`'s Explicit
    mesh -- or None (also for staged values: an evaluation inside `jit`)."""
    loc = caller_location() if any(   # (only where a PartitionSpec may need it)
        isinstance(getattr(x, "_sharding", None), _sharding.PartitionSpec) for x in leaves) \
        else None
    staged = iter(_explicit.types_of([x for x in leaves if isinstance(x, core.Tracer)]))
    return [next(staged) if isinstance(x, core.Tracer) else _explicit.typed_abstract(
        _struct_layout(x, fun, loc) if isinstance(x, ShapeDtypeStruct)
        else getattr(x, "sharding", None), leaf_aval(x)) for x in leaves]


def typed_staging(leaves, types):
    """Where an abstract evaluation stages its function on `leaves` of `types`: as a
    `jit` does (`explicit.staging`) outside any staging; inside one (`eval_shape`
    inside `jit`), in a frame of its own, the enclosing staging's types kept."""
    if not core._state.builders:
        return _explicit.staging(leaves, types)
    return _explicit.nested_frame(types) if any(t is not None for t in types) \
        else contextlib.nullcontext()


def result_types(closed, arg_types):
    """The Typed (or None) of each result of `closed` whose arguments have types
    `arg_types`, its closed-over arrays theirs (JAX's ShardingTypeError, located, where
    the layouts do not fit)."""
    env = _explicit.propagate(closed.jaxpr.eqns, {
        **_explicit.const_types(closed.jaxpr.constvars, closed.consts),
        **{v: t for v, t in zip(closed.jaxpr.invars, arg_types) if t is not None}})
    return [env.get(v) if isinstance(v, core.Var) else None for v in closed.jaxpr.outvars]


def out_structs(closed, out_tree, types):
    """The results of `closed` as `out_tree` of ShapeDtypeStructs, weak types kept, each
    result typed over Explicit axes (`types`: a Typed or None per result) laid out so over
    the AbstractMesh (`jax.eval_shape`'s and `make_jaxpr(return_shape=True)`'s, as JAX's)."""
    return tree_util.tree_unflatten(out_tree, [ShapeDtypeStruct(
        v.aval.shape, v.aval.dtype, weak_type=v.aval.weak_type,
        sharding=None if t is None or not _explicit.all_explicit(t.mesh) else
        _sharding.NamedSharding(t.mesh.abstract_mesh, t.sharding.spec))
        for v, t in zip(closed.jaxpr.outvars, types)])


def has_layouts(tree) -> bool:
    """Whether a leaf of `tree` is a ShapeDtypeStruct with a sharding."""
    return any(isinstance(x, ShapeDtypeStruct) and x._sharding is not None
               for x in tree_util.tree_leaves(tree))


def _struct_layout(x, fun, loc):
    """The sharding a ShapeDtypeStruct leaf asks for (a PartitionSpec on the context
    mesh), or None."""
    s = x._sharding if isinstance(x, ShapeDtypeStruct) else None
    if isinstance(s, _sharding.PartitionSpec):
        if _sharding.get_mesh().empty:   # (JAX 0.10.2's TypeError)
            raise ArgumentTypeError(
                f"Error interpreting argument to {fun!r} as an abstract array. The "
                f"problematic value is of type {type(x)} (a ShapeDtypeStruct whose "
                f"sharding is the PartitionSpec {s} with no mesh in context).",
                hint="give a NamedSharding, or lower under `with jax.set_mesh(mesh):`",
                loc=loc)
        s = _sharding.NamedSharding(_sharding.get_mesh(), s)
    return s


def abstract_layouts_entry(jitted, args, kwargs):
    """The entry `jit(f).lower(*args)` compiles when ShapeDtypeStructs among `args`
    carry shardings (`jitted`: the `api.Jitted`): a partitioned program whose
    arguments are laid out so, as if `jit`'s in_shardings said it; with
    SingleDeviceShardings only, the one-device program placed on that device.
    Cached in the jit's cache beside the entries of calls."""
    loc = caller_location()
    dyn_args, dyn_kwargs, statics = jitted._split(args, kwargs)
    leaves, in_tree = tree_util.flatten_for_staging((tuple(dyn_args), dyn_kwargs))
    lays = tuple(_struct_layout(x, jitted.fun, loc) for x in leaves)
    named = [s for s in lays if isinstance(s, _sharding.NamedSharding)]
    if not named:   # one device: that device's program
        context = _sharding.context_mesh() if _sharding.context_meshes[0] else None
        for i, s in enumerate(lays):   # (under set_mesh: JAX's check of the devices)
            if context is not None and s is not None and \
                    set(s.device_set) != set(context.devices.flat):
                raise incompatible_context(context, jitted.fun, dyn_args, dyn_kwargs, leaves,
                                           i, sorted(s.device_set, key=lambda d: d.id))
        devs = {d for s in lays if s is not None for d in s.device_set}
        if len(devs) > 1:
            raise ArgumentValueError(
                "Received incompatible devices for jitted computation: the arguments' "
                f"SingleDeviceShardings name devices {sorted(d.id for d in devs)}",
                hint="lay every argument out on one device", loc=loc)
        plain = tree_util.tree_unflatten(in_tree, [
            ShapeDtypeStruct(x.shape, x.dtype, weak_type=x.weak_type)
            if isinstance(x, ShapeDtypeStruct) else x for x in leaves])
        entry, _ = jitted._entry(*_with_statics(plain, args, kwargs, jitted))
        if not devs or not hasattr(entry, "placed_on"):   # (a Ref-taking program: its own)
            return entry
        return entry.compile().placed_on(devs.pop())
    avals = tuple(leaf_aval(x) for x in leaves)
    key = ("abstract layouts", statics, in_tree, avals, lays, dtypes.config.x64_enabled)
    entry = jitted._cache.get(key)
    if entry is None:
        closed, out_tree = jitted._stage(dyn_args, dyn_kwargs, statics, in_tree, avals)
        options = jitted._options.compiler_options if jitted._options is not None else ()
        entry = _spmd.jit_entry(closed, out_tree, getattr(jitted.fun, "__name__", "fn"),
                                jitted._shardings, dyn_args, leaves,
                                jitted._donated(dyn_args, dyn_kwargs, statics),
                                loc, options, leaf_layouts=lays)
        entry.in_tree = in_tree
        entry.arg_labels = leaf_names(jitted.fun, dyn_args, dyn_kwargs)
        jitted._cache[key] = entry
    return entry


def _with_statics(plain, args, kwargs, jitted):
    """(args, kwargs) of a call with the dynamic ones taken from `plain` (the tree
    `((dyn_args...), dyn_kwargs)`) and the static ones as given."""
    dyn_args, dyn_kwargs = plain
    it = iter(dyn_args)
    new_args = [a if i in jitted.static_argnums else next(it) for i, a in enumerate(args)]
    return new_args, {k: (v if k in jitted.static_argnames else dyn_kwargs[k])
                      for k, v in kwargs.items()}


def _check_layouts(entry, leaves, required):
    """JAX's ValueError when a committed argument of a compiled partitioned program
    is laid out otherwise than the program was compiled for (an uncommitted array
    or a host value is laid out as needed)."""
    labels = getattr(entry, "arg_labels", None)
    bad = []
    for i, (x, want) in enumerate(zip(leaves, required)):
        got = getattr(x, "sharding", None) if getattr(x, "committed", False) else None
        if got is None or got == want or (
                isinstance(got, _sharding.NamedSharding) and got.is_equivalent_to(
                    want, len(x.shape))):
            continue
        name = labels[i] if labels and i < len(labels) else f"args[{i}]"
        aval = leaf_aval(x)
        bad.append(f"Argument {name} with shape {aval.dtype.name}"
                   f"[{','.join(map(str, aval.shape))}]:\n"
                   f"  Passed sharding: {got}\n  Required sharding: {want}")
    if bad:
        raise ArgumentValueError(
            "Computation was compiled for input shardings that disagree with the "
            f"shardings of arguments passed to it. Here are the {len(bad)} mismatches:\n"
            + "\n".join(bad), hint="device_put the arguments with the compiled "
            "input_shardings, or pass uncommitted arrays", loc=caller_location())


@runtime_checkable
class Wrapped(Protocol):
    """What `jit(f)` returns, as a type: callable (compiling on first use per
    signature), with `trace(*args)` -> `Traced` and `lower(*args)` -> `Lowered`.
    `isinstance(obj, Wrapped)` checks that `obj` has those three methods."""

    def __call__(self, *args, **kwargs):
        """Run the function, staging and compiling it for these arguments if needed."""

    def trace(self, *args, **kwargs) -> Traced:
        """Stage the function for these arguments (a `Traced`, not yet lowered)."""

    def lower(self, *args, **kwargs) -> Lowered:
        """`self.trace(*args, **kwargs).lower()`: the StableHLO of the function."""
