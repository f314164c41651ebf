"""`jax.ad_checkpoint`: `checkpoint` / `remat`, `checkpoint_name`, the
`checkpoint_policies` and `print_saved_residuals` (what reverse mode keeps from the
forward pass for the backward pass: one line per residual, its type and where it
comes from).

astjax's `checkpoint` accepts a `policy` and recomputes everything inside the
checkpointed function (the policy decides only what may be saved, never the values),
and `checkpoint_name` is the identity on values.
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import types

from astjax import ad_api, tree_util
from astjax.ad_api import checkpoint, remat
from astjax.transforms import ad

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies",
           "print_saved_residuals", "saved_residuals"]


def checkpoint_name(x, name):
    """`x`, named `name` for the `save_*_names` policies (the identity on values)."""
    del name
    return tree_util.tree_map(lambda v: v, x)


def _is_dot(prim) -> bool:
    return getattr(prim, "name", str(prim)) in ("dot_general", "dot")


def _everything_saveable(*_, **__):
    return True


def _nothing_saveable(*_, **__):
    return False


def _dots_saveable(prim, *_, **__):
    return _is_dot(prim)


def _dots_with_no_batch_dims_saveable(prim, *_, **params):
    if not _is_dot(prim):
        return False
    (_, _), (lhs_batch, rhs_batch) = params.get("dimension_numbers", (((), ()), ((), ())))
    return not lhs_batch and not rhs_batch


def _named(prim, params) -> str | None:
    return params.get("name") if getattr(prim, "name", "") == "name" else None


def _save_anything_except_these_names(*names):
    def policy(prim, *_, **params):
        return _named(prim, params) not in names
    return policy


def _save_any_names_but_these(*names):
    def policy(prim, *_, **params):
        n = _named(prim, params)
        return n is not None and n not in names
    return policy


def _save_only_these_names(*names):
    def policy(prim, *_, **params):
        return _named(prim, params) in names
    return policy


def _save_from_both_policies(policy_1, policy_2):
    def policy(prim, *args, **params):
        return policy_1(prim, *args, **params) or policy_2(prim, *args, **params)
    return policy


class _Policies(types.SimpleNamespace):
    """The remat policies by name (`jax.checkpoint_policies`): each decides which
    values a `checkpoint` may save for the backward pass."""

    def __repr__(self):
        return f"checkpoint_policies({', '.join(sorted(vars(self)))})"


checkpoint_policies = _Policies(
    everything_saveable=_everything_saveable,
    nothing_saveable=_nothing_saveable,
    dots_saveable=_dots_saveable,
    checkpoint_dots=_dots_saveable,
    dots_with_no_batch_dims_saveable=_dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=_dots_with_no_batch_dims_saveable,
    save_anything_except_these_names=_save_anything_except_these_names,
    save_any_names_but_these=_save_any_names_but_these,
    save_only_these_names=_save_only_these_names,
    save_from_both_policies=_save_from_both_policies,
)


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
        for path, _ in tree_util.tree_flatten_with_path(a)[0]:
            names.append(base + tree_util.keystr(path))
    for k, a in kwargs.items():
        for path, _ in tree_util.tree_flatten_with_path(a)[0]:
            names.append(k + tree_util.keystr(path))
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
    """` from file:line:col (function)` as JAX prints it."""
    if not getattr(info, "file", None) or not info.line:
        return ""
    col = f":{info.col}" if info.col is not None else ""
    at = (info.line, info.col or 0)
    inside = [(b[0] - a[0], b[1] - a[1] if b[0] == a[0] else 0, name)
              for a, b, name in _function_spans(info.file) if a <= at <= b]
    fn = f" ({min(inside)[2]})" if inside else ""
    return f" from {info.file}:{info.line}{col}{fn}"


def _producer(jaxpr, var):
    """The equation computing `var`, looking through higher-order equations (checkpoint,
    pjit-like calls) to the inner equation that computes the value."""
    for eqn in jaxpr.eqns:
        for i, v in enumerate(eqn.outvars):
            if v is var:
                inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
                inner = getattr(inner, "jaxpr", inner)
                if inner is not None and hasattr(inner, "eqns") and i < len(inner.outvars):
                    found = _producer(inner, inner.outvars[i])
                    if found is not None:
                        return found
                return eqn
    return None


def saved_residuals(f, *args, **kwargs) -> list[tuple]:
    """[(aval, description)] of the values reverse mode saves for `f(*args, **kwargs)`:
    arguments first (in argument order), then intermediates (in program order)."""
    closed, _, _, _ = ad_api._stage(f, args, kwargs)
    nz = [ad.differentiable(v.aval) for v in closed.jaxpr.invars]
    known, _, _, nres = ad.linearize_jaxpr(closed, nz)
    jaxpr = ad.cleanup(known).jaxpr
    names = _arg_names(f, args, kwargs)
    invars = {id(v): i for i, v in enumerate(jaxpr.invars)}
    constvars = {id(v) for v in jaxpr.constvars}
    order = {id(v): k for k, eqn in enumerate(jaxpr.eqns) for v in eqn.outvars}
    found = []
    for v in jaxpr.outvars[len(jaxpr.outvars) - nres:]:
        aval = getattr(v, "aval", None)
        if id(v) in invars:
            i = invars[id(v)]
            what = f"from the argument {names[i]}" if i < len(names) else "from an argument"
            key = (0, i)
        elif id(v) in constvars:
            what, key = "from a constant", (1, 0)
        elif id(v) in order:
            eqn = _producer(jaxpr, v)
            what = f"output of {eqn.primitive.name}{_where(eqn.source_info)}"
            key = (2, order[id(v)])
        else:
            what, key = "a literal", (3, 0)
        if (key, what) not in [(k, w) for k, _, w in found]:
            found.append((key, aval, what))
    return [(aval, what) for _, aval, what in sorted(found, key=lambda t: t[0])]


def print_saved_residuals(f, *args, **kwargs) -> None:
    """Print one line per residual: its type and where it comes from."""
    for aval, what in saved_residuals(f, *args, **kwargs):
        short = aval.str_short() if hasattr(aval, "str_short") else str(aval)
        print(f"{short} {what}")
