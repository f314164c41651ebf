"""JAX's messages, word for word, for a loop carry whose type or pytree structure the
body changes (`scan`, `while_loop`, `fori_loop`: `carry_mismatch`) and for `cond` /
`switch` branches whose outputs differ (`branch_mismatch`), including the manual-axis
types that disagree inside a `shard_map` body (`primitives/vma.py` decides when), and
the printed types they name (`float32[2,4]{V:x}`, `type_str`)."""
from __future__ import annotations

import functools
import inspect

from .. import tree_util
from ..errors import JAXTypeError, LoopCarryError, StructureError, caller_location

__all__ = ["type_str", "carry_error", "branch_error", "carry_mismatch", "branch_mismatch"]

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


# ---- loop carries and branch outputs of the wrong type or structure ---------------


def _mismatch(a, b) -> str:
    """JAX's `, so the dtypes do not match` (and/or the shapes) of two avals."""
    found = [w for w, bad in (("the dtypes do not match", a.dtype != b.dtype),
                              ("the shapes do not match", a.shape != b.shape)) if bad]
    return "" if not found else ", so " + (found[0] if len(found) == 1 else
                                           ", ".join(found[:-1]) + ", and " + found[-1])


def _differs(a, b) -> bool:
    return a.shape != b.shape or a.dtype != b.dtype


def _is_leaf(t) -> bool:
    tree = tree_util.tree_structure(t)
    return tree.num_nodes == 1 and tree.num_leaves == 1


def _equality_errors(path, t1, t2):
    """(path, what t1 is, what t2 is, why they differ) for each place two pytrees'
    structures part (JAX's `tree_util.equality_errors`)."""
    if _is_leaf(t1) and _is_leaf(t2):
        return
    if type(t1) is not type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (path, f"{type(t1).__name__} of length {len(t1)}",
               f"{type(t2).__name__} of length {len(t2)}", "the lengths do not match")
        return
    (kc1, meta1), (kc2, meta2) = (tree_util.flatten_one_level_with_keys(t)
                                  for t in (t1, t2))
    if len(kc1) != len(kc2):
        keys = {getattr(k, "key", k) for k, _ in kc1} ^ {getattr(k, "key", k) for k, _ in kc2}
        diff = " ".join(map(repr, keys))

        def children(t, n):
            return f"{type(t)} with {n} child{'ren' if n > 1 else ''}"
        yield (path, children(t1, len(kc1)), children(t2, len(kc2)),
               "the numbers of children do not match"
               + (diff and f", with the symmetric difference of key sets: {{{diff}}}"))
        return
    if meta1 != meta2:
        yield (path, f"{type(t1)} with pytree metadata {meta1}",
               f"{type(t2)} with pytree metadata {meta2}",
               "the pytree node metadata does not match")
        return
    for (k, c1), (_, c2) in zip(kc1, kc2):
        yield from _equality_errors((*path, k), c1, c2)


# a stand-in leaf whose type prints as JAX's `pytree leaf`
_Leaf = type("LeafMeta", (type,), {"__repr__": lambda _: "pytree leaf"})("Leaf", (), {})


def _sentences(diffs, loop, capitalize=True):
    """JAX's differences: one sentence (capitalized), or bullets."""
    if len(diffs) == 1:
        return (diffs[0][0].upper() + diffs[0][1:] if capitalize else diffs[0]) + ".\n"
    return _bullets(diffs, loop)


def _carry_component(body_fun):
    """JAX's name of a carry component: the body's first parameter and the path."""
    try:
        name = next(iter(inspect.signature(body_fun).parameters), None)
    except (TypeError, ValueError):
        name = None
    if name:
        return lambda p: (f"the input carry component {name}{tree_util.keystr(p)}" if p
                          else f"the input carry {name}")
    return lambda p: (f"the input carry at path {tree_util.keystr(p)}" if p
                      else "the input carry")


def carry_mismatch(what, body_fun, in_tree, in_avals, out_tree, out_avals):
    """JAX's TypeError when a loop body (`what`: 'scan body', 'while_loop body') returns
    a carry of another pytree structure or other types than it was given."""
    component = _carry_component(body_fun)
    if in_tree != out_tree:
        diffs = [f"{component(p)} is a {a} but the corresponding component of the carry "
                 f"output is a {b}, so {why}" for p, a, b, why in _equality_errors(
                     (), tree_util.tree_unflatten(in_tree, in_avals),
                     tree_util.tree_unflatten(out_tree, out_avals))]
        if diffs:
            raise LoopCarryError(
                f"{what} function carry input and carry output must have the same pytree "
                f"structure, but they differ:\n\n{_sentences(diffs, True)}\nRevise the "
                "function so that the carry output has the same pytree structure as the "
                "carry input.", loc=caller_location(),
                hint="return the carry in the containers it came in (same tuple / dict / "
                     "class, same lengths)")
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(in_tree, in_avals))[0]]
    diffs = [f"{component(p)} has type {type_str(a, ())} but the corresponding output "
             f"carry component has type {type_str(b, ())}{_mismatch(a, b)}"
             for p, a, b in zip(paths, in_avals, out_avals) if _differs(a, b)]
    if diffs:
        raise LoopCarryError(
            f"{what} function carry input and carry output must have equal types, but "
            f"they differ:\n\n{_sentences(diffs, True)}\nRevise the function so that all "
            "output types match the corresponding input types.", loc=caller_location())


def branch_mismatch(api, names, funs, trees, avals):
    """JAX's TypeError when the second branch's outputs (`trees[1]`, `avals[1]`) differ
    from the first's in pytree structure or types (`names`: 'true_fun', 'false_fun' or
    'branch 0', 'branchN'; `funs` the branch functions)."""
    head = (f"{names[0]} is {_fun_info(funs[0])}\n{names[1]} is {_fun_info(funs[1])}\n\n")
    if trees[0] != trees[1]:
        diffs = [f"{names[0]} output{_at(p)} is a {a} but {names[1]} output{_at(p)} is a "
                 f"{b}, so {why}" for p, a, b, why in _equality_errors(
                     (), *(tree_util.tree_unflatten(t, [_Leaf()] * t.num_leaves)
                           for t in trees))]
        if diffs:
            raise StructureError(
                f"{api} branch outputs must have the same pytree structure, but they "
                f"differ:\n\n{head}{_sentences(diffs, True, capitalize=False)}\nRevise "
                f"{names[0]} and/or {names[1]} so that they have the same pytree "
                "structure.", loc=caller_location(),
                hint="return the same containers (tuple / dict / class, same lengths) from "
                     "every branch")
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(trees[0], avals[0]))[0]]
    diffs = [f"the output of {names[0]}{_at(p)} has type {type_str(a, ())} but the "
             f"corresponding output of {names[1]} has type {type_str(b, ())}"
             f"{_mismatch(a, b)}" for p, a, b in zip(paths, *avals) if _differs(a, b)]
    if diffs:
        raise LoopCarryError(
            f"{api} branches must have equal output types but they differ.\n\n{head}"
            f"{_sentences(diffs, False)}\nRevise {names[0]} and/or {names[1]} so that all "
            "output types match.", loc=caller_location(),
            hint="make the branches return the same shapes and dtypes")


def _at(path) -> str:
    return f" at path {tree_util.keystr(path)}" if path else ""
