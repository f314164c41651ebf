"""The architecture, enforced (issue 11, section 3.4; docs/architecture.md).

Parses every module of the library (`astjax/`, `transforms/` installed as
`astjax.transforms`, `codegen/` installed as `astjax.codegen`) with `ast` and checks:

(a) every import edge, module level and inside functions, against the ordered `LAYERS`
    table: an edge may not point to a higher layer, nor across two wings
    (transforms / codegen / frontend), nor to a later primitive family or library;
(b) no import cycles among module-level imports (Tarjan); an import inside a function
    is allowed only within `astjax/primitives/`, toward a later family, or where
    `REQUIRED_FUNCTION_IMPORTS` gives the reason it must stay;
(c) no dynamic forms: `importlib`, `__import__`, `globals()[...] =`, `locals()[...] =`,
    module-level `__getattr__` (except the "not implemented" faces of the libraries);
(d) no module over `MAX_LINES` lines;
(e) after `import astjax`, every primitive x rule kind is set -- by code in the module
    that creates the primitive or in `primitives/base.py` -- or marked unsupported with a
    reason (`p.unsupported[kind]`);
(f) no dead private names: every module-level `_name` is used outside its definition.

Today's violations are listed, one exact edge / module / name per entry, in the
`TRANSITIONAL_*` allow-lists below: the tests pass now and fail on any NEW violation.
Delete entries as the moves land: `python tests/test_architecture.py` prints what is
left and which entries are stale; `--prune` deletes the stale ones; `--dump` prints
today's violations in allow-list spelling.
"""
from __future__ import annotations

import ast
import functools
import io
import json
import re
import subprocess
import sys
import tokenize
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# source folder -> installed package (pyproject's package-dir)
SOURCE_DIRS = {"astjax": "astjax", "transforms": "astjax.transforms", "codegen": "astjax.codegen"}
# where a private name may be used (section 1.6: tests, examples, benchmarks and docs count)
USE_DIRS = ("astjax", "transforms", "codegen", "tests", "examples", "benchmarks", "docs")
MAX_LINES = 800

# ------------------------------------------------------------------------ the layers
# Lowest first. A module belongs to the layer of its longest matching prefix (a prefix
# matches the module itself and everything below it; "astjax" matches only the root).
LAYERS = [
    ("base", ["astjax.errors", "astjax.config", "astjax.dtypes", "astjax.tree_util", "astjax.pytree_registry",
              "astjax.tree", "astjax.util", "astjax.pyast", "astjax.pretty", "astjax.partition_spec", "astjax.mesh_axes", "astjax.sharding_impls",
              "astjax.traceback_util", "astjax.user_warnings", "astjax.mlir_attributes",
              "astjax.memory", "astjax.value_tables", "astjax.precision_config", "astjax.shape_poly",
              "astjax.shape_poly_expr", "astjax.shape_poly_decision", "astjax.shape_poly_parse",
              "astjax.shape_poly_solve", "astjax.name_stack", "astjax.gc_pause", "astjax.hi_state",
              "astjax.axis_env",
              "astjax.trace_state"]),
    ("core", ["astjax.core", "astjax.ir", "astjax.op_by_op"]),
    ("primitives", ["astjax.primitives"]),     # families ordered as primitives/__init__.py
    ("wings", ["astjax.transforms", "astjax.codegen", "astjax.frontend", "astjax.staging"]),
    ("api", ["astjax.api", "astjax.devices_api", "astjax.ad_aux", "astjax.ad_frames", "astjax.ad_eager_values", "astjax.ad_base", "astjax.eager_outputs", "astjax.ad_jacobians", "astjax.ad_api", "astjax.checkpoint_api", "astjax.custom_rules", "astjax.custom_api", "astjax.batching_api",
             "astjax.pmap_api", "astjax.source_api", "astjax.lax", "astjax.lax_linalg", "astjax.lax_solves", "astjax.lax_extras",
             "astjax.lax_extended",
             "astjax.lax_combiners", "astjax.lax_conv", "astjax.lax_ragged",
             "astjax.lax_control", "astjax.lax_indexing",
             "astjax.lax_parallel", "astjax.typing", "astjax.interpreters", "astjax.extend",
             "astjax.stages", "astjax.callbacks_api", "astjax.debug", "astjax.sharding",
             "astjax.naming", "astjax.distributed", "astjax.config_api", "astjax.config_guards", "astjax.custom_batching", "astjax.api_util", "astjax.ad_extras",
             "astjax.dispatch_keys", "astjax.ad_dtypes", "astjax.jit_options", "astjax.jit_arguments",
             "astjax.ffi",
             "astjax.export", "astjax.profiler", "astjax.ref", "astjax.jit_refs", "astjax.ad_refs",
             "astjax.jit_tokens", "astjax.jit_ordered", "astjax.hi_values"]),
    ("libraries", ["astjax.numpy", "astjax.image", "astjax.ops", "astjax.monitoring", "astjax.random",
                   "astjax.extend.random", "astjax.scipy", "astjax.nn",
                   "astjax.flatten_util", "astjax.test_util", "astjax.example_libraries"]),
    # the package root, and what serves it as `jax` (the alias finder, its compat modules,
    # `python -m astjax`)
    ("package", ["astjax", "astjax.jax_alias", "astjax.compat", "astjax.__main__", "astjax.cli",
                 "astjax.explain"]),
]
# the three siblings of the wings layer: they never import each other
WINGS = {"transforms": ["astjax.transforms"], "codegen": ["astjax.codegen"],
         "frontend": ["astjax.frontend", "astjax.staging"]}
# libraries, lowest first (scipy.special owns the softmax family; nn re-exports it)
# (`extend.random` builds on `random`: it is a library, unlike the rest of `extend`)
LIBRARIES = ["astjax.numpy", "astjax.image", "astjax.ops", "astjax.monitoring", "astjax.random",
             "astjax.extend.random", "astjax.scipy", "astjax.nn",
             ["astjax.flatten_util", "astjax.test_util", "astjax.example_libraries"]]
# the modules whose module-level `__getattr__` is their documented "not implemented" face
NOT_IMPLEMENTED_FACES = ("astjax.numpy", "astjax.random", "astjax.scipy", "astjax.nn")
# the modules allowed to use `importlib`: the meta-path finder serving `import jax`, the
# platform choice, which locates the CUDA plugin's files with `find_spec` (no import),
# and the command line, which loads the user's FILE:FUNC
IMPORT_HOOK_MODULES = ("astjax.jax_alias", "astjax.codegen.platforms", "astjax.cli")
# modules that mirror JAX's own module surface, private names included (`jax.version`)
MIRRORS_OF_JAX = ("astjax.compat",)
# rule kinds every primitive needs; also jvp unless `nondiff`, transpose if `linear`,
# partial_eval, dce and source are optional: without a rule the equation is wholly
# unknown / kept whole / printed by the default
REQUIRED_KINDS = ("impl", "abstract_eval", "lowering", "batch")

# ============================================================ transitional allow-lists
# One exact entry per line. Delete an entry when the work that removes it lands.


def _lines(text: str) -> set:
    return {x.strip() for x in text.splitlines() if x.strip() and not x.strip().startswith("#")}


# (a) module-level edges against the layer table: "importer -> imported"
TRANSITIONAL_EDGES = _lines("""
""")

# (b) imports inside functions, outside the primitives' later-family exception
TRANSITIONAL_FUNCTION_IMPORTS = _lines("""
""")

# (b) imports inside functions that are there to stay, each with its reason
REQUIRED_FUNCTION_IMPORTS = {
    "astjax.frontend.converter -> astjax.frontend.operators":
        "mutual recursion: converted code runs against the `ag__` operators module, which "
        "converts the user functions it calls through `converter.convert`; operators "
        "imports converter at module level, so converter can only reach it at run time",
}

# (b) module-level import cycles: one strongly connected component per line (a
# component inside a listed one passes)
TRANSITIONAL_CYCLES = _lines("""
""")

# (c) dynamic forms: "module: form"
TRANSITIONAL_DYNAMIC = _lines("""
""")

# (d) modules over MAX_LINES lines
TRANSITIONAL_LONG_MODULES = _lines("""
""")

# (e) "primitive.kind": neither set nor marked unsupported with a reason
TRANSITIONAL_MISSING_RULES = _lines("""
""")

# (e) "primitive.kind@module": a rule defined away from its primitive's module and base.py
TRANSITIONAL_RULES_ELSEWHERE = _lines("""
""")

# (e) "primitive@module": a primitive created outside astjax/primitives/
TRANSITIONAL_PRIMITIVES_OUTSIDE = _lines("""
""")

# (f) "module._name": private module-level names nothing uses
TRANSITIONAL_DEAD_PRIVATE = _lines("""
""")



# ================================================================ reading the library


@functools.lru_cache(maxsize=None)
def _parse(text: str) -> ast.Module:
    """`ast.parse`, once per module text: the checks below each walk every module, and
    none changes the tree."""
    return ast.parse(text)


def module_name(rel: Path) -> tuple[str, bool]:
    """`transforms/ad.py` -> ("astjax.transforms.ad", False); a package's `__init__.py`
    -> (its package, True)."""
    parts = list(rel.with_suffix("").parts)
    parts[0] = SOURCE_DIRS[parts[0]]
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts = parts[:-1]
    return ".".join(parts), is_pkg


def load_library(root: Path = ROOT) -> dict:
    """module name -> (source text, is_package, path) for every library module."""
    mods = {}
    for folder in SOURCE_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            name, is_pkg = module_name(path.relative_to(root))
            mods[name] = (path.read_text(encoding="utf-8"), is_pkg, path)
    return mods


class Edge(tuple):
    """(importer, imported, line, inside_function)"""
    src = property(lambda self: self[0])
    dst = property(lambda self: self[1])
    line = property(lambda self: self[2])
    in_function = property(lambda self: self[3])

    def __str__(self):
        return f"{self[0]} -> {self[1]}"


def _known(name: str, modules) -> str:
    """The longest prefix of dotted `name` that is a library module (else `name`)."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        cand = ".".join(parts[:k])
        if cand in modules:
            return cand
    return name


def import_edges(mods: dict, only=None) -> list[Edge]:
    """Every import of a library module by a library module (or by `only`), module
    level and inside functions, with relative imports and `from pkg import mod`
    resolved."""
    edges = []
    for src, (text, is_pkg, *_rest) in mods.items():
        if only is not None and src != only:
            continue
        package = src if is_pkg else src.rpartition(".")[0]

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                inner = in_function or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, ast.Import):
                    for a in child.names:
                        if a.name == "astjax" or a.name.startswith("astjax."):
                            edges.append(Edge((src, _known(a.name, mods), child.lineno, inner)))
                elif isinstance(child, ast.ImportFrom):
                    if child.level:
                        base = package.split(".")
                        base = base[:len(base) - (child.level - 1)]
                        base = ".".join(base + ([child.module] if child.module else []))
                    else:
                        base = child.module or ""
                    if not (base == "astjax" or base.startswith("astjax.")):
                        continue
                    for a in child.names:
                        sub = f"{base}.{a.name}"
                        dst = sub if sub in mods else _known(base, mods)
                        edges.append(Edge((src, dst, child.lineno, inner)))
                visit(child, inner)
        visit(_parse(text), False)
    return edges

# ============================================================================= (a) (b)


def _prefix_match(name, prefix):
    return name == prefix or (prefix != "astjax" and name.startswith(prefix + "."))


def layer_of(name: str):
    """(layer index, layer name) of a module, or None when no prefix matches."""
    best = None
    for i, (layer, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if _prefix_match(name, p) and (best is None or len(p) > best[2]):
                best = (i, layer, len(p))
    return best and best[:2]


def _group(name, table):
    """Index (or key) of the entry of `table` whose prefix matches `name`."""
    items = table.items() if isinstance(table, dict) else enumerate(table)
    for key, prefixes in items:
        for p in ([prefixes] if isinstance(prefixes, str) else prefixes):
            if _prefix_match(name, p):
                return key
    return None


def family_order(mods: dict) -> dict:
    """primitive family module -> rank: base first, then the order in which
    `astjax/primitives/__init__.py` imports them, then any unlisted family; the package
    itself last."""
    order = ["astjax.primitives.base"]
    for e in import_edges(mods, only="astjax.primitives"):
        if not e.in_function and e.dst.startswith("astjax.primitives.") and e.dst not in order:
            order.append(e.dst)
    rest = sorted(m for m in mods if m.startswith("astjax.primitives.") and m not in order)
    ranks = {m: i for i, m in enumerate(order + rest)}
    ranks["astjax.primitives"] = len(ranks)
    return ranks


def edge_problem(e: Edge, families: dict):
    """Why an import edge breaks the layering, or None."""
    ls, ld = layer_of(e.src), layer_of(e.dst)
    if ls is None or ld is None:
        return f"module not in LAYERS: {e.src if ls is None else e.dst}"
    both_primitives = ls[1] == ld[1] == "primitives"
    if e.in_function:
        if both_primitives and families.get(e.dst, -1) > families.get(e.src, -1):
            return None
        return "import inside a function"
    if e.src == e.dst:
        return None
    if ld[0] > ls[0]:
        return f"{ls[1]} imports the higher layer {ld[1]}"
    if ls[1] == ld[1] == "wings" and _group(e.src, WINGS) != _group(e.dst, WINGS):
        return f"wing {_group(e.src, WINGS)} imports wing {_group(e.dst, WINGS)}"
    if both_primitives and families.get(e.dst, -1) > families.get(e.src, -1):
        return "a primitive family imports a later family at module level"
    if ls[1] == ld[1] == "libraries" and _group(e.dst, LIBRARIES) > _group(e.src, LIBRARIES):
        return f"library {LIBRARIES[_group(e.src, LIBRARIES)]} imports the later " \
               f"{LIBRARIES[_group(e.dst, LIBRARIES)]}"
    return None


def layer_violations(mods: dict) -> dict:
    """{"module" / "function": {"src -> dst": reason}}"""
    families = family_order(mods)
    out = {"module": {}, "function": {}}
    for e in import_edges(mods):
        why = edge_problem(e, families)
        if why:
            out["function" if e.in_function else "module"].setdefault(str(e), why)
    return out


def strongly_connected(graph: dict) -> list[list]:
    """Tarjan's algorithm (iterative): the strongly connected components of `graph`."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def import_cycles(mods: dict) -> list[list]:
    """Strongly connected components (of 2+ modules) of the module-level import graph."""
    graph = defaultdict(set)
    for e in import_edges(mods):
        if not e.in_function and e.src != e.dst:
            graph[e.src].add(e.dst)
    return [c for c in strongly_connected(graph) if len(c) > 1]

# ============================================================================ (c) (d)


def _only_raises(fn: ast.FunctionDef) -> bool:
    return not any(isinstance(n, (ast.Return, ast.Yield)) for n in ast.walk(fn))


def dynamic_forms(mods: dict) -> list[str]:
    """"module: form" for every banned dynamic form."""
    out = []
    for name, (text, *_rest) in mods.items():
        tree = _parse(text)
        hook = any(_prefix_match(name, p) for p in IMPORT_HOOK_MODULES)
        for node in ast.walk(tree):
            if hook and isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "importlib"
                                                    for a in node.names):
                out.append(f"{name}: importlib")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "importlib":
                out.append(f"{name}: importlib")
            elif isinstance(node, ast.Name) and node.id == "__import__":
                out.append(f"{name}: __import__")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Call)
                            and isinstance(t.value.func, ast.Name)
                            and t.value.func.id in ("globals", "locals", "vars")):
                        out.append(f"{name}: {t.value.func.id}()[...] =")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "update" and isinstance(node.func.value, ast.Call)
                  and isinstance(node.func.value.func, ast.Name)
                  and node.func.value.func.id in ("globals", "locals")):
                out.append(f"{name}: {node.func.value.func.id}().update")
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                face = any(_prefix_match(name, p) for p in NOT_IMPLEMENTED_FACES)
                if not (face and _only_raises(node)):
                    out.append(f"{name}: module __getattr__")
    return sorted(set(out))


def long_modules(mods: dict) -> dict:
    return {name: len(text.splitlines()) for name, (text, *_rest) in mods.items()
            if len(text.splitlines()) > MAX_LINES}

# ================================================================================ (f)


def _identifiers(text: str) -> Counter:
    return Counter(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def private_definitions(name: str, text: str):
    """(private name, first line, last line) of each module-level def/class/assignment."""
    for node in _parse(text).body:
        targets = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            targets = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                targets += [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]
        first = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
        for t in targets:
            if t.startswith("_") and not (t.startswith("__") and t.endswith("__")):
                yield t, first, node.end_lineno


def dead_private_names(mods: dict, use_texts: dict) -> list[str]:
    """"module._name" for each module-level private name used nowhere but in its own
    definition (uses: every .py/.md file of USE_DIRS)."""
    total = Counter()
    for text in use_texts.values():
        total.update(_identifiers(text))
    out = []
    for name, (text, _is_pkg, *_rest) in mods.items():
        if any(_prefix_match(name, p) for p in MIRRORS_OF_JAX):
            continue
        lines = text.splitlines()
        seen = set()
        for priv, a, b in private_definitions(name, text):
            if priv in seen:
                continue
            seen.add(priv)
            inside = _identifiers(_code_only("\n".join(lines[a - 1:b])))[priv]
            if total[priv] - inside <= 0:
                out.append(f"{name}.{priv}")
    return sorted(out)


def _code_only(text: str) -> str:
    """`text` without comments (a definition's own comments do not use it)."""
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type != tokenize.COMMENT]
        return tokenize.untokenize(toks)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text


def use_texts(root: Path = ROOT) -> dict:
    texts = {}
    for folder in USE_DIRS:
        for pattern in ("*.py", "*.md"):
            for path in (root / folder).rglob(pattern):
                if ".venv" not in path.parts and path.resolve() != Path(__file__).resolve():
                    texts[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    return texts

# ================================================================================ (e)


def _rule_module(r):
    r = getattr(r, "func", r)  # functools.partial
    return getattr(r, "__module__", None) or "?"


def _assigned_names(text: str) -> set:
    """Names a module binds by assignment at module level (inside ifs and loops too)."""
    out = set()

    def visit(stmts):
        for node in stmts:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = (node.targets if isinstance(node, ast.Assign) else [node.target])
                for t in targets:
                    out.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
            for field in ("body", "orelse", "finalbody", "handlers"):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(getattr(node, field, []) or [])
    visit(_parse(text).body)
    return out


def rule_report() -> dict:
    """After `import astjax` (in a fresh process: tests may create primitives): for every
    primitive, the rule kinds it lacks and the rules defined away from its module."""
    import astjax  # noqa: F401
    from astjax import core
    # a primitive's home: the module that binds it to a name it assigns itself (else
    # that fills a dict/list/tuple it assigns with it); core's registry does not count
    mods = load_library()
    bound = {name: _assigned_names(mods[name][0]) for name in mods}
    homes: dict = {}
    for containers in (False, True):  # the primitive families first
        for name in sorted(mods, key=lambda m: (not m.startswith("astjax.primitives."), m)):
            mod = sys.modules.get(name)
            if mod is None or name == "astjax.core":
                continue
            for gname in sorted(bound[name]):
                val = vars(mod).get(gname)
                if containers:
                    vals = (list(val.values()) if isinstance(val, dict)
                            else list(val) if isinstance(val, (list, tuple)) else [])
                else:
                    vals = [val]
                for v in vals:
                    if isinstance(v, core.Primitive):
                        homes.setdefault(v.name, name)
    missing, elsewhere, outside = [], [], []
    for pname, p in sorted(core.primitives.items()):
        home = homes.get(pname, "?")
        if not home.startswith("astjax.primitives"):
            outside.append(f"{pname}@{home}")
        kinds = list(REQUIRED_KINDS)
        if not p.nondiff:
            kinds.append("jvp")
        if p.linear:
            kinds.append("transpose")
        for kind in kinds:
            if getattr(p, kind) is None and not p.unsupported.get(kind):
                missing.append(f"{pname}.{kind}")
        for kind in core.RULE_KINDS:
            r = getattr(p, kind)
            if r is None:
                continue
            m = _rule_module(r)
            if m not in (home, "astjax.primitives.base"):
                elsewhere.append(f"{pname}.{kind}@{m}")
    return {"missing": missing, "elsewhere": elsewhere, "outside": outside}


_RULES_CACHE: list = []


def rule_report_fresh() -> dict:
    if not _RULES_CACHE:
        out = subprocess.run([sys.executable, __file__, "--rules-json"], capture_output=True,
                             text=True, cwd=ROOT, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        _RULES_CACHE.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return _RULES_CACHE[0]

# ====================================================================== all the checks


def current(mods=None, with_rules=True) -> dict:
    """check -> the set of today's violations (entries in allow-list spelling)."""
    mods = mods or load_library()
    lv = layer_violations(mods)
    out = {
        "edges": set(lv["module"]),
        "function_imports": set(lv["function"]),
        "cycles": {" ".join(c) for c in import_cycles(mods)},
        "dynamic": set(dynamic_forms(mods)),
        "long_modules": set(long_modules(mods)),
        "dead_private": set(dead_private_names(mods, use_texts())),
    }
    if with_rules:
        r = rule_report_fresh()
        out.update(missing_rules=set(r["missing"]), rules_elsewhere=set(r["elsewhere"]),
                   primitives_outside=set(r["outside"]))
    return out


ALLOWED = {
    "edges": TRANSITIONAL_EDGES,
    "function_imports": TRANSITIONAL_FUNCTION_IMPORTS | set(REQUIRED_FUNCTION_IMPORTS),
    "cycles": TRANSITIONAL_CYCLES,
    "dynamic": TRANSITIONAL_DYNAMIC,
    "long_modules": TRANSITIONAL_LONG_MODULES,
    "dead_private": TRANSITIONAL_DEAD_PRIVATE,
    "missing_rules": TRANSITIONAL_MISSING_RULES,
    "rules_elsewhere": TRANSITIONAL_RULES_ELSEWHERE,
    "primitives_outside": TRANSITIONAL_PRIMITIVES_OUTSIDE,
}


def new_violations(check: str, found: set) -> list:
    allowed = ALLOWED[check]
    if check == "cycles":  # a component inside an allowed one is allowed
        return sorted(c for c in found
                      if not any(set(c.split()) <= set(a.split()) for a in allowed))
    return sorted(found - allowed)


def stale_entries(check: str, found: set) -> list:
    allowed = ALLOWED[check]
    if check == "cycles":
        return sorted(a for a in allowed if not any(set(c.split()) <= set(a.split())
                                                    for c in found))
    return sorted(allowed - found)

# ================================================================================ tests


@pytest.fixture(scope="module")
def mods():
    return load_library()


def _fail_new(check, found):
    new = new_violations(check, found)
    assert not new, (f"{len(new)} new {check} violation(s) (see docs/architecture.md; "
                     f"`python tests/test_architecture.py` reports all):\n  " + "\n  ".join(new))


def test_imports_follow_the_layers(mods):
    lv = layer_violations(mods)
    _fail_new("edges", {k for k in lv["module"]})


def test_imports_inside_functions_only_toward_a_later_family(mods):
    _fail_new("function_imports", set(layer_violations(mods)["function"]))


def test_no_import_cycles(mods):
    _fail_new("cycles", {" ".join(c) for c in import_cycles(mods)})


def test_no_dynamic_imports_or_registration(mods):
    _fail_new("dynamic", set(dynamic_forms(mods)))


def test_no_module_over_800_lines(mods):
    _fail_new("long_modules", set(long_modules(mods)))


def test_no_dead_private_names(mods):
    _fail_new("dead_private", set(dead_private_names(mods, use_texts())))


def test_every_primitive_has_its_rules_or_a_reason():
    r = rule_report_fresh()
    _fail_new("missing_rules", set(r["missing"]))


def test_rules_sit_next_to_their_primitive():
    r = rule_report_fresh()
    _fail_new("rules_elsewhere", set(r["elsewhere"]))
    _fail_new("primitives_outside", set(r["outside"]))


def test_every_library_module_has_a_layer(mods):
    assert not [m for m in mods if layer_of(m) is None]

# ------------------------------------------------------- the checker catches violations


def _synthetic(**modules):
    """A tiny library: {"astjax.x": source} (a name ending in `/` is a package)."""
    out = {}
    for name, text in modules.items():
        name = name.replace("__", ".")
        is_pkg = name.endswith("/")
        out[name.rstrip("/")] = (text, is_pkg, None)
    return out


def test_checker_catches_an_upward_edge_and_a_crossing_between_wings():
    lib = _synthetic(astjax__core="from . import numpy\n", **{"astjax__numpy/": "",
                     "astjax__transforms__ad": "from astjax.codegen import stablehlo\n",
                     "astjax__codegen__stablehlo": "from astjax import core\n",
                     "astjax__primitives__base": "from . import elementwise\n",
                     "astjax__primitives__elementwise": "def f():\n    from . import base\n",
                     "astjax__primitives/": "from . import elementwise\n"})
    lv = layer_violations(lib)
    assert set(lv["module"]) == {"astjax.core -> astjax.numpy",
                                 "astjax.transforms.ad -> astjax.codegen.stablehlo",
                                 "astjax.primitives.base -> astjax.primitives.elementwise"}
    assert "higher layer" in lv["module"]["astjax.core -> astjax.numpy"]
    assert set(lv["function"]) == {"astjax.primitives.elementwise -> astjax.primitives.base"}
    ok = _synthetic(**{"astjax__primitives/": "from . import elementwise, sort\n",
                       "astjax__primitives__elementwise": "def f():\n    from . import sort\n",
                       "astjax__primitives__sort": "from .elementwise import f\n"})
    assert layer_violations(ok) == {"module": {}, "function": {}}


def test_checker_catches_a_cycle():
    lib = _synthetic(astjax__core="from . import ir\n", astjax__ir="import astjax.core\n",
                     astjax__errors="def f():\n    from . import core\n")
    assert import_cycles(lib) == [["astjax.core", "astjax.ir"]]
    assert strongly_connected({1: {2}, 2: {3}, 3: {1}, 4: {1}}) == [[1, 2, 3], [4]]


def test_checker_catches_dynamic_forms():
    lib = _synthetic(
        astjax__lax="for n in ('sin',):\n    globals()[n] = n\n",
        astjax__core="import importlib\nx = __import__('os')\n",
        astjax__frontend__operators="def __getattr__(name):\n    return 1\n",
        **{"astjax__numpy/": "def __getattr__(name):\n    raise AttributeError(name)\n"})
    assert dynamic_forms(lib) == ["astjax.core: __import__", "astjax.core: importlib",
                                  "astjax.frontend.operators: module __getattr__",
                                  "astjax.lax: globals()[...] ="]


def test_checker_catches_dead_private_names_and_long_modules():
    lib = _synthetic(astjax__util="def _used():\n    return _used\n\n\ndef _alive():\n"
                     "    pass\n\n\n_X = 1\n" + "\n" * 800)
    uses = {"a.py": lib["astjax.util"][0], "b.py": "_alive()\n"}
    assert dead_private_names(lib, uses) == ["astjax.util._X", "astjax.util._used"]
    assert list(long_modules(lib)) == ["astjax.util"]


def test_new_violations_ignore_allowed_subcycles(monkeypatch):
    monkeypatch.setitem(ALLOWED, "cycles", {"a b c"})
    assert new_violations("cycles", {"a b", "c d"}) == ["c d"]
    assert stale_entries("cycles", {"a b"}) == []

# ================================================================================ report


def report() -> int:
    found = current()
    total_new = 0
    print("architecture check (issue 11, section 3.4): violations left per check\n")
    for check, items in found.items():
        new = new_violations(check, items)
        stale = stale_entries(check, items)
        total_new += len(new)
        print(f"{check:20s} {len(items):4d} left   {len(new):3d} new   {len(stale):3d} stale entries")
        for x in new:
            print(f"    NEW   {x}")
        for x in stale:
            print(f"    stale {x}  (fixed: delete the entry)")
    return 1 if total_new else 0


def prune() -> None:
    """Delete the stale entries (violations fixed since) from the allow-lists above."""
    found = current()
    stale = set()
    for check, items in found.items():
        stale |= set(stale_entries(check, items))
    lines = Path(__file__).read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, x in enumerate(lines) if x.startswith("# ==")
                 and x.rstrip().endswith(" transitional allow-lists"))
    end = next(i for i, x in enumerate(lines) if x.startswith("# ==")
               and x.rstrip().endswith(" reading the library"))
    lines[start:end] = [x for x in lines[start:end] if x.strip() not in stale]
    Path(__file__).write_text("".join(lines), encoding="utf-8")
    print(f"removed {len(stale)} stale entries")


if __name__ == "__main__":
    if "--prune" in sys.argv:
        prune()
    elif "--rules-json" in sys.argv:
        print(json.dumps(rule_report()))
    elif "--dump" in sys.argv:  # today's violations, in allow-list spelling
        for check, items in current().items():
            print(f"## {check}")
            for x in sorted(items):
                print(x)
    else:
        sys.exit(report())
