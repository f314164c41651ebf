"""The inspection commands of `python -m astjax`: `jaxpr`, `source`, `hlo`, `cost`,
`explain`.

Each takes `FILE:FUNC` (a path to a `.py` file, or a dotted module name, then a
function, possibly `Class.method`) and argument specs in jaxpr syntax: `f32[3,4]`,
`i32[]`, `bool[2]`, or a JSON pytree of them (`'{"w": "f32[3,2]", "b": "f32[2]"}'`);
a JSON number is passed as a Python scalar. A mistake is reported in one line
(`astjax: error: ...`, with the user's file:line:col when astjax located it) and
exit status 2, never a traceback.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import sys

import numpy as np

from . import api, dtypes
from .ad_api import grad
from .batching_api import vmap
from .codegen import runtime
from .errors import AstjaxError
from .explain import write_explain
from .source_api import source

__all__ = ["UsageError", "parse_spec", "resolve", "run_inspect"]

_SPEC = re.compile(r"^\s*([a-z]+[0-9]*)\s*\[\s*([0-9,\s]*)\]\s*$")
_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
           "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
           "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool",
           "c64": "complex64", "c128": "complex128"}


class UsageError(Exception):
    """A mistake on the command line: reported in one line, exit status 2."""


def parse_spec(text: str):
    """'f32[3,4]' -> a zero array of that shape and dtype; a JSON pytree of specs ->
    the same pytree of arrays; a JSON number -> that Python scalar."""
    m = _SPEC.match(text)
    if m:
        return _array(m.group(1), m.group(2), text)
    try:
        tree = json.loads(text)
    except json.JSONDecodeError:
        raise UsageError(f"bad argument spec {text!r}: expected e.g. f32[3,4], i32[] or a "
                         "JSON pytree of specs") from None
    return _from_json(tree, text)


def _array(short, dims, text):
    if short not in _DTYPES:
        raise UsageError(f"bad argument spec {text!r}: unknown dtype {short!r} (known: "
                         f"{', '.join(_DTYPES)})")
    shape = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
    return np.zeros(shape, dtypes.canonicalize(np.dtype(_DTYPES[short])))


def _from_json(tree, text):
    if isinstance(tree, str):
        m = _SPEC.match(tree)
        if not m:
            raise UsageError(f"bad argument spec {tree!r} inside {text!r}")
        return _array(m.group(1), m.group(2), tree)
    if isinstance(tree, bool) or isinstance(tree, (int, float)):
        return tree
    if isinstance(tree, list):
        return [_from_json(t, text) for t in tree]
    if isinstance(tree, dict):
        return {k: _from_json(v, text) for k, v in tree.items()}
    raise UsageError(f"bad argument spec {text!r}: JSON null is not a value")


def resolve(target: str):
    """'path/to/file.py:func' or 'package.module:Class.method' -> the function."""
    if ":" not in target:
        raise UsageError(f"expected FILE:FUNC or MODULE:FUNC, got {target!r}")
    where, _, name = target.rpartition(":")
    if where.endswith(".py") or os.path.sep in where:
        if not os.path.isfile(where):
            raise UsageError(f"no such file: {where}")
        mod_name = "_astjax_cli_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(where))[0])
        spec = importlib.util.spec_from_file_location(mod_name, where)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        sys.path.insert(0, os.path.dirname(os.path.abspath(where)))
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as e:
            raise UsageError(f"cannot import {where}: {e}") from None
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{where} has no attribute {name!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UsageError(f"{target} is not a function")
    return obj


def _ints(text, what):
    try:
        return tuple(int(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise UsageError(f"bad {what} {text!r}: expected comma-separated integers") from None


def _axes(text):
    out = []
    for p in text.split(","):
        p = p.strip()
        if p.lower() == "none":
            out.append(None)
        else:
            try:
                out.append(int(p))
            except ValueError:
                raise UsageError(f"bad --vmap axes {text!r}: integers or None") from None
    return tuple(out) if len(out) > 1 else out[0]


def _transformed(fn, ns):
    if getattr(ns, "vmap", None) is not None:
        fn = vmap(fn, in_axes=_axes(ns.vmap))
    if getattr(ns, "grad", False):
        argnums = _ints(ns.argnums, "--argnums") if ns.argnums else (0,)
        fn = grad(fn, argnums=argnums[0] if len(argnums) == 1 else argnums)
    return fn


def _cost(fn, args):
    exe = api.jit(fn).lower(*args).compile()._entry.executable.exe
    lines = []
    costs = exe.cost_analysis()
    costs = costs[0] if isinstance(costs, list) else costs
    for key in ("flops", "transcendentals", "bytes accessed"):
        if key in costs:
            lines.append(f"{key}: {costs[key]:g}")
    mem = exe.get_compiled_memory_stats()
    for key in ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes",
                "generated_code_size_in_bytes"):
        lines.append(f"{key.replace('_in_bytes', '').replace('_', ' ')} bytes: "
                     f"{getattr(mem, key)}")
    return "\n".join(lines)


def _optimized_hlo(lowered, debug_info):
    """XLA's optimized HLO; with `debug_info` compiled from the located StableHLO, so
    each op's metadata names the user's file and line (else the module text's lines)."""
    if not debug_info:
        return lowered.compile()._entry.executable.as_text()
    jaxpr = lowered._entry.closed.jaxpr
    return runtime.Executable(lowered.as_text(debug_info=True),
                              [v.aval for v in jaxpr.constvars + jaxpr.invars],
                              [a.aval for a in jaxpr.outvars]).as_text()


def run_inspect(command: str, ns) -> str:
    """The text a subcommand prints (raises UsageError or an AstjaxError)."""
    fn = resolve(ns.target)
    args = [parse_spec(s) for s in ns.args]
    if command == "jaxpr":
        return str(api.make_jaxpr(_transformed(fn, ns))(*args))
    if command == "source":
        return source(_transformed(fn, ns), *args)
    if command == "hlo":
        lowered = api.jit(_transformed(fn, ns)).lower(*args)
        if ns.optimized:
            return _optimized_hlo(lowered, ns.debug_info)
        return lowered.as_text(debug_info=ns.debug_info)
    if command == "cost":
        return _cost(_transformed(fn, ns), args)
    if command == "explain":
        argnums = _ints(ns.argnums, "--argnums") if ns.argnums else (0,)
        path = write_explain(ns.output, fn, *args,
                             argnums=argnums[0] if len(argnums) == 1 else argnums)
        return f"wrote {path}"
    raise UsageError(f"unknown command {command!r}")


def one_line(e: BaseException) -> str:
    """An error as the one line the command line prints."""
    if isinstance(e, AstjaxError):
        text = str(e).strip().splitlines()
        loc = text[0] if text else ""
        msg = next((ln for ln in text[1:] if ln.strip() and not ln.startswith(" ")), "")
        return f"{loc} {msg}".strip()
    return f"{type(e).__name__}: {e}"
