"""Generate the API reference, docs/reference/: one Markdown page per public module
(astjax, numpy, lax, nn, random, scipy.*, tree_util, sharding, ...) written from the
docstrings, with JAX-coverage marks, and an index page with the coverage table.

Each name of a page is marked against JAX 0.10.2: **JAX** (the same name exists in
the matching `jax` module), **astjax only**, and a table lists JAX's names astjax
lacks (using one raises `NotImplementedInAstjaxError`). JAX's names are data,
docs/jax_names.json (docs/record_jax_names.py recorded them; jax is not a runtime
dependency); astjax's side is read from the modules' actual attributes.

    python docs/gen_reference.py            # rewrite docs/reference/
    python docs/gen_reference.py --check    # exit 1 if docs/reference/ is stale

tests/test_reference_docs.py regenerates into a temporary folder and compares.
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "reference")

# jax module -> astjax module, in the order of the index
MODULES = {
    "jax": "astjax", "jax.numpy": "astjax.numpy", "jax.numpy.linalg": "astjax.numpy.linalg",
    "jax.numpy.fft": "astjax.numpy.fft", "jax.lax": "astjax.lax",
    "jax.lax.linalg": "astjax.lax_linalg", "jax.nn": "astjax.nn",
    "jax.nn.initializers": "astjax.nn.initializers", "jax.random": "astjax.random",
    "jax.scipy.special": "astjax.scipy.special", "jax.scipy.linalg": "astjax.scipy.linalg",
    "jax.scipy.stats": "astjax.scipy.stats",
    "jax.scipy.sparse.linalg": "astjax.scipy.sparse.linalg",
    "jax.scipy.optimize": "astjax.scipy.optimize", "jax.scipy.integrate": "astjax.scipy.integrate",
    "jax.scipy.interpolate": "astjax.scipy.interpolate",
    "jax.scipy.ndimage": "astjax.scipy.ndimage", "jax.scipy.fft": "astjax.scipy.fft",
    "jax.scipy.signal": "astjax.scipy.signal",
    "jax.scipy.cluster.vq": "astjax.scipy.cluster.vq",
    "jax.scipy.spatial.transform": "astjax.scipy.spatial.transform",
    "jax.tree_util": "astjax.tree_util",
    "jax.tree": "astjax.tree", "jax.sharding": "astjax.sharding",
    "jax.typing": "astjax.typing", "jax.dtypes": "astjax.dtypes",
    "jax.flatten_util": "astjax.flatten_util", "jax.debug": "astjax.debug",
    "jax.errors": "astjax.errors", "jax.stages": "astjax.stages",
    "jax.test_util": "astjax.test_util", "jax.distributed": "astjax.distributed",
    "jax.extend": "astjax.extend", "jax.interpreters": "astjax.interpreters",
    "jax.ffi": "astjax.ffi",
    "jax.image": "astjax.image",
    "jax.dlpack": "astjax.compat.dlpack",
    "jax.ops": "astjax.ops",
    "jax.monitoring": "astjax.monitoring",
    "jax.api_util": "astjax.api_util",
    "jax.custom_batching": "astjax.custom_batching",
    "jax.custom_derivatives": "astjax.compat.custom_derivatives",
    "jax.ad_checkpoint": "astjax.compat.ad_checkpoint",
    "jax.export": "astjax.export", "jax.profiler": "astjax.profiler",
}
KINDS = {"f": "function", "t": "class", "c": "constant", "m": "module"}
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def jax_names() -> dict:
    """{jax module: {name: kind}} as recorded from jax 0.10.2."""
    with open(os.path.join(HERE, "jax_names.json")) as f:
        return json.load(f)["modules"]


def _is_alias(value) -> bool:
    """A type alias such as `Union[...]` (callable, but not a function)."""
    return type(value).__module__ in ("typing", "types") and not inspect.isroutine(value)


def _kind(value) -> str:
    if isinstance(value, types.ModuleType):
        return "m"
    if inspect.isclass(value):
        return "t"
    return "f" if callable(value) and not _is_alias(value) else "c"


def astjax_names(mod) -> list[str]:
    """The module's public names: its `__all__`, else every public attribute that
    the module (or a module below it) defines -- not what it merely imports."""
    if hasattr(mod, "__all__"):
        return sorted(set(mod.__all__))
    own = []
    for name, value in vars(mod).items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        home = getattr(value, "__module__", None) if (callable(value) or
                                                      inspect.isclass(value)) else mod.__name__
        if isinstance(home, str) and home.startswith(mod.__name__):
            own.append(name)
    return sorted(own)


def _signature(name, value) -> str:
    try:
        sig = str(inspect.signature(value))
    except (TypeError, ValueError):
        return f"{name}(...)"
    return _ADDRESS.sub("", f"{name}{sig}")


def _docstring(value, kind) -> list[str]:
    """The docstring as Markdown: doctest examples become fenced code."""
    doc = inspect.getdoc(value) if kind in "ft" else None
    if kind == "t" and doc and doc == inspect.getdoc(type):
        doc = None
    if not doc:
        return ["*(no docstring)*"] if kind in "ft" else []
    out, in_example = [], False
    for line in _ADDRESS.sub("", doc).splitlines():
        stripped = line.strip()
        if stripped.startswith(">>>") and not in_example:
            out.append("```pycon")
            in_example = True
        elif in_example and not stripped:
            out.append("```")
            in_example = False
        out.append(line.strip() if in_example else line)
    if in_example:
        out.append("```")
    return out


def _entry(name, value, in_jax) -> list[str]:
    kind = _kind(value)
    mark = "JAX" if in_jax else "astjax only"
    lines = [f"### `{name}`", "", f"*{KINDS[kind]}* · **{mark}**", ""]
    if kind in "ft":
        lines += ["```python", _signature(name, value), "```", ""]
    elif _is_alias(value):
        lines += ["A type alias:", "", "```python", f"{name} = {value!r}", "```", ""]
    elif kind == "c":
        lines += [f"A `{type(value).__name__}` value.", ""]
    return lines + _docstring(value, kind) + [""]


def coverage(jax_module, names) -> tuple[list, list, list]:
    """(implemented JAX names, missing JAX names, astjax-only names) of one module."""
    mod = importlib.import_module(MODULES[jax_module])
    present = vars(mod)
    have = [n for n in names if n in present]
    missing = [n for n in names if n not in present]
    extra = [n for n in astjax_names(mod) if n not in names]
    return have, missing, extra


def page(jax_module, names) -> str:
    """The Markdown reference page of one module."""
    name = MODULES[jax_module]
    mod = importlib.import_module(name)
    have, missing, extra = coverage(jax_module, names)
    functions = [n for n in names if names[n] == "f"]
    lines = [f"# `{name}`", "",
             f"Mirrors `{jax_module}`: {len(have)} of its {len(names)} names "
             f"({sum(n in have for n in functions)} of {len(functions)} functions), plus "
             f"{len(extra)} astjax-only. Generated by `docs/gen_reference.py` from the "
             "docstrings; do not edit.", ""]
    lines += (inspect.getdoc(mod) or "").splitlines() + [""]
    for n in sorted(set(have + extra)):
        lines += _entry(n, getattr(mod, n), n in names)
    if missing:
        raises = ("`NotImplementedInAstjaxError` (an `AttributeError`)"
                  if "__getattr__" in vars(mod) else "`AttributeError`")
        lines += [f"## Not in astjax ({len(missing)} of `{jax_module}`'s names)", "",
                  f"Using one of these raises {raises}.", "",
                  "| name | kind in JAX |", "|---|---|"]
        lines += [f"| `{n}` | {KINDS[names[n]]} |" for n in missing]
        lines.append("")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).rstrip("\n") + "\n"


def index(recorded) -> str:
    """The index page: one row per module with its coverage."""
    lines = ["# astjax API reference", "",
             "One page per public module, generated from the docstrings by "
             "`docs/gen_reference.py`. Coverage is against JAX 0.10.2's public names "
             "(`docs/jax_names.json`); each entry of a page is marked **JAX** or "
             "**astjax only**, and each page ends with the JAX names astjax lacks.", "",
             "| astjax module | mirrors | JAX names implemented | functions | missing | "
             "astjax only |", "|---|---|---|---|---|---|"]
    for jax_module, name in MODULES.items():
        names = recorded[jax_module]
        have, missing, extra = coverage(jax_module, names)
        functions = [n for n in names if names[n] == "f"]
        lines.append(f"| [`{name}`]({name}.md) | `{jax_module}` | {len(have)} / {len(names)} | "
                     f"{sum(n in have for n in functions)} / {len(functions)} | "
                     f"{len(missing)} | {len(extra)} |")
    return "\n".join(lines) + "\n"


def render() -> dict:
    """{file name: text} of every page of the reference."""
    recorded = jax_names()
    files = {"index.md": index(recorded)}
    for jax_module, name in MODULES.items():
        files[f"{name}.md"] = page(jax_module, recorded[jax_module])
    return files


def write(folder, files) -> None:
    """Write `files` into `folder`, removing stale pages."""
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith(".md") and old not in files:
            os.remove(os.path.join(folder, old))
    for fname, text in files.items():
        with open(os.path.join(folder, fname), "w", encoding="utf-8") as f:
            f.write(text)


def stale(folder, files) -> list[str]:
    """The pages of `folder` that differ from `files` (or are missing or extra)."""
    on_disk = {f for f in os.listdir(folder) if f.endswith(".md")} if os.path.isdir(folder) else set()
    bad = sorted(on_disk ^ set(files))
    for fname in sorted(on_disk & set(files)):
        with open(os.path.join(folder, fname), encoding="utf-8") as f:
            if f.read() != files[fname]:
                bad.append(fname)
    return bad


def main(argv) -> int:
    files = render()
    if "--check" in argv:
        bad = stale(OUT, files)
        if bad:
            print(f"docs/reference is out of date ({', '.join(bad)}): "
                  "run python docs/gen_reference.py")
            return 1
        return 0
    write(OUT, files)
    print(f"wrote {len(files)} pages to {OUT}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(HERE))
    sys.exit(main(sys.argv[1:]))
