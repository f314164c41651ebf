"""`jax.ad_checkpoint`: `checkpoint_name`, the `checkpoint_policies`, the policy
answers `Saveable` / `Recompute` / `Offloadable`, and `print_saved_residuals` (what
reverse mode keeps from the forward pass for the backward pass: one line per residual,
its type and where it comes from).

A policy is called per equation of a checkpointed function as JAX calls it,
`policy(prim, *avals, **params)`, and answers whether the equation's outputs may be
saved (transforms/remat.py applies it). `checkpoint_name(x, name)` is the identity on
values, staged as a `name` equation the name-based policies look for.
`checkpoint` and `remat` are `jax.checkpoint` / `jax.remat` (jax 0.10.2 removed them
from this module).
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import linecache
import types

from astjax import ad_api, tree_util
from astjax.errors import ArgumentValueError
from astjax.primitives.custom_derivatives import name_p
from astjax.transforms import ad
from astjax.transforms.remat import Offloadable, Recompute, Saveable

__all__ = ["checkpoint_name", "checkpoint_policies",
           "print_saved_residuals", "saved_residuals", "Saveable", "Recompute",
           "Offloadable"]


def checkpoint_name(x, name):
    """`x` (an array or a pytree of arrays) unchanged, each leaf named `name` for the
    name-based `checkpoint_policies` (`save_only_these_names`, ...)."""
    return tree_util.tree_map(lambda v: name_p.bind(v, name=name), x)


def _is_dot(prim) -> bool:
    return getattr(prim, "name", None) == "dot_general"


def _no_batch_dims(params) -> bool:
    (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    return not lhs_batch and not rhs_batch


def _name_of(prim, params) -> str | None:
    return params.get("name") if prim is name_p else None


def everything_saveable(*_, **__) -> bool:
    """Save every value (reverse mode without `checkpoint`)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save nothing: recompute every intermediate (`checkpoint`'s default)."""
    return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """Save the outputs of matrix products (`dot_general`, convolutions); with
    `only_if_no_batch_dims`, only those of `dot_general`s without batch dimensions."""
    only_if_no_batch_dims: bool

    def __call__(self, prim, *avals, **params):
        name = getattr(prim, "name", None)
        if self.only_if_no_batch_dims:
            if name == "scaled_matmul_wrapper":
                return avals[0].shape[0] == 1
            return _is_dot(prim) and _no_batch_dims(params)
        return name in ("dot_general", "conv_general_dilated", "scaled_matmul_wrapper")


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """As `dots_with_no_batch_dims_saveable`, answering `Offloadable(src, dst)` for the
    values to keep (astjax keeps them where they are)."""
    def policy(prim, *_, **params):
        if _is_dot(prim) and _no_batch_dims(params):
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_anything_except_these_names(*names_not_to_save):
    """Save every value. (jax 0.10.2's policy of this name ignores `names_not_to_save`:
    astjax answers as it does.)"""
    del names_not_to_save
    return everything_saveable


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only the values named (by `checkpoint_name`) with one of `saveable_names`."""
    saveable_names: frozenset

    def __call__(self, prim, *_, **params):
        return _name_of(prim, params) in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only named values, except those named with one of `names`."""
    names: frozenset

    def __call__(self, prim, *_, **params):
        name = _name_of(prim, params)
        return name is not None and name not in self.names


def save_only_these_names(*names_which_can_be_saved):
    """Save only the values named (by `checkpoint_name`) with one of the given names."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save):
    """Save only the named values, except those with one of the given names."""
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src,
                                      offload_dst):
    """As `save_only_these_names`, answering `Offloadable(offload_src, offload_dst)` for
    the names in `names_which_can_be_offloaded` (the two lists must not overlap)."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ArgumentValueError(
            "`names_which_can_be_saved` and `names_which_can_be_offloaded` must not "
            f"share a name; both hold {sorted(saved & offloaded)}",
            hint="list each name in one of the two only")

    def policy(prim, *_, **params):
        name = _name_of(prim, params)
        if name in saved:
            return Saveable
        if name in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save a value when either policy saves it (both must answer bools)."""
    def policy(prim, *args, **params):
        a, b = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(a, bool) and isinstance(b, bool)):
            raise ArgumentValueError(
                f"save_from_both_policies needs policies answering bools; they answered "
                f"{a!r} and {b!r}",
                hint="write the combined policy as one function returning "
                     "Saveable / Recompute / Offloadable")
        return a or b
    return policy


class _Policies(types.SimpleNamespace):
    """The remat policies by name (`jax.checkpoint_policies`): each decides which
    values a `checkpoint` may save for the backward pass."""

    def __repr__(self):
        return f"checkpoint_policies({', '.join(sorted(vars(self)))})"


checkpoint_policies = _Policies(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
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
    closed, _, _, _ = ad_api._stage(f, args, kwargs)
    nz = [ad.differentiable(v.aval) for v in closed.jaxpr.invars]
    known, _, _, nres = ad.linearize_jaxpr(closed, nz)
    jaxpr = ad.cleanup(known).jaxpr
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
            if eqn.primitive is name_p:
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
        short = aval.str_short() if hasattr(aval, "str_short") else str(aval)
        print(f"{short} {what}")
