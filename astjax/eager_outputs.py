"""An eager transformation hands back an input it passes through unchanged, as JAX's.

JAX runs `vmap(f)(x)`, `jvp(f, ...)`, `grad(f, has_aux=True)`, `checkpoint(f)` outside
`jit` op by op: a result no operation computed is the very object that was passed in
(`vmap(lambda v: v)(x) is x`; lineax's `inexact_asarray` relies on it to promise no
copy). astjax compiles the transformation's program, whose results would all be new
Arrays. `hand_back` puts the input object back where the program's output is one of its
inputs (or a closed-over Array) unchanged. A `jit`'s own call keeps returning new
Arrays, as JAX's (`jit(lambda v: v)(x) is not x`).

`vmap` and `linearize` (as `jvp`, `ad_eager_values`) hand back any argument so passed
-- a NumPy array (of any dtype: a float64 one stays float64 without x64), a NumPy or
Python scalar -- as JAX's, whose op-by-op trace keeps it as the Python object it was
given. Elsewhere (`vjp`, `checkpoint`, a custom rule, grad's aux) JAX hands back its
own literal types there, so only device Arrays are handed back: a NumPy argument and
a Python scalar are converted by the program as before.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import core, dtypes, hi_values, tree_util
from .dispatch_keys import NoFastPath
from .primitives.custom_derivatives import checkpoint_p, custom_jvp_call_p, custom_vjp_call_p

__all__ = ["handed_back", "hand_back", "forwarded"]

# Jaxpr -> ((output position, ("in" | "const", position)), ...)
_FORWARDS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


# the equations JAX's eager transformations evaluate as Python (their body's results are
# its operands' objects): `checkpoint`'s and the custom rules' calls; an inner `jit` is a
# compiled call, whose results are new arrays
_PASSING = {checkpoint_p: "jaxpr", custom_jvp_call_p: "call_jaxpr",
            custom_vjp_call_p: "call_jaxpr"}


def forwarded(closed: core.ClosedJaxpr) -> tuple:
    """The outputs of `closed` that are one of its inputs or constants unchanged (also
    through a `checkpoint` or custom-rule call that returns its operand): pairs (output
    position, (kind, position)), kind "in" (an input) or "const" (a constant)."""
    j = closed.jaxpr
    hit = _FORWARDS.get(j)
    if hit is None:
        ins = {v: i for i, v in enumerate(j.invars)}
        consts = {v: i for i, v in enumerate(j.constvars)}
        alias = _aliases(j)
        outs = [alias.get(v, v) if isinstance(v, core.Var) else None for v in j.outvars]
        hit = _FORWARDS[j] = tuple(
            (o, ("in", ins[v]) if v in ins else ("const", consts[v]))
            for o, v in enumerate(outs) if v is not None and (v in ins or v in consts))
    return hit


def _aliases(j) -> dict:
    """{variable: the variable it is} for the results of `j`'s `_PASSING` equations
    whose body returns one of its operands unchanged."""
    alias: dict = {}
    for eqn in j.eqns:
        name = _PASSING.get(eqn.primitive)
        body = eqn.params.get(name) if name else None
        body = getattr(body, "jaxpr", body)
        if body is None or len(body.invars) != len(eqn.invars):
            continue
        pos = {v: i for i, v in enumerate(body.invars)}
        for out, v in zip(eqn.outvars, body.outvars):
            src = eqn.invars[pos[v]] if isinstance(v, core.Var) and v in pos else None
            if isinstance(src, core.Var):
                alias[out] = alias.get(src, src)
    return alias


def hand_back(closed, leaves, out, hosts=False):
    """`out` (the results of the compiled `closed` called on the flat arguments
    `leaves`) with each result that is an input (a constant) of the program unchanged
    replaced by that input's (constant's) object when it is a device Array; `hosts`:
    an input's object also when it is a NumPy array or a NumPy or Python scalar."""
    fwd = forwarded(closed) if closed is not None else ()
    if not fwd:
        return out
    outs, tree = tree_util.flatten_for_staging(out)
    if len(outs) != len(closed.jaxpr.outvars) or len(leaves) != len(closed.jaxpr.invars):
        return out
    changed = False
    for o, (kind, i) in fwd:
        given = leaves[i] if kind == "in" else closed.consts[i]
        if (isinstance(given, core.Array) or hosts and kind == "in" and _host(given)) \
                and not isinstance(given, core.Tracer) and given is not outs[o]:
            outs[o], changed = given, True
    return tree_util.tree_unflatten(tree, outs) if changed else out


def _host(v) -> bool:
    """Whether `v` is a host value an eager `vmap` / `linearize` keeps as given."""
    return isinstance(v, (np.ndarray, np.generic, bool, int, float, complex)) \
        and not dtypes.has_extended_dtype(v)


def handed_back(jitted, args, kwargs, out, hosts=False):
    """`hand_back` (with `hosts`) for the call `jitted(*args, **kwargs)` that gave `out`
    (an eager transformation's program, `api.Jitted.run_compiled`): its compiled entry found
    by the call's dispatch key, else by its full key (kept by the call: no staging)."""
    if jitted.__dict__.get("_hi_caps"):   # (hijax Variables: another program's results)
        return out
    leaves: list = []
    try:
        entry = jitted._fast.get(jitted._signature(args, kwargs, leaves))
    except (NoFastPath, TypeError):   # (TypeError: an unhashable static argument)
        entry = None
    if entry is None:
        if hi_values.has_mutable((args, kwargs)):   # (hijax Variables: `_call_hi`'s)
            return out
        entry, leaves = jitted._entry(args, kwargs, cached_only=True)
    return hand_back(getattr(entry, "closed", None), leaves, out, hosts)
