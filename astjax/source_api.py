"""`astjax.source(fn, *args)`: the Python source of a staged or transformed function,
and `astjax.source_function(fn, *args)`: that source compiled into a function.

Works for anything astjax can stage: plain functions, `jit`, and the transforms
(`grad`, `jvp`, `vjp`, `vmap`, ... and their compositions — every astjax callable is
a `staging.StagedCallable`, and `api.Jitted(f).stage(*args)` stages any of them).
The text is generated from the IR by `astjax.codegen.pysource` and registered in
`linecache` under a file name of its own, so astjax can stage the generated function
again (`astjax.jit(astjax.source_function(astjax.grad(f), x))`), tracebacks show its
lines, and `inspect.getsource` finds it.
"""
from __future__ import annotations

import inspect
import itertools
import linecache
import re
from collections.abc import Callable
from typing import Any

from . import api, dtypes, tree_util
from .codegen import pysource
from .errors import ArgumentTypeError, AstjaxError, caller_location
from .staging import StagedCallable
from .traceback_util import user_traceback

__all__ = ["source", "source_function"]

_counter = itertools.count(1)


class SourceArgumentsError(AstjaxError, TypeError):
    default_hint = ("pass example arguments: astjax.source(f, x, y) (arrays, or "
                    "astjax.ShapeDtypeStruct(shape, dtype) placeholders), or call the "
                    "jitted function once first so its signature is known")


def _unwrap(fn):
    """The innermost user function (for its name, signature and closure)."""
    seen = set()
    while id(fn) not in seen:
        seen.add(id(fn))
        for a in ("fun", "f", "fn", "func", "__wrapped__"):
            inner = getattr(fn, a, None)
            if inner is not None and callable(inner) and inner is not fn:
                fn = inner
                break
        else:
            break
    return fn


def _layer_name(fn):
    """`grad`, `vmap`, ... for an astjax transformed callable."""
    explicit = getattr(fn, "transform_name", None)
    if explicit:
        return explicit
    cls = type(fn).__name__
    if cls == "_Grad":
        return "value_and_grad" if getattr(fn, "with_value", False) else "grad"
    if cls == "_Jac":
        return "jacfwd" if getattr(fn, "mode", "rev") == "fwd" else "jacrev"
    return {"BatchedFunction": "vmap", "_Checkpoint": "checkpoint"}.get(
        cls, _snake(cls).strip("_"))


def _snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _describe(fn):
    """('grad(mse_loss)', 'grad_mse_loss'): what the function is, for the title and
    the generated function's name."""
    layers = []
    seen = set()
    while id(fn) not in seen:
        seen.add(id(fn))
        if isinstance(fn, api.Jitted):
            fn = fn.fun
            continue
        if isinstance(fn, StagedCallable):
            layers.append(_layer_name(fn))
            inner = None
            for a in ("fun", "f", "fn", "func", "__wrapped__"):
                cand = getattr(fn, a, None)
                if cand is not None and callable(cand) and cand is not fn:
                    inner = cand
                    break
            if inner is None:
                break
            fn = inner
            continue
        break
    base = getattr(fn, "__name__", None) or type(fn).__name__
    if base == "<lambda>":
        base = "fn"
    base = pysource.sanitize(base)
    title = base
    for layer in reversed(layers):
        title = f"{layer}({title})"
    ident = "_".join(pysource.sanitize(l) for l in layers + [base])
    return title, ident


def _param_names(fn, n):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return [f"arg{i}" for i in range(n)]
    names = []
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            names += [f"{p.name}_{i}" for i in range(max(0, n - len(names)))]
    return names


def _stage(fn, args, kwargs):
    """(ClosedJaxpr, in_tree, out_tree, dynamic positional names, statics)."""
    j = fn if isinstance(fn, api.Jitted) else api.Jitted(fn)
    dyn_args, dyn_kwargs, statics = j._split(args, kwargs)
    closed, out_tree = j.stage(*args, **kwargs)
    _, in_tree = tree_util.flatten_for_staging((tuple(dyn_args), dyn_kwargs))
    names = _param_names(fn, len(args))
    static_pos = {i for i, _ in statics if isinstance(i, int)}
    dyn_names = [n for i, n in enumerate(names[:len(args)]) if i not in static_pos]
    dyn_names += [f"arg{i}" for i in range(len(dyn_names), len(dyn_args))]
    return closed, in_tree, out_tree, dyn_names, statics


def _last_signature(fn):
    """The most recent signature `fn` (a jitted function) was compiled for."""
    cache = getattr(fn, "_cache", None)
    if not isinstance(cache, dict):  # transforms compile eager calls through a Jitted
        cache = getattr(getattr(fn, "_jitted", None), "_cache", None)
    if not isinstance(cache, dict) or not cache:
        return None
    x64 = dtypes.config.x64_enabled
    for key in reversed(list(cache)):
        if isinstance(key, tuple) and len(key) == 4 and key[3] == x64:
            statics, in_tree, _avals, _ = key
            entry = cache[key]
            return entry.closed, in_tree, entry.out_tree, statics
    return None


def _resolve(fn, args, kwargs):
    if not callable(fn):
        raise ArgumentTypeError(f"astjax.source needs a function, got {type(fn).__name__}",
                                hint="pass the function (or transformed function) itself, "
                                     "e.g. astjax.source(astjax.grad(f), x)",
                                loc=caller_location())
    if args or kwargs:
        closed, in_tree, out_tree, names, statics = _stage(fn, args, kwargs)
        return closed, in_tree, out_tree, names, statics
    last = _last_signature(fn)
    if last is None:
        inner = _unwrap(fn)
        try:
            nparams = len(inspect.signature(inner).parameters)
        except (TypeError, ValueError):
            nparams = 1
        if nparams == 0:
            return _stage(fn, (), {})
        raise SourceArgumentsError(
            f"astjax.source({getattr(inner, '__name__', 'fn')}) needs example arguments: "
            "astjax stages a function for given argument shapes and dtypes, and this "
            "function has not been compiled yet", loc=caller_location())
    closed, in_tree, out_tree, statics = last
    n = len(in_tree.children[0].children) + len(statics)
    static_pos = {i for i, _ in statics if isinstance(i, int)}
    names = [nm for i, nm in enumerate(_param_names(fn, n)) if i not in static_pos]
    return closed, in_tree, out_tree, names, statics


def _avals_text(in_tree, closed, names):
    avals = [v.aval.str_short(True) for v in closed.jaxpr.invars]
    args_td, kwargs_td = in_tree.children
    parts, it = [], iter(avals)
    trees = list(args_td.children) + list(kwargs_td.children if kwargs_td.node_type is dict else [])
    labels = list(names[:len(args_td.children)]) + (
        list(kwargs_td.aux) if kwargs_td.node_type is dict else [])
    labels += [f"arg{i}" for i in range(len(labels), len(trees))]
    for label, td in zip(labels, trees):
        leaves = [next(it) for _ in range(td.num_leaves)]
        parts.append(f"{label}: {_tree_text(td, iter(leaves))}")
    return ", ".join(parts)


def _tree_text(td, it):
    if td.node_type is None:
        return next(it)
    kids = [_tree_text(c, it) for c in td.children]
    if td.node_type is tuple:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if td.node_type is list:
        return "[" + ", ".join(kids) + "]"
    if td.node_type is dict:
        return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(td.aux, kids)) + "}"
    if td.node_type is type(None):
        return "None"
    return f"{getattr(td.node_type, '__name__', 'node')}(" + ", ".join(kids) + ")"


def _generate(fn, args, kwargs, comments=True):
    closed, in_tree, out_tree, names, statics = _resolve(fn, args, kwargs)
    title, ident = _describe(fn)
    inner = _unwrap(fn)
    main_file = getattr(getattr(inner, "__code__", None), "co_filename", None)
    head = f"{title} for {_avals_text(in_tree, closed, names)}"
    if statics:
        head += "; static: " + ", ".join(
            f"{names_k}={v!r}" for names_k, v in
            ((k if isinstance(k, str) else f"arg{k}", v) for k, v in statics))
    return pysource.generate(closed, in_tree, out_tree, name=ident, param_names=names,
                             user_fn=inner, comments=comments, title=head,
                             main_file=main_file)


def source(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The Python source astjax generates for `fn` at these example arguments (arrays,
    Python scalars, pytrees of them, or `astjax.ShapeDtypeStruct`s): readable and
    runnable; `astjax.source_function` compiles it. Without arguments, the most recent
    signature a jitted `fn` was compiled for is used."""
    try:
        return _generate(fn, args, kwargs)
    except AstjaxError as e:
        raise e.with_traceback(user_traceback(e)) from None


def _register_text(text, ident):
    filename = f"astjax-generated/{ident}_{next(_counter)}.py"
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    return filename


def compile_source(src):
    """Compile a GeneratedSource into its function (registered in linecache)."""
    filename = _register_text(str(src), src.name)
    namespace = {"__name__": "astjax_generated", "__file__": filename}
    namespace.update(src.globals)
    exec(compile(str(src), filename, "exec"), namespace)
    fn = namespace[src.name]
    fn.__astjax_source__ = src
    return fn


def source_function(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    """The generated source of `fn` (see `source`) as a function object: calling it
    runs the generated code eagerly, and `astjax.jit` stages it again from its source
    (held in `linecache` under a file name of its own)."""
    try:
        src = _generate(fn, args, kwargs)
    except AstjaxError as e:
        raise e.with_traceback(user_traceback(e)) from None
    return compile_source(src)
