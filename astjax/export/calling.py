"""`Exported.call`: an exported function called from astjax code, eagerly, inside
`jit` and under `grad`.

The flat call binds the `call_exported` primitive (astjax/primitives/exported_call.py)
inside a `custom_vjp` whose residuals are the primal arguments and whose backward
pass calls the exported VJP (`exported.vjp()`: built on demand for an export made in
this process, or read back from a serialization made with `vjp_order >= 1`), as JAX
does. Before that, the call checks JAX's contract: the `(args, kwargs)` structure
must be the exported one, and the default platform one of `exported.platforms`
unless `DisabledSafetyCheck.platform()` was given. An export for several devices
runs inside a program partitioned over as many (a `jit` over a mesh of that size,
or an eager call on arrays laid out over it): the primitive's lowering checks the
count, as JAX's does, and lays arguments and results out as the export says.
"""
from __future__ import annotations

import numpy as np

from .. import core, tree_util
from ..custom_api import custom_vjp
from ..errors import caller_location
from ..primitives.exported_call import call_exported_p, check_arguments
from .lowering import ExportError, default_export_platform

__all__ = ["call_exported"]


def _check_platform(exported):
    if any(str(d) == "platform" for d in exported.disabled_safety_checks):
        return
    here = default_export_platform()
    if here not in exported.platforms:
        raise ExportError(f"Function '{exported.fun_name}' was exported for platforms "
                          f"'{exported.platforms}' but it is used on '{(here,)}'.",
                          hint="export for this platform too, or disable the check with "
                               "DisabledSafetyCheck.platform()", loc=caller_location())


def call_exported(exported):
    """`exported` (an `Exported`) as a function of its original `(args, kwargs)`
    structure, returning its result pytree."""
    if not hasattr(exported, "mlir_module_serialized"):
        raise ExportError(f"The exported argument must be an export.Exported. Found "
                          f"{exported!r:.80}.", loc=caller_location())
    # float0 arguments (integer inputs' cotangents) carry no data: they are checked,
    # never passed through the custom_vjp nor bound; the module does not read them
    avals = exported.in_avals
    live = [i for i, a in enumerate(avals) if a.dtype != core.float0]
    where = {i: k for k, i in enumerate(live)}
    if any(i not in where for i in exported.module_kept_var_idx):
        raise ExportError(f"Function '{exported.fun_name}' reads a float0 argument, which "
                          "carries no data", loc=caller_location())
    kept = [where[i] for i in exported.module_kept_var_idx]

    @custom_vjp
    def f_flat(*live_args):
        return list(call_exported_p.bind(*[live_args[k] for k in kept], exported=exported))

    def f_fwd(*live_args):
        return f_flat(*live_args), live_args

    def f_bwd(live_args, cts):
        exp_vjp = exported.vjp()
        args = [live_args[where[i]] if i in where else np.zeros(a.shape, core.float0)
                for i, a in enumerate(avals)]
        # an integer result's cotangent is float0 in the VJP's signature
        cts = [np.zeros(np.shape(c), core.float0) if want.dtype == core.float0 else c
               for c, want in zip(cts, exp_vjp.in_avals[len(avals):])]
        in_cts = call_exported(exp_vjp)(*args, *cts)
        return tuple(in_cts[i] for i in live)

    f_flat.defvjp(f_fwd, f_bwd)

    def f_imported(*args, **kwargs):
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            raise ExportError(
                "The invocation args and kwargs must have the same pytree structure as "
                f"when the function '{exported.fun_name}' was exported: called with "
                f"{in_tree}, exported with {exported.in_tree}", loc=caller_location())
        _check_platform(exported)
        check_arguments(exported, [core.get_aval(x) for x in leaves], range(len(leaves)))
        return tree_util.tree_unflatten(exported.out_tree, f_flat(*[leaves[i] for i in live]))
    return f_imported
