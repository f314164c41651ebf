"""JAX's messages for a program whose manual-axis types disagree inside a `shard_map`
body (`primitives/vma.py` decides when): a loop carry whose type the body changes, `cond`
/ `switch` branches typed differently, and the printed types they name
(`float32[2,4]{V:x}`, `type_str`)."""
from __future__ import annotations

import functools
import inspect

from .. import tree_util
from ..errors import JAXTypeError, LoopCarryError, caller_location

__all__ = ["type_str", "carry_error", "branch_error"]

_SCAN_VMA = ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for "
             "more information.\n\n")


def type_str(aval, vma, mesh=None, reduced=()):
    """JAX's `float32[2,4]{V:x}` / `float32[4,2]{V:y, R:x}` (the axes in mesh order,
    else sorted)."""
    base = f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"
    parts = []
    for tag, axes in (("V", vma), ("R", reduced)):
        names = ([a for a in mesh.axis_names if a in axes] if mesh is not None
                 else sorted(map(str, axes)))
        if names:
            parts.append(f"{tag}:" + (names[0] if len(names) == 1
                                      else "(" + ",".join(names) + ")"))
    return base + ("{" + ", ".join(parts) + "}" if parts else "")


def _bullets(items, loop):
    """JAX's list of sentences: one ends with a period; several are bullets (a loop's
    separated by blank lines)."""
    if len(items) == 1:
        return items[0] + ".\n"
    if loop:
        return "\n".join(f"  * {d};\n" for d in items[:-1]) + f"  * {items[-1]}.\n"
    return "\n".join(f"  * {d};" for d in items[:-1]) + f"\n  * {items[-1]}.\n"


def _found(diffs, fixes, loop):
    """The differences (capitalized when one) and the suggested fixes of JAX's message."""
    differences = _bullets(diffs, loop)
    if len(diffs) == 1:
        differences = differences[0].upper() + differences[1:]
    if not fixes:
        return differences, ""
    fix = (f"This might be fixed by {fixes[0]}.\n" if len(fixes) == 1 else
           "This might be fixed by:\n" + _bullets(fixes, loop))
    return differences, fix + _SCAN_VMA


def carry_error(eqn, invars, ins, outs, what, mesh):
    """JAX's TypeError when a loop body changes the manual-axis type of its carry:
    `ins` / `outs` are each carry's (varying, reduced) axes on the way in and out."""
    diffs, fixes = [], []
    for k, (v, i, o) in enumerate(zip(invars, ins, outs)):
        if (set(i[0]), set(i[1])) == (set(o[0]), set(o[1])):
            continue
        name = (f"the input carry {v.hint}" if getattr(v, "hint", None)
                else f"the input carry component [{k}]")
        diffs.append(f"{name} has type {type_str(v.aval, i[0], mesh, i[1])} but the "
                     "corresponding output carry component has type "
                     f"{type_str(v.aval, o[0], mesh, o[1])}, so the manual axis types do "
                     "not match")
        more = tuple(a for a in sorted(map(str, set(o[0]) - set(i[0]))))
        if more:
            fixes.append(f"applying `jax.lax.pcast(..., {more!r}, to='varying')`, to the "
                         f"initial carry value corresponding to {name}")
    if not diffs:
        return
    differences, fix = _found(diffs, fixes, True)
    raise LoopCarryError(
        f"{what} body function carry input and carry output must have equal types, but "
        f"they differ:\n\n{differences}\n{fix}Revise the function so that all output "
        "types match the corresponding input types.", loc=eqn.source_info)


def branch_error(jaxpr, vmas1, vmas2, f1, f2, name1, name2, out_tree, mesh):
    """JAX's TypeError for `cond` / `switch` branches (`f1` named `name1`, `f2`) whose
    results (`jaxpr`'s outputs, a tree `out_tree`) vary over different manual axes
    (`vmas1`, `vmas2`)."""
    try:
        paths = [p for p, _ in tree_util.tree_flatten_with_path(
            tree_util.tree_unflatten(out_tree, list(range(len(vmas1)))))[0]]
    except Exception:   # noqa: BLE001 -- (no paths: JAX's message names none either)
        paths = [()] * len(vmas1)

    def where(p):
        return f" at path {tree_util.keystr(p)}" if p else ""
    diffs, fixes = [], []
    for p, v, v1, v2 in zip(paths, jaxpr.outvars, vmas1, vmas2):
        if v1 == v2:
            continue
        diffs.append(f"the output of {name1}{where(p)} has type {type_str(v.aval, v1, mesh)} "
                     f"but the corresponding output of {name2} has type "
                     f"{type_str(v.aval, v2, mesh)}, so the manual axis types do not match")
        # (JAX's suggestion, as it words it: the axes the other output lacks)
        for n, o, m in ((name1, v2, v1), (name2, v1, v2)):
            if m - o:
                fixes.append(f"applying `jax.lax.pcast(..., {tuple(o - m)!r}, to='varying')` "
                             f"to the output of {n}{where(p)}")
    differences, fix = _found(diffs, fixes, False)
    api = "cond" if name1 == "true_fun" else "switch"
    raise JAXTypeError(
        f"{api} branches must have equal output types but they differ.\n\n"
        f"{name1} is {_fun_info(f1)}\n{name2} is {_fun_info(f2)}\n\n{differences}\n{fix}"
        f"Revise {name1} and/or {name2} so that all output types match.",
        loc=caller_location(), hint="make the branches' results vary alike "
                                    "(lax.pcast(..., to='varying') of the less varying one)")


def _fun_info(fun):
    """JAX's `name at file:line` of a branch function."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    fun = inspect.unwrap(fun)
    code = getattr(fun, "__code__", None)
    if code is None:
        return "<unknown>"
    return f"{fun.__name__} at {code.co_filename}:{code.co_firstlineno}"
