"""`call_exported`: a call of a function exported with `astjax.export` (JAX's
`call_exported` primitive), one equation whose parameter is the `Exported` and whose
operands are the arguments the module keeps (`module_kept_var_idx`).

Its block: the abstract value is the exported `out_avals`, after the operands'
ranks, dtypes and shapes are checked against `in_avals` (JAX's ValueErrors, naming
the argument by its path in `(args, kwargs)`); the lowering takes the exported
module's functions (`exported.inlinable()`: printed once by `astjax.export`, every
symbol prefixed by `INLINE_PREFIX`), gives them a prefix unique in the module being
built, adds them as private functions and calls the renamed `@main` on the
operands -- with the platform index first when the export covers several platforms
-- by `func.call`, which XLA inlines. An export for several devices is called in
a program partitioned over as many (JAX's ValueError otherwise), its arguments and
results constrained to the export's layouts on the caller's devices, as JAX
does. There is no NumPy reference: an eager call
compiles a program of the one call. Reverse mode goes through `astjax.export`'s
`custom_vjp` (the exported VJP), as JAX's; forward mode and `vmap` are refused, as
in JAX.
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, tree_util
from .. import sharding_impls as shd
from ..config import config
from ..errors import AstjaxError, JAXValueError
from ..ir import ShapedArray
from ..pyast import call, load
from ..shape_poly import evaluate, solve, variables
from .base import mark_unsupported, nondiff, register
from .lapack import register_targets
from .spmd import constrain_op

__all__ = ["call_exported_p", "INLINE_PREFIX", "check_arguments", "dim_as_value_p",
           "NoPlatformBranchError", "platform_index_of",
           "dim_as_value", "platform_index_p"]

# the placeholder prefix of every symbol of `exported.inlinable()`'s functions
INLINE_PREFIX = "astjax_exported_PREFIX_"

call_exported_p = core.new_primitive("call_exported", multiple_results=True)


def _arg_name(exported, i):
    """JAX's description of flat argument `i`: `args[0]`, `kwargs['x']`, ..."""
    paths = tree_util.treedef_paths(exported.in_tree)
    if i >= len(paths) or not paths[i]:
        return f"argument {i}"
    head, *rest = paths[i]
    return ("args" if getattr(head, "idx", 0) == 0 else "kwargs") + "".join(map(str, rest))


def check_arguments(exported, avals, positions):
    """JAX's ValueErrors for arguments (`avals`, at flat `positions` among the
    exported arguments) whose rank, dtype or shape is not the exported one; the
    values of the dimension variables when the export has symbolic shapes (solved
    from every argument: `positions` must then cover them all)."""
    for i, got in zip(positions, avals):
        want = exported.in_avals[i]
        if len(want.shape) != len(got.shape):
            raise JAXValueError(f"Rank mismatch for {_arg_name(exported, i)}: expected "
                                f"{want.shape} and called with {got.shape}")
        if want.dtype != got.dtype:
            raise JAXValueError(f"Dtype mismatch for {_arg_name(exported, i)}: expected "
                                f"{want.dtype} and called with {got.dtype}")
        for axis, (w, g) in enumerate(zip(want.shape, got.shape)):
            if type(w) is int and w != g:
                raise JAXValueError(f"Shape mismatch for {_arg_name(exported, i)}.shape"
                                    f"[{axis}] (expected same constant): expected "
                                    f"{want.shape} and called with {got.shape}")
    if not variables([a.shape for a in exported.in_avals]):
        return {}
    positions = list(positions)
    return solve([exported.in_avals[i].shape for i in positions],
                 [a.shape for a in avals], [_arg_name(exported, i) for i in positions])


def _call_abstract_eval(*avals, exported):
    # the operands are the kept arguments (`module_kept_var_idx`): the others, which
    # the module does not read, are checked by the caller and never bound
    env = check_arguments(exported, avals, exported.module_kept_var_idx)
    return [ShapedArray(tuple(evaluate(d, env) for d in a.shape), a.dtype, a.weak_type)
            for a in exported.out_avals]


def _devices(exported, funcs):
    """The device assignment of the program calling `exported` (None: one device),
    after JAX's checks: an export for several devices runs on as many, and one
    lowered with Shardy (its module declares a mesh) in a Shardy program."""
    devs = shd.current_assignment()
    n = 1 if devs is None else len(devs)
    if exported.nr_devices != 1 and n != exported.nr_devices:
        raise JAXValueError(f"Function {exported.fun_name} was exported for "
                            f"{exported.nr_devices} devices and is called in a context with "
                            f"{n} devices, which is not allowed.")
    if (any(f.startswith(f"sdy.mesh @{INLINE_PREFIX}") for f in funcs)
            and not config.read("jax_use_shardy_partitioner")):
        raise JAXValueError("The function was exported with shardy enabled but you are "
                            "calling it with Shardy disabled. Please enable Shardy using "
                            "`--jax_use_shardy_partitioner=True`.")
    return devs


def _laid_out(ctx, values, avals, named, devs):
    """`values` constrained to the export's stored shardings `named` (NamedShardings
    over its AbstractMesh, or None), put on the caller's devices in order -- as JAX
    constrains a call's arguments and results; nothing on one device."""
    if devs is None or len(devs) == 1:
        return list(values)
    out = []
    for x, a, s in zip(values, avals, named):
        if s is not None and s.mesh.size == len(devs):
            grid = np.empty(len(devs), dtype=object)
            grid[:] = list(devs)
            mesh = shd.Mesh(grid.reshape(s.mesh.axis_sizes), s.mesh.axis_names,
                            s.mesh.axis_types)
            x = constrain_op(ctx, x, a, shd.NamedSharding(mesh, s.spec))
        out.append(x)
    return out


def _physical(avals):
    """A float0 value (no data) is the module's i1 zeros, as JAX types it."""
    return [ShapedArray(a.shape, np.bool_) if a.dtype == core.float0 else a for a in avals]


def _call_lowering(ctx, *args, exported):
    if ctx.platform == "cpu":
        register_targets()   # (a JAX module may call jaxlib's LAPACK kernels)
    mb = ctx.mb
    prefix = f"astjax_exported_{len(mb.functions)}_"
    funcs = exported.inlinable()
    devs = _devices(exported, funcs)
    mb.functions.extend(f.replace(INLINE_PREFIX, prefix) for f in funcs)
    kept = exported.module_kept_var_idx
    args = _laid_out(ctx, args, ctx.avals_in,
                     [exported._in_named_shardings[i] for i in kept], devs)
    outs = _call(ctx, args, exported, prefix)
    return _laid_out(ctx, outs, _physical(ctx.avals_out), exported._out_named_shardings, devs)


def _call(ctx, args, exported, prefix):
    """The `func.call` of the inlined `@main` (renamed with `prefix`) on `args`."""
    operands = list(args)
    if len(exported.platforms) > 1:
        platform = "cuda" if ctx.platform == "gpu" else ctx.platform
        index = exported.platforms.index(platform) if platform in exported.platforms else 0
        operands.insert(0, ctx.constant(np.int32(index), ShapedArray((), np.int32)))
    physical = _physical
    out_avals = physical(ctx.avals_out)
    if not variables([a.shape for a in exported.in_avals]):
        return ctx.op("func.call", operands, out_avals, {"callee": f"@{prefix}main"})
    # symbolic shapes: the operands take the module's `?` types and the results come
    # back to the call's shapes (`stablehlo.convert`, as JAX's); jaxlib's shape
    # refinement makes every type static again before the program compiles
    ctx.mb.refine = True
    first = len(operands) - len(args)
    operands[first:] = [
        x if ctx.type(a) == ctx.type(w) else ctx.op1("stablehlo.convert", [x], w)
        for x, a, w in zip(operands[first:], ctx.avals_in,
                           physical([exported.in_avals[i] for i in exported.module_kept_var_idx]))]
    outs = ctx.op("func.call", operands, physical(exported.out_avals),
                  {"callee": f"@{prefix}main"})
    return [o if ctx.type(w) == ctx.type(a) else ctx.op1("stablehlo.convert", [o], a)
            for o, w, a in zip(outs, physical(exported.out_avals), out_avals)]


def _call_source(gen, eqn):
    # the Exported is passed as the very object (it holds the serialized module)
    return call(f"{gen.inject(call_exported_p, 'call_exported_p')}.bind",
                [gen.arg(a) for a in eqn.invars],
                exported=load(gen.inject(eqn.params["exported"], "exported")))


register(call_exported_p, abstract_eval=_call_abstract_eval, lowering=_call_lowering,
         source=_call_source)
mark_unsupported(call_exported_p, "impl", "an exported module is StableHLO only XLA runs: "
                 "an eager call compiles a program of the one call")
mark_unsupported(call_exported_p, "jvp", "Exported.call is differentiated in reverse mode "
                 "through the exported VJP (a custom_vjp), as in JAX; forward mode is not "
                 "available for an exported function")
mark_unsupported(call_exported_p, "batch", "an exported function has a fixed signature "
                 "(JAX has no batching rule for call_exported either); export the vmapped "
                 "function instead")


# ------------------------------------------------------------------ dim_as_value
# A symbolic dimension (astjax/shape_poly.py) used as a value: `jnp.sum(x) / x.shape[0]`
# inside a function exported with symbolic shapes. Its lowering computes the
# dimension from the module's dimension variables (codegen/dynamic_shapes.py).
dim_as_value_p = core.new_primitive("dim_as_value")


def _dim_as_value_abstract_eval(*, dimension):
    del dimension
    return ShapedArray((), dtypes.canonicalize(np.int64), weak_type=True)


def _dim_as_value_lowering(ctx, *, dimension):
    v = ctx.mb.dim_value(dimension)
    if ctx.avals_out[0].dtype != np.int32:
        v = ctx.op1("stablehlo.convert", [v])
    return v


def dim_as_value(dimension):
    """The symbolic dimension `dimension` as a weak-typed integer scalar value."""
    return dim_as_value_p.bind(dimension=dimension)


register(dim_as_value_p, abstract_eval=_dim_as_value_abstract_eval,
         lowering=_dim_as_value_lowering)
nondiff(dim_as_value_p)
mark_unsupported(dim_as_value_p, "impl", "Evaluation rule for 'dim_as_value' is not "
                 "implemented. It seems that you are using shape polymorphism outside "
                 "jax.export.")
mark_unsupported(dim_as_value_p, "batch", "it has no operands, so it is never batched")


# ------------------------------------------------------------------ platform_index
# `lax.platform_dependent`'s choice (astjax/lax_extras.py): the index of the branch for
# the platform being *lowered for* -- a constant in each platform's function of a
# multi-platform export, so XLA keeps one branch of the `case`. `platforms`: per branch
# a tuple of platform names, None for the default branch.
platform_index_p = core.new_primitive("platform_index")


class NoPlatformBranchError(AstjaxError, NotImplementedError):
    """`lax.platform_dependent` run eagerly with no branch for the default device's
    platform and no default: JAX's NotImplementedError (its message names the
    missing lowering of `platform_index`), located."""
    default_hint = "add a branch for this platform or a default= branch"


def platform_index_of(platform, platforms):
    """The branch `platform_index` picks for `platform`: the first whose names hold
    it (verbatim, as JAX compares them), else the default (None); without one, the
    message of JAX's NotImplementedError."""
    for i, names in enumerate(platforms):
        if names is None or platform in names:
            return i, None
    return None, (f"MLIR translation rule for primitive 'platform_index(platforms="
                  f"{platforms})' not found for platform {platform}")


def _platform_index(platform, platforms):
    index, missing = platform_index_of(platform, platforms)
    if missing:
        raise NotImplementedError(missing)
    return index


def _platform_index_lowering(ctx, *, platforms):
    return ctx.constant(_platform_index(ctx.platform, platforms), ctx.avals_out[0])


register(platform_index_p, abstract_eval=lambda *, platforms: ShapedArray((), np.int32),
         lowering=_platform_index_lowering)
nondiff(platform_index_p)
mark_unsupported(platform_index_p, "batch", "it has no operands, so it is never batched")
mark_unsupported(platform_index_p, "impl", "run eagerly, lax.platform_dependent picks the "
                 "default device's branch itself; staged, the lowering platform decides")
