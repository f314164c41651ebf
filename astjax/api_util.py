"""`astjax.api_util` (JAX's `jax.api_util`): the helpers libraries use to write their
own transformations on `extend.linear_util.WrappedFun`s -- flattening a function's
arguments and results (`flatten_fun`, `flatten_fun_nokwargs`), fixing the static
arguments (`argnums_partial`), per-leaf axis and donation specs (`flatten_axes`,
`donation_vector`, `rebase_donate_argnums`), `debug_info`, `shaped_abstractify` and
`safe_map`."""
from __future__ import annotations

import inspect
import os
from typing import Any, Callable, NamedTuple

from . import core, tree_util
from .extend.linear_util import WrappedFun

__all__ = ["shaped_abstractify", "argnums_partial", "debug_info", "donation_vector",
           "flatten_axes", "flatten_fun", "flatten_fun_nokwargs", "rebase_donate_argnums",
           "safe_map", "DebugInfo"]


def shaped_abstractify(x):
    """The abstract value (shape, dtype, weak type) of an array or scalar `x` (an
    abstract value or `ShapeDtypeStruct` as it is)."""
    if isinstance(x, core.ShapedArray):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(x, "__array__") \
            and not isinstance(x, core.Tracer):
        return core.ShapedArray(tuple(x.shape), x.dtype, bool(getattr(x, "weak_type", False)))
    return core.get_aval(x)


def safe_map(f: Callable, *args) -> list:
    """`list(map(f, *args))`, the sequences required to have one length."""
    args = [list(a) for a in args]
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise AssertionError(f"length mismatch: {list(map(len, args))}")
    return list(map(f, *args))


class _Store:
    """Where a flattening wrapper leaves the output tree (read after the call)."""

    def __init__(self):
        self.val = None

    def __call__(self):
        if self.val is None:
            raise AssertionError("the wrapped function has not been called yet")
        return self.val


def _flatten(f: WrappedFun, in_tree, kwargs: bool):
    store = _Store()

    def flat(*args_flat):
        unflat = tree_util.tree_unflatten(in_tree, list(args_flat))
        args, kw = unflat if kwargs else (unflat, {})
        out, store.val = tree_util.tree_flatten(f.f(*args, **{**f.params, **kw}))
        return out
    flat.__name__ = getattr(f.f, "__name__", "flat")
    return WrappedFun(flat, debug_info=f.debug_info), store


def flatten_fun(f: WrappedFun, in_tree):
    """(`g`, `out_tree`): `g(*leaves)` calls `f(*args, **kwargs)` where
    `(args, kwargs) = tree_unflatten(in_tree, leaves)` and returns the result's leaves;
    `out_tree()` is then the result's structure."""
    return _flatten(f, in_tree, True)


def flatten_fun_nokwargs(f: WrappedFun, in_tree):
    """As `flatten_fun`, `in_tree` the structure of the positional arguments alone."""
    return _flatten(f, in_tree, False)


def argnums_partial(f: WrappedFun, dyn_argnums, args, require_static_args_hashable=True):
    """(`g`, `dyn_args`): `g(*dyn_args)` calls `f` with every argument of `args`, the
    positions `dyn_argnums` taken from `g`'s arguments, the others fixed."""
    dyn = (dyn_argnums,) if isinstance(dyn_argnums, int) else tuple(dyn_argnums)
    dyn = tuple(d % len(args) if -len(args) <= d < len(args) else _out_of_range(d, args)
                for d in dyn)
    fixed = {i: a for i, a in enumerate(args) if i not in dyn}
    if require_static_args_hashable:
        for i, a in fixed.items():
            try:
                hash(a)
            except TypeError:
                raise ValueError(
                    "Non-hashable static arguments are not supported, as this can lead to "
                    f"unexpected cache-misses. Static argument (index {i}) of type "
                    f"{type(a)} for function {getattr(f.f, '__name__', f)} is "
                    "non-hashable.") from None

    def partial(*dyn_args):
        it = iter(dyn_args)
        return f.call_wrapped(*[fixed[i] if i in fixed else next(it)
                                for i in range(len(args))])
    return WrappedFun(partial, debug_info=f.debug_info), tuple(args[i] for i in dyn)


def _out_of_range(d, args):
    raise ValueError(f"argnum {d} is out of bounds for a function called with "
                     f"{len(args)} arguments")


def donation_vector(donate_argnums, donate_argnames, in_tree, kws=True) -> tuple:
    """One bool per leaf of `in_tree` (the `(args, kwargs)` tree; with `kws=False`
    the args tree): whether its argument is donated."""
    args_tree, kw_tree = (in_tree.children if kws else (in_tree, None))
    out: list = []
    for i, arg in enumerate(args_tree.children):
        out += [i in donate_argnums] * arg.num_leaves
    if kw_tree is not None:
        for key, val in zip(kw_tree.aux or (), kw_tree.children):
            out += [key in donate_argnames] * val.num_leaves
    return tuple(out)


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple:
    """`donate_argnums` renumbered for the argument list without the static
    arguments: `rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)`."""
    static, donate = sorted(set(static_argnums)), sorted(set(donate_argnums))
    if set(static) & set(donate):
        raise ValueError(f"`static_argnums` {static} and `donate_argnums` {donate} cannot "
                         "intersect.")
    return tuple(d - sum(s < d for s in static) for d in donate)


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False) -> list:
    """The axis spec `axis_tree` (ints and Nones, a prefix of `treedef`'s tree)
    repeated over `treedef`'s leaves; a ValueError naming `name` if it is no prefix."""
    full = tree_util.tree_unflatten(treedef, [object()] * treedef.num_leaves)
    out: list = []
    try:
        tree_util.tree_map(lambda ax, sub: out.extend([ax] * tree_util.tree_structure(
            sub).num_leaves), axis_tree, full, is_leaf=lambda a: a is None)
    except ValueError as e:
        hint = (f" Note that {name} that are non-trivial pytrees should always be wrapped "
                "in a tuple representing the argument list.") if tupled_args else ""
        raise ValueError(f"{name} specification must be a tree prefix of the "
                         f"corresponding value;{hint} {e}") from None
    return out


class DebugInfo(NamedTuple):
    """What a staged function was staged for (`traced_for`: 'jit', 'scan', ...), its
    name and place (`func_src_info`), and its argument and result names."""
    traced_for: str
    func_src_info: str
    arg_names: tuple | None
    result_paths: Any

    @property
    def func_name(self) -> str:
        """The function's name (the first word of `func_src_info`)."""
        return self.func_src_info.split(" ")[0]


def debug_info(traced_for, fun, args, kwargs, *, static_argnums=(), static_argnames=(),
               result_paths_thunk=None, sourceinfo=None, signature=None) -> DebugInfo:
    """The `DebugInfo` of staging `fun(*args, **kwargs)` for `traced_for`: argument
    names from its signature, one per array leaf of the non-static arguments."""
    if sourceinfo is None:
        name = getattr(fun, "__name__", "<unknown>")
        code = getattr(inspect.unwrap(fun), "__code__", None)
        sourceinfo = (f"{name} at {os.path.basename(code.co_filename)}:{code.co_firstlineno}"
                      if code is not None else name)
    try:
        sig = signature or inspect.signature(fun)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return DebugInfo(traced_for, sourceinfo, None, result_paths_thunk)
    names = []
    for i, (k, v) in enumerate(bound.arguments.items()):
        if i in static_argnums or k in static_argnames:
            continue
        for path, _ in tree_util.tree_flatten_with_path(v)[0]:
            names.append(k + tree_util.keystr(path))
    return DebugInfo(traced_for, sourceinfo, tuple(names), result_paths_thunk)
