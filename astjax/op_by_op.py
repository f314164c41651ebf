"""What runs now while an eager transformation stages its function.

JAX runs `grad(f)(x)`, `vmap(f)(x)`, `jvp(f, ...)` outside `jit` op by op: an operation
none of whose operands is a transformed value gives a concrete array, so Python control
flow and `int()` on it are Python's (`if m[0, 0] == 1.0:` of a global `m`). astjax
stages the function to compile it; while it stages the function's own builder
(`function_builder`), `core.bind` runs such an operation now (`values`) and stages only
the rest. Under `jit` everything stays staged, as JAX's omnistaging.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from . import core, dtypes, tree_util

__all__ = ["function_builder", "values", "stages_function", "known_values", "compile_options"]


@contextmanager
def function_builder(depth):
    """While the builder at `depth` (the next one) stages an eager transformation's own
    function, every builder below it staging what JAX runs op by op."""
    state = core._state
    marked = state.op_by_op
    state.op_by_op = marked | {depth}
    try:
        yield
    finally:
        state.op_by_op = marked


def values(prim, args, params):
    """`args` as values when `prim` applied to them runs now while an eager
    transformation stages its function (`core._state.op_by_op`), else None: in that
    function's own builder (not a loop body's or an inner `jit`'s), on operands none of
    which is staged (a constant the library staged, a literal or a constvar, is its
    value), as JAX's op-by-op transformation gives a concrete array there. An effect (a
    callback) stays staged: it happens on each call of the compiled program, as JAX's
    does on each eager call; so does a collective over a named axis in scope."""
    if core.primitives.get(prim.name) is not prim:
        return None   # (an extension primitive's impl runs as before: ad_eager_values)
    vals = known_values(args)
    if vals is None:
        return None
    names = {f.name for f in core._state.axis_frames if f.name is not None}
    if names and any(_names_axis(v, names) for v in params.values()):
        return None   # (a collective over a `vmap` axis: `psum(1, 'i')` is its size)
    return None if core.has_effects(core.Eqn(prim, (), (), params)) else vals


def stages_function() -> bool:
    """Whether the current builder stages an eager transformation's own function."""
    return len(core._state.builders) - 1 in core._state.op_by_op


def known_values(args):
    """`args` as values when the current builder stages an eager transformation's own
    function (`function_builder`) and none of them is staged (a constant the function
    staged, a literal or a constvar, is its value), else None. A typed key array over
    staged data is staged, as is a value of another extended dtype."""
    if not stages_function():
        return None
    builders, vals = core._state.builders, []
    for a in args:
        if isinstance(a, core.Tracer):
            a = _constant_value(builders[-1], a)
            if a is None:
                return None
        elif type(getattr(a, "aval", None)) is core.AbstractRef:
            return None
        if dtypes.has_extended_dtype(a) and (
                not tree_util.is_staging_leaf_type(type(a))   # (a user's extended dtype)
                or any(isinstance(x, core.Tracer) for x in tree_util.staging_leaves(a))):
            return None   # (a typed key array over staged data)
        vals.append(a)
    return vals


def _names_axis(v, names) -> bool:
    """Whether the param value `v` is (or holds) one of the axis `names` in scope."""
    if isinstance(v, (tuple, list, frozenset)):
        return any(_names_axis(x, names) for x in v)
    try:
        return v in names
    except TypeError:   # (unhashable)
        return False


def _constant_value(b, t):
    """The value of `b`'s staged constant `t` (a literal, a constvar), else None."""
    v = t._var
    if t.builder is not b or type(t) is not core.Tracer:
        return None
    if isinstance(v, core.Literal):
        return v.val.item() if v.aval.weak_type else np.asarray(v.val, v.aval.dtype)
    entry = b.consts.get(b.const_ids.get(v))
    return None if entry is None else entry[1]


# XLA computes a 16-bit float operation in float32 and may keep that excess precision
# across operations of one program; JAX's op-by-op evaluation rounds after each one
_NARROW = (np.dtype(dtypes.bfloat16), np.dtype(np.float16))
# operations whose 16-bit results are exact either way (they move or pick values)
_EXACT = frozenset({"select_n", "convert_element_type", "broadcast_in_dim", "reshape",
                    "squeeze", "transpose", "concatenate", "slice", "dynamic_slice",
                    "dynamic_update_slice", "gather", "pad", "rev", "copy", "iota", "neg",
                    "abs"})


def compile_options(closed) -> tuple:
    """The compile options of an eager transformation's program `closed`: excess
    precision off when it computes with 16-bit floats, so each such operation rounds
    as JAX's op-by-op evaluation does -- unless an inner `jit` computes with them (JAX
    compiles its equation whole, keeping XLA's excess precision inside it)."""
    narrow = False
    for eqn in core.all_eqns(closed):
        if eqn.primitive.name == "jit" and _computes_narrow(eqn.params["jaxpr"]):
            return ()
        narrow = narrow or _narrow_result(eqn)
    return (("xla_allow_excess_precision", False),) if narrow else ()


def _narrow_result(eqn) -> bool:
    """Whether `eqn` computes a 16-bit float (a call's body is walked on its own)."""
    if eqn.primitive.name in _EXACT or any(True for _ in core.sub_jaxprs(eqn.params)):
        return False
    return any(
        getattr(getattr(v, "aval", None), "dtype", None) in _NARROW for v in eqn.outvars)


def _computes_narrow(jaxpr) -> bool:
    return any(_narrow_result(e) for e in core.all_eqns(jaxpr))


core.op_by_op_values = values
