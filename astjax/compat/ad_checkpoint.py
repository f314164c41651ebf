"""`jax.ad_checkpoint`: `checkpoint_name`, the `checkpoint_policies` (their functions
in `astjax.compat._checkpoint_policies`), the policy answers `Saveable` / `Recompute` /
`Offloadable`, and `print_saved_residuals` (what reverse mode keeps from the forward
pass for the backward pass: one line per residual, its type and where it comes from).

`checkpoint_name(x, name)` is the identity on values, staged as a `name` equation the
name-based policies look for. `checkpoint` and `remat` are `jax.checkpoint` /
`jax.remat` (jax 0.10.2 removed them from this module).
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache

from astjax import ad_api as _ad_api, tree_util as _tree_util
from astjax.compat._checkpoint_policies import checkpoint_policies  # noqa: F401
from astjax.primitives.custom_derivatives import name_p as _name_p
from astjax.transforms import ad as _ad
from astjax.transforms.remat import Offloadable, Recompute, Saveable  # noqa: F401

__all__ = ["checkpoint_name", "checkpoint_policies",
           "print_saved_residuals", "saved_residuals", "Saveable", "Recompute",
           "Offloadable"]


def checkpoint_name(x, name):
    """`x` (an array or a pytree of arrays) unchanged, each leaf named `name` for the
    name-based `checkpoint_policies` (`save_only_these_names`, ...)."""
    return _tree_util.tree_map(lambda v: _name_p.bind(v, name=name), x)


def _arg_names(fun, args, kwargs) -> list[str]:
    """One name per flattened argument leaf: the parameter name and the leaf's path."""
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) and params[i] not in ("args", "kwargs") \
            else f"args[{i}]"
        for path, _ in _tree_util.tree_flatten_with_path(a)[0]:
            names.append(base + _tree_util.keystr(path))
    for k, a in kwargs.items():
        for path, _ in _tree_util.tree_flatten_with_path(a)[0]:
            names.append(k + _tree_util.keystr(path))
    return names


@functools.lru_cache(maxsize=64)
def _function_spans(file: str) -> tuple:
    """((line, col), (end_line, end_col), qualname) of every function and lambda in
    `file`, qualified as Python does (`outer.<locals>.inner`, `<lambda>`)."""
    try:
        tree = ast.parse("".join(linecache.getlines(file)))
    except SyntaxError:
        return ()
    spans = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                name = prefix + getattr(child, "name", "<lambda>")
                spans.append(((child.lineno, child.col_offset),
                              (child.end_lineno, child.end_col_offset), name))
                visit(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return tuple(spans)


def _where(info) -> str:
    """` from file:line:col (function)` as JAX prints it (` from ` alone for an
    equation made where there is no user line: a checkpoint's offloading copies)."""
    if not getattr(info, "file", None) or not info.line:
        return " from "
    col = f":{info.col}" if info.col is not None else ""
    at = (info.line, info.col or 0)
    inside = [(b[0] - a[0], b[1] - a[1] if b[0] == a[0] else 0, name)
              for a, b, name in _function_spans(info.file) if a <= at <= b]
    fn = f" ({min(inside)[2]})" if inside else ""
    return f" from {info.file}:{info.line}{col}{fn}"


def _producer(jaxpr, var, path=()):
    """(equation computing `var`, its position: indices of the equations leading to
    it), looking through higher-order equations (checkpoint, pjit-like calls) to the
    inner equation that computes the value."""
    for k, eqn in enumerate(jaxpr.eqns):
        for i, v in enumerate(eqn.outvars):
            if v is var:
                inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
                inner = getattr(inner, "jaxpr", inner)
                if eqn.primitive.name == "jit":   # (JAX names the jitted function)
                    return eqn, path + (k,)
                if inner is not None and hasattr(inner, "eqns") and i < len(inner.outvars):
                    found = _producer(inner, inner.outvars[i], path + (k,))
                    if found[0] is not None:
                        return found
                return eqn, path + (k,)
    return None, path


def saved_residuals(f, *args, **kwargs) -> list[tuple]:
    """[(aval, description)] of the values reverse mode saves for `f(*args, **kwargs)`:
    arguments first (in argument order), then intermediates (in program order)."""
    closed, _, _, _ = _ad_api._stage(f, args, kwargs)
    nz = [_ad.differentiable(v.aval) for v in closed.jaxpr.invars]
    known, _, _, nres = _ad.linearize_jaxpr(closed, nz)
    jaxpr = _ad.cleanup(known).jaxpr
    names = _arg_names(f, args, kwargs)
    invars = {id(v): i for i, v in enumerate(jaxpr.invars)}
    constvars = {id(v) for v in jaxpr.constvars}
    produced = {id(v) for eqn in jaxpr.eqns for v in eqn.outvars}
    found, seen = [], set()
    for v in jaxpr.outvars[len(jaxpr.outvars) - nres:]:
        if id(v) in seen:
            continue
        seen.add(id(v))
        aval = getattr(v, "aval", None)
        if id(v) in invars:
            i = invars[id(v)]
            what = f"from the argument {names[i]}" if i < len(names) else "from an argument"
            key = (0, i)
        elif id(v) in constvars:
            what, key = "from a constant", (1, 0)
        elif id(v) in produced:
            eqn, where = _producer(jaxpr, v)
            if eqn.primitive is _name_p:
                what = f"named '{eqn.params['name']}'{_where(eqn.source_info)}"
            elif eqn.primitive.name == "jit":
                what = (f"output of jitted function '{eqn.params['name']}'"
                        f"{_where(eqn.source_info)}")
            else:
                what = f"output of {eqn.primitive.name}{_where(eqn.source_info)}"
            key = (2,) + where
        else:
            what, key = "a literal", (3, 0)
        found.append((key, aval, what))
    return [(aval, what) for _, aval, what in sorted(found, key=lambda t: t[0])]


def print_saved_residuals(f, *args, **kwargs) -> None:
    """Print one line per residual: its type and where it comes from."""
    for aval, what in saved_residuals(f, *args, **kwargs):
        short = aval.str_short(True) if hasattr(aval, "str_short") else str(aval)
        print(f"{short} {what}")
