"""IR -> readable, runnable Python source (`astjax.source`).

The generator walks a ClosedJaxpr and builds Python `ast` nodes — never strings of
code — that `ast.unparse` prints at the end:

- names come from `Var.hint` (the user's variable names, or `dx` / `ct_x` from the
  autodiff transforms), made unique as `x`, `x_1`, `x_2`; unnamed temporaries are
  named after their primitive (`sin`, `mul`, `total`); module names (`lax`, `jnp`,
  `np`), keywords and builtins are never clobbered;
- one primitive per line: `y = lax.sin(x)`, `z = x * y` (operator forms only where
  the operands already have the result's dtype, so the source stages back to the
  same primitive), literals inline;
- a `# line 12: h = jnp.tanh(...)` comment whenever the origin line changes, and a
  `# ---- backward ----` marker whenever `SourceInfo.phase` changes;
- `cond` prints as `if`/`elif`/`else`, `while` as `while`, `scan` as
  `for i in range(n):` with carries as plain variables, `xs[i]` reads and
  `ys.append(y)` + `jnp.stack(ys)` — the forms astjax's converter turns back into
  cond/while/scan.

Per-primitive printing is each primitive's `source` rule, set in its block
(`astjax/primitives/`). An expression rule is `rule(gen, eqn) -> ast.expr`
(the generator assigns the results); a statement rule (marked `rule.statement =
True`, used for control flow) is `rule(gen, eqn, stmts)` and appends statements that
assign `gen.out_name(v)` for every output. Primitives without a rule print through
the generic form `core.primitives['name'].bind(...)`, which always round-trips.

Comments are `ast.Expr(ast.Name('# ...'))` statements: `ast.unparse` prints a
Name's id verbatim, so a comment is an ordinary node of the tree.
"""
from __future__ import annotations

import ast
import builtins
import copy
import enum
import keyword
import linecache
import os
import re
import sys
from collections import Counter

import numpy as np

from astjax import core, dtypes, tree_util
from astjax.errors import UNKNOWN, AstjaxError
from astjax.primitives import ops as _lax
from astjax.pyast import (assign, attr, call, comment, dtype_expr, lax_call, load, pyconst,
                          sanitize, scalar_py, statement_rule, store)
from astjax.util import Namer

__all__ = [
    "GeneratedSource",
    "SourceGenerator",
    "generate",
    "generic_rule",
    "source_rule",
    "statement_rule",
]

# Names the generated module imports; never used for variables.
MODULE_NAMES = {"np": "numpy", "jnp": "astjax.numpy", "lax": "astjax.lax"}
_RESERVED = (set(keyword.kwlist) | set(keyword.softkwlist) | set(dir(builtins))
             | set(MODULE_NAMES) | {"astjax", "core", "tree_util", "collections", "ag__", "self"})

# Stems for unnamed temporaries, by primitive (default: the primitive's name).
_STEMS = {
    "reduce_sum": "total", "reduce_prod": "product", "reduce_max": "largest",
    "reduce_min": "smallest", "reduce_and": "all_true", "reduce_or": "any_true",
    "dot_general": "dot", "convert_element_type": "cast", "broadcast_in_dim": "bcast",
    "select_n": "select", "dynamic_slice": "window", "dynamic_update_slice": "updated",
    "integer_pow": "power", "pow": "power", "abs": "magnitude", "max": "maximum",
    "min": "minimum", "round": "rounded", "not": "inverted", "and": "both", "or": "either",
    "xor": "xor_", "slice": "part", "iota": "idx", "add_any": "acc", "copy": "copied",
    "concatenate": "joined", "transpose": "transposed", "reshape": "reshaped",
    "squeeze": "squeezed", "rev": "reversed_", "pad": "padded",
    "clamp": "clamped", "scatter-add": "scattered", "scatter": "scattered",
    "scatter-mul": "scattered", "scatter-min": "scattered", "scatter-max": "scattered",
    "gather": "gathered", "cond": "branch_out", "while": "loop_out", "scan": "scan_out",
    "bitcast_convert_type": "bits", "eq": "is_eq", "ne": "is_ne", "lt": "is_lt",
    "le": "is_le", "gt": "is_gt", "ge": "is_ge", "is_finite": "finite",
}

_PHASE_TEXT = {"forward": "forward", "backward": "backward (cotangents)",
               "tangent": "tangents (forward mode)", "batched": "batched"}


class SourceGenError(AstjaxError):
    default_hint = "this is a bug in astjax.source; please report it with the jaxpr"

# ---------------------------------------------------------------- rule registry


def source_rule(prim):
    """The rule printing `prim`: its registered rule, else the generic `bind` form."""
    return prim.source or generic_rule

# --------------------------------------------------------------- per-jaxpr facts


class _Scope:
    """Use facts of one jaxpr: read counts, the last eqn index reading each var
    (outputs read at len(eqns)), producers, and which vars this scope may overwrite."""

    def __init__(self, jaxpr, owns_invars=False):
        self.jaxpr = jaxpr
        self.uses = Counter()
        self.last_read = {}
        self.producer = {}
        self.consumers: dict = {}
        for i, e in enumerate(jaxpr.eqns):
            for a in e.invars:
                if isinstance(a, core.Var):
                    self.uses[a] += 1
                    self.last_read[a] = i
                    self.consumers.setdefault(a, []).append(i)
            for v in e.outvars:
                self.producer[v] = i
        n = len(jaxpr.eqns)
        for a in jaxpr.outvars:
            if isinstance(a, core.Var):
                self.uses[a] += 1
                self.last_read[a] = n
        self.owned = set(self.producer)
        if owns_invars:
            self.owned.update(jaxpr.invars)

# ------------------------------------------------------------------- generator


class SourceGenerator:
    """Generates one Python function from one ClosedJaxpr."""

    def __init__(self, fn_name="f", comments=True, main_file=None):
        self.fn_name = fn_name
        self.comments = comments
        self.main_file = main_file
        self.namer = Namer("dedup", reserved=set(_RESERVED) | {fn_name})
        self.used = self.namer.used    # every name taken in the function
        self.env: dict = {}            # Var -> ast.expr (a Name, a literal, or an inlined expr)
        self.preset: dict = {}         # Var -> name chosen before its equation is printed
        self.fused: dict = {}          # Var -> the equation that consumes it in place
        self.skip: set = set()         # ids of equations printed as part of another
        self.globals: dict = {}        # name -> object the function needs at run time
        self.imports: dict = {}        # (module, name) -> local name
        self.uses_core = False
        self.scopes: list = []         # stack of (_Scope, eqn index)
        self.counters: set = set()     # names of `for` loop counters (Python ints when eager)
        self.source_names: dict = {}   # Var -> the user's name from its equation's SourceInfo
        self.last_origin = None        # (file, line) of the last origin comment printed
        self.last_phase = None
        self._global_ids: dict = {}

    # -- for statement rules declared in the primitives' blocks ------------------
    def branch_block(self, jaxpr, ops, out_names, out_vars):
        """Statements computing a nested jaxpr inline on `ops`, assigning `out_names`."""
        return _branch_block(self, jaxpr, ops, out_names, out_vars)

    def generic_statement(self, eqn):
        """`outs = core.primitives[name].bind(...)`: prints any equation exactly."""
        return _generic_statement(self, eqn)

    def generic(self, eqn):
        """`core.primitives[name].bind(...)`: any equation as an exact expression."""
        return generic_rule(self, eqn)

    hint_from = staticmethod(lambda *vs: _hint_from(*vs))

    def assign_outputs(self, stmts, pairs):
        """`name = expr` for (name, expr) pairs (one tuple assignment on a swap)."""
        _assign_outputs(self, stmts, pairs)

    def drop_presets(self, atoms):
        """Forget names chosen for outputs that a block did not bind."""
        _drop_presets(self, atoms)

    def use_facts(self, jaxpr):
        """Read counts, last reads and producers of `jaxpr`'s variables."""
        return _Scope(jaxpr)

    def is_statement(self, prim):
        """Whether `prim` prints as statements (control flow) rather than an expression."""
        return getattr(source_rule(prim), "statement", False)

    def rule_of(self, prim):
        """The source rule printing `prim` (for fuse hooks that look at a producer)."""
        return source_rule(prim)

    # -- names ------------------------------------------------------------------
    def fresh(self, base):
        return self.namer.fresh(sanitize(base))

    def name_var(self, v, name):
        self.env[v] = load(name)
        return name

    def out_name(self, v, base=None):
        """The name an equation's output is bound to (fresh unless preset)."""
        name = self.preset.pop(v, None)
        if name is None:
            name = self.fresh(v.hint or self.source_names.get(v) or base or "t")
        return self.name_var(v, name)

    def name_of(self, a):
        e = self.env.get(a)
        return e.id if isinstance(e, ast.Name) else None

    def alias(self, v, atom_or_expr):
        """Make `v` (an invar of a nested jaxpr) print as an outer atom."""
        if isinstance(atom_or_expr, ast.expr):
            self.env[v] = atom_or_expr
        else:
            self.env[v] = self.arg(atom_or_expr)

    # -- operands ---------------------------------------------------------------
    def arg(self, a, bare=False):
        """An operand: the variable's name, or the literal inline. `bare=True` allows a
        plain Python scalar even where its default dtype differs (the caller puts it
        beside an operand of the literal's dtype, which it adopts)."""
        if isinstance(a, core.Literal):
            return self.literal(a, bare)
        e = self.env.get(a)
        if e is None:
            raise SourceGenError(f"internal: variable {a} has no name", loc=UNKNOWN)
        if isinstance(e, ast.Name) and e.id in self.counters and not a.aval.weak_type:
            # a `for` counter is a Python int when run: give it the IR's dtype (R11), as
            # an array (`np.int32(i)` would make a re-staged loop unroll)
            return call(attr("jnp", np.dtype(a.aval.dtype).name), [copy.deepcopy(e)])
        return copy.deepcopy(e)

    def typed_arg(self, a, aval):
        """An operand that must keep `aval`'s strong dtype on its own (a loop carry's
        initial value, a branch result): literals print with their dtype."""
        if isinstance(a, core.Literal) and not aval.weak_type:
            val = np.asarray(a.val)
            if val.ndim == 0:
                return self.typed_scalar(scalar_py(val[()], a.aval.dtype), a.aval.dtype)
        return self.arg(a)

    def literal(self, lit, bare=False):
        val = np.asarray(lit.val)
        dt = lit.aval.dtype
        if val.ndim == 0:
            py = scalar_py(val[()], dt)
            if dt == dtypes.bool_ or bare or (
                    lit.aval.weak_type and dtypes.python_scalar_dtype(py) == dt) or (
                    dtypes.python_scalar_dtype(py) == dt and not isinstance(py, bool)):
                return pyconst(py)
            return self.typed_scalar(py, dt)
        return self.array_value(val, dt)

    def typed_scalar(self, py, dt):
        if np.dtype(dt) == dtypes.bool_:
            return call("np.bool_", [pyconst(py)])
        if hasattr(np, np.dtype(dt).name):
            return call(attr("np", np.dtype(dt).name), [pyconst(py)])
        return call("lax.convert_element_type", [pyconst(py), dtype_expr(dt)])

    def array_value(self, val, dt):
        val = np.asarray(val)
        items = [scalar_py(x, dt) for x in val.reshape(-1)]

        def nest(flat, shape):
            if not shape:
                return pyconst(flat[0])
            n = int(np.prod(shape[1:], dtype=np.int64))
            return ast.List(elts=[nest(flat[i * n:(i + 1) * n], shape[1:])
                                  for i in range(shape[0])], ctx=ast.Load())
        if val.size == 0:
            return call("jnp.zeros", [self.value(val.shape), dtype_expr(dt)])
        return call("jnp.array", [nest(items, val.shape)], dtype=dtype_expr(dt))

    def value(self, v):
        """A static parameter value as an expression."""
        if v is None or isinstance(v, (bool, int, float, complex, str, np.bool_)):
            return pyconst(v.item() if isinstance(v, np.bool_) else v)
        if isinstance(v, np.generic) and not isinstance(v, np.ndarray):
            return pyconst(v.item())
        if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
            return dtype_expr(v)
        if isinstance(v, enum.Enum):
            return attr(self.import_object(type(v)), v.name)
        if isinstance(v, tuple) and hasattr(type(v), "_fields"):
            cls = self.import_object(type(v))
            return call(attr(cls), **{f: self.value(getattr(v, f)) for f in type(v)._fields})
        if isinstance(v, tuple):
            return ast.Tuple(elts=[self.value(x) for x in v], ctx=ast.Load())
        if isinstance(v, list):
            return ast.List(elts=[self.value(x) for x in v], ctx=ast.Load())
        if isinstance(v, dict):
            return ast.Dict(keys=[self.value(k) for k in v], values=[self.value(x) for x in v.values()])
        if isinstance(v, np.ndarray) and v.size <= 64:
            return self.array_value(v, v.dtype)
        return load(self.inject(v, "param"))

    def import_object(self, obj):
        """A class or function by a local name (`lax.X` when astjax.lax exports it):
        imported when it can be, else provided in the function's globals."""
        qual = getattr(obj, "__qualname__", "")
        if qual and "." not in qual and getattr(_lax, qual, None) is obj:
            return f"lax.{qual}"
        mod = getattr(obj, "__module__", None)
        if mod and "." not in qual and getattr(sys.modules.get(mod), qual, None) is obj:
            key = (mod, qual)
            if key not in self.imports:
                self.imports[key] = qual if qual not in self.used else self.fresh(qual)
                self.used.add(self.imports[key])
            self.globals[self.imports[key]] = obj
            return self.imports[key]
        return self.inject(obj, getattr(obj, "__name__", "obj"))

    def inject(self, obj, base):
        name = self._global_ids.get(id(obj))
        if name is None:
            name = self._global_ids[id(obj)] = self.fresh(base)
            self.globals[name] = obj
        return name

    # -- statements -------------------------------------------------------------
    def origin(self, info):
        if not self.comments or info is None or info.file is None or not info.line:
            return None
        text = linecache.getline(info.file, info.line).strip()
        where = f"line {info.line}"
        if self.main_file and os.path.abspath(info.file) != os.path.abspath(self.main_file):
            where = f"{os.path.basename(info.file)}:{info.line}"
        if not text:
            return where
        if len(text) > 72:
            text = text[:69] + "..."
        return f"{where}: {text}"

    def emit_jaxpr(self, jaxpr, stmts, owns_invars=False, fold_return=False):
        """Print `jaxpr`'s equations into `stmts`; its invars must be named already.
        Returns the scope (the caller reads outvars through `arg`)."""
        scope = _Scope(jaxpr, owns_invars)
        self.scopes.append([scope, 0])
        try:
            self._plan_fusions(scope)
            n = len(jaxpr.eqns)
            for i, eqn in enumerate(jaxpr.eqns):
                self.scopes[-1][1] = i
                if id(eqn) in self.skip:
                    continue
                info = eqn.source_info or UNKNOWN
                if self.comments and info.phase and info.phase != self.last_phase:
                    stmts.append(comment(f"---- {_PHASE_TEXT.get(info.phase, info.phase)} ----"))
                    self.last_origin = None
                self.last_phase = info.phase or self.last_phase
                key = (info.file, info.line)
                if key != self.last_origin and info.file is not None:
                    text = self.origin(info)
                    if text:
                        stmts.append(comment(text))
                    self.last_origin = key
                if fold_return and i == n - 1 and self._foldable(scope, eqn):
                    self.env[eqn.outvars[0]] = self.render_expr(eqn)
                    continue
                self.emit_eqn(eqn, stmts)
        finally:
            self.scopes.pop()
        return scope

    def _foldable(self, scope, eqn):
        v = eqn.outvars[0] if len(eqn.outvars) == 1 else None
        return (v is not None and v.hint is None and v not in self.preset
                and v not in self.source_names
                and scope.uses[v] == 1 and v in scope.jaxpr.outvars
                and not getattr(source_rule(eqn.primitive), "statement", False)
                and not eqn.primitive.multiple_results)

    def _plan_fusions(self, scope):
        """Equations printed inside their consumer: the bool->int32 convert feeding a
        cond (`if pred:`), the iota feeding a scan (`for i in range(n):`). Also: a
        batched equation's result takes the user's name its SourceInfo remembers (the
        last of the equations a batching rule made for one user operation)."""
        eqns = scope.jaxpr.eqns
        for i, eqn in enumerate(eqns):
            info = eqn.source_info
            if (info is not None and info.name and info.phase == "batched"
                    and len(eqn.outvars) == 1 and eqn.outvars[0].hint is None
                    and (i + 1 == len(eqns) or eqns[i + 1].source_info is not info)):
                self.source_names[eqn.outvars[0]] = info.name
        for i, eqn in enumerate(scope.jaxpr.eqns):
            rule = getattr(source_rule(eqn.primitive), "fuse", None)
            if rule is not None:
                rule(self, scope, i, eqn)

    def current(self):
        return self.scopes[-1]

    def render_expr(self, eqn):
        rule = source_rule(eqn.primitive)
        return rule(self, eqn)

    def emit_eqn(self, eqn, stmts):
        rule = source_rule(eqn.primitive)
        if getattr(rule, "statement", False):
            rule(self, eqn, stmts)
            return
        expr = rule(self, eqn)
        stem = _STEMS.get(eqn.primitive.name, eqn.primitive.name)
        if eqn.primitive.multiple_results:
            names = [self.out_name(v, stem) for v in eqn.outvars]
            if len(names) == 1 and getattr(rule, "unpacks_single", False):
                stmts.append(assign(names[0], expr))
            else:
                stmts.append(assign(names, expr) if names else ast.Expr(value=expr))
        else:
            stmts.append(assign(self.out_name(eqn.outvars[0], stem), expr))

    def inline_expr(self, jaxpr, max_eqns=4):
        """`jaxpr` (one output, invars named) as one nested expression, or None when it
        is not a small expression tree."""
        if len(jaxpr.outvars) != 1 or len(jaxpr.eqns) > max_eqns:
            return None
        scope = _Scope(jaxpr)
        for e in jaxpr.eqns:
            if (e.primitive.multiple_results or len(e.outvars) != 1
                    or getattr(source_rule(e.primitive), "statement", False)
                    or getattr(source_rule(e.primitive), "fuse", None)):
                return None
            if scope.uses[e.outvars[0]] != 1:
                return None
        saved = dict(self.env)
        try:
            for e in jaxpr.eqns:
                self.env[e.outvars[0]] = self.render_expr(e)
            return self.arg(jaxpr.outvars[0])
        finally:
            for e in jaxpr.eqns:
                self.env.pop(e.outvars[0], None)
            self.env.update(saved)

# ----------------------------------------------------------- the whole function


class GeneratedSource(str):
    """The generated text (a `str`), with what it needs to run: `.globals` (names
    the text refers to that are not imported in it, e.g. large constants),
    `.name` (the function's name) and `.closed` (the IR it was generated from)."""
    globals: dict
    name: str
    closed: object

    def __repr__(self):  # shown as code at an interactive prompt
        return str(self)


def _leaf_names(gen, param, td):
    """Names for the leaves of one argument pytree, by their path."""
    out = []

    def go(td, base, top):
        if td.node_type is None:
            out.append(base)
            return
        nt = td.node_type
        if nt is dict or nt.__name__ == "OrderedDict":
            for k, c in zip(td.aux, td.children):
                ident = isinstance(k, str) and k.isidentifier()
                sub = k if ident and top else f"{base}_{sanitize(k)}"
                go(c, sub, False)
        elif hasattr(nt, "_fields"):
            for f, c in zip(nt._fields, td.children):
                go(c, f, False)
        else:
            for i, c in enumerate(td.children):
                go(c, f"{base}_{i}", False)
    go(td, param, True)
    return out


def _destructure(gen, name, td, leaf_names, stmts):
    """Statements binding the leaves of pytree argument `name` (structure `td`):
    tuple unpacking for tuples/lists/namedtuples, `d['k']` for dicts,
    `tree_util.tree_leaves` for other registered nodes."""
    it = iter(leaf_names)

    def target(td):
        """An assignment target for `td`, plus follow-up work for dict children."""
        if td.node_type is None:
            return store(next(it)), []
        nt = td.node_type
        if nt in (tuple, list) or hasattr(nt, "_fields"):
            elts, later = [], []
            for c in td.children:
                t, l = target(c)
                elts.append(t)
                later += l
            if not elts:
                return store("_"), later
            return ast.Tuple(elts=elts, ctx=ast.Store()), later
        if nt is type(None):
            return store("_"), []
        tmp = gen.fresh("node")
        return store(tmp), [(tmp, td)]

    def bind(src, td):
        nt = td.node_type
        if nt is type(None) or td.num_leaves == 0:
            return
        if nt is dict or getattr(nt, "__name__", "") == "OrderedDict":
            for k, c in zip(td.aux, td.children):
                sub = ast.Subscript(value=load(src), slice=pyconst(k), ctx=ast.Load())
                if c.node_type is None:
                    stmts.append(assign(next(it), sub))
                else:
                    tmp = gen.fresh(sanitize(k) if isinstance(k, str) else "node")
                    stmts.append(assign(tmp, sub))
                    bind(tmp, c)
            return
        if nt in (tuple, list) or hasattr(nt, "_fields"):
            t, later = target(td)
            stmts.append(ast.Assign(targets=[t], value=load(src), lineno=0))
            for tmp, c in later:
                bind(tmp, c)
            return
        # any other registered node: its leaves, in order
        names = [next(it) for _ in range(td.num_leaves)]
        # a typed key array is staged as its data: bind the data, not the key array
        tu = gen.import_object(tree_util.staging_leaves if tree_util.is_staging_leaf_type(nt)
                               else tree_util.tree_leaves)
        stmts.append(assign(names, call(attr(tu), [load(src)])))
    if td.node_type is None:
        return
    bind(name, td)


def _rebuild(gen, td, leaves):
    """The output pytree as an expression over the output leaf expressions."""
    it = iter(leaves)

    def go(td):
        nt = td.node_type
        if nt is None:
            return next(it)
        kids = [go(c) for c in td.children]
        if nt is tuple:
            return ast.Tuple(elts=kids, ctx=ast.Load())
        if nt is list:
            return ast.List(elts=kids, ctx=ast.Load())
        if nt is type(None):
            return ast.Constant(value=None)
        if nt is dict:
            return ast.Dict(keys=[pyconst(k) for k in td.aux], values=kids)
        if hasattr(nt, "_fields"):
            return call(attr(gen.import_object(nt)), kids)
        # any other registered node: rebuilt from its structure and leaves
        unflatten = gen.import_object(tree_util.tree_unflatten)
        tdname = gen.inject(td, "out_tree")
        return call(attr(unflatten), [load(tdname), ast.List(elts=_leaf_list(gen, td, kids),
                                                             ctx=ast.Load())])
    return go(td)


def _leaf_list(gen, td, kids):
    """The leaves under an opaque node, in order (containers among its children are
    flattened again with `tree_leaves`)."""
    out = []
    for c, k in zip(td.children, kids):
        if c.node_type is None:
            out.append(k)
        else:
            out.append(ast.Starred(value=call(attr(gen.import_object(tree_util.tree_leaves)), [k]),
                                   ctx=ast.Load()))
    return out


def _const_names(user_fn):
    """id(value) -> the name the user's function refers to it by (closure or global)."""
    names = {}
    fn = user_fn
    while fn is not None and not hasattr(fn, "__code__"):
        fn = getattr(fn, "fun", None) or getattr(fn, "__wrapped__", None)
    if fn is None:
        return names
    code = fn.__code__
    for n, c in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            names[id(c.cell_contents)] = n
        except ValueError:
            pass
    g = getattr(fn, "__globals__", {})
    for n in code.co_names:
        if n in g:
            names.setdefault(id(g[n]), n)
    return names


def generate(closed, in_tree, out_tree, *, name="f", param_names=None, user_fn=None,
             comments=True, title=None, main_file=None, inline_const_size=16):
    """ClosedJaxpr + argument/output pytree structures -> GeneratedSource.

    `in_tree` is the structure of `(args_tuple, kwargs_dict)` whose leaves are the
    jaxpr's invars, in order; `param_names` names the positional arguments."""
    jaxpr = closed.jaxpr
    gen = SourceGenerator(name, comments, main_file)
    body: list = []
    if title and comments:
        body.append(comment(title))

    # parameters
    args_td, kwargs_td = in_tree.children
    param_names = list(param_names or [])
    params = []
    for i in range(len(args_td.children)):
        p = param_names[i] if i < len(param_names) and param_names[i] else f"arg{i}"
        params.append(gen.fresh(p))
    kwnames = list(kwargs_td.aux) if kwargs_td.node_type is dict else []
    gen.used.update(kwnames)  # keyword arguments keep their names (callers use them)
    subtrees = list(args_td.children) + (list(kwargs_td.children) if kwnames else [])
    owners = params + kwnames
    invars = iter(jaxpr.invars)
    leaf_names_of = []   # (subtree, leaf names) per argument, for naming cotangents
    for pname, td in zip(owners, subtrees):
        leaves = [next(invars) for _ in range(td.num_leaves)]
        if td.node_type is None:
            gen.name_var(leaves[0], pname)
            leaf_names_of.append((td, [pname]))
            continue
        bases = _leaf_names(gen, pname, td)
        names = []
        for v, base in zip(leaves, bases):
            hint = v.hint if v.hint and v.hint != pname else None
            names.append(gen.fresh(hint or base))
            gen.name_var(v, names[-1])
        leaf_names_of.append((td, names))
        _destructure(gen, pname, td, names, body)
    _name_cotangent_outputs(gen, jaxpr, out_tree, leaf_names_of)

    # constants
    const_names = _const_names(user_fn)
    for v, c in zip(jaxpr.constvars, closed.consts):
        if isinstance(c, core.Tracer):
            raise SourceGenError("the function captures a staged value from an enclosing "
                                 "transformation; generate source for the outer function",
                                 loc=UNKNOWN)
        base = const_names.get(id(c)) or v.hint or "const"
        try:
            val = np.asarray(c)
        except Exception:  # noqa: BLE001
            val = None
        if val is not None and val.size <= inline_const_size:
            nm = gen.fresh(base)
            body.append(assign(nm, gen.array_value(val, v.aval.dtype)
                               if val.ndim else gen.typed_scalar(scalar_py(val[()], v.aval.dtype),
                                                                 v.aval.dtype)))
            gen.name_var(v, nm)
        else:
            nm = gen.inject(c, base)
            gen.name_var(v, nm)

    single = out_tree.num_leaves == 1 and out_tree.node_type is None
    gen.emit_jaxpr(jaxpr, body, owns_invars=True, fold_return=single)
    outs = [gen.typed_arg(a, a.aval) for a in jaxpr.outvars]
    body.append(ast.Return(value=_rebuild(gen, out_tree, outs)))

    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                         vararg=None, kwonlyargs=[ast.arg(arg=k) for k in kwnames],
                         kw_defaults=[None] * len(kwnames), kwarg=None, defaults=[])
    fdef = ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                           lineno=0)
    header = [ast.Import(names=[ast.alias(name="numpy", asname="np")]),
              ast.Import(names=[ast.alias(name="astjax.numpy", asname="jnp")]),
              ast.ImportFrom(module="astjax", names=[ast.alias(name="lax")], level=0)]
    if gen.uses_core:
        header.append(ast.ImportFrom(module="astjax", names=[ast.alias(name="core")], level=0))
    for (mod, qual), local in sorted(gen.imports.items()):
        header.append(ast.ImportFrom(module=mod, names=[ast.alias(
            name=qual, asname=None if local == qual else local)], level=0))
    provided = [n for n in gen.globals if n not in gen.imports.values()]
    if provided and comments:
        header.append(comment(f"provided in the function's globals: {', '.join(provided)} "
                              "(see astjax.source_function)"))
    module = ast.Module(body=header + [fdef], type_ignores=[])
    text = ast.unparse(ast.fix_missing_locations(module)) + "\n"
    text = _blank_lines(text)
    out = GeneratedSource(text)
    out.globals = dict(gen.globals)
    out.name = name
    out.closed = closed
    return out


def _name_cotangent_outputs(gen, jaxpr, out_tree, leaf_names_of):
    """Outputs shaped like an argument pytree whose leaves are cotangents (`ct_...`,
    as `grad` returns them) are named after that argument's leaves: `ct_params_0_1`."""
    def subtrees(td, start):
        yield td, start
        if td.node_type is tuple:
            k = start
            for c in td.children:
                yield from subtrees(c, k)
                k += c.num_leaves
    for td, start in subtrees(out_tree, 0):
        if td.num_leaves < 2:
            continue
        for arg_td, names in leaf_names_of:
            if arg_td != td:
                continue
            outs = jaxpr.outvars[start:start + td.num_leaves]
            if not all(isinstance(v, core.Var) and v.hint and v.hint.startswith("ct_")
                       and outs.count(v) == 1 and v not in jaxpr.invars
                       and v not in gen.preset for v in outs):
                continue
            for v, n in zip(outs, names):
                gen.preset[v] = gen.fresh(f"ct_{n}")
            break


def _blank_lines(text):
    """Two blank lines before the top-level `def` (PEP 8)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("def "):
            while i > 0 and lines[i - 1] == "":
                lines.pop(i - 1)
                i -= 1
            lines[i:i] = ["", ""]
            break
    return "\n".join(lines)

# ======================================================================= rules


def generic_rule(gen, eqn):
    """`core.primitives['name'].bind(*args, **params)`: prints any primitive, exactly."""
    gen.uses_core = True
    f = attr(ast.Subscript(value=attr("core", "primitives"), slice=pyconst(eqn.primitive.name),
                           ctx=ast.Load()), "bind")
    return call(f, [gen.arg(a) for a in eqn.invars],
                **{k: gen.value(v) for k, v in sorted(eqn.params.items())})


def _generic_statement(gen, eqn):
    expr = generic_rule(gen, eqn)
    names = [gen.out_name(v, eqn.primitive.name) for v in eqn.outvars]
    return [assign(names, expr)]


# ---- nested blocks (statement rules reach these through `gen`) -----------------


def _assign_outputs(gen, stmts, pairs):
    """`name = expr` for (name, expr) pairs, as one tuple assignment when a later
    right-hand side reads a name assigned before it (a swap)."""
    pairs = [(n, e) for n, e in pairs if not (isinstance(e, ast.Name) and e.id == n)]
    if not pairs:
        return
    assigned, clash = set(), False
    for n, e in pairs:
        if any(isinstance(x, ast.Name) and x.id in assigned for x in ast.walk(e)):
            clash = True
        assigned.add(n)
    if clash:
        stmts.append(assign(tuple(n for n, _ in pairs),
                            ast.Tuple(elts=[e for _, e in pairs], ctx=ast.Load())))
    else:
        stmts.extend(assign(n, e) for n, e in pairs)


def _branch_block(gen, br, ops, out_names, out_vars):
    """One cond branch: statements that leave its outputs in `out_names`."""
    jaxpr = br.jaxpr if isinstance(br, core.ClosedJaxpr) else br
    for v, a in zip(jaxpr.invars, ops):
        gen.alias(v, a)
    seen = set()
    for v, n in zip(jaxpr.outvars, out_names):
        if isinstance(v, core.Var) and v not in seen and v not in jaxpr.invars:
            gen.preset[v] = n
        seen.add(v)
    stmts = []
    gen.emit_jaxpr(jaxpr, stmts)
    _drop_presets(gen, jaxpr.outvars)
    _assign_outputs(gen, stmts, [(n, gen.typed_arg(v, o.aval))
                                 for v, n, o in zip(jaxpr.outvars, out_names, out_vars)])
    return stmts or [ast.Pass()]


def _drop_presets(gen, atoms):
    """Forget names chosen for outputs that a block did not bind (literals, inputs)."""
    for v in atoms:
        if isinstance(v, core.Var):
            gen.preset.pop(v, None)


def _hint_from(*vs):
    for v in vs:
        if isinstance(v, core.Var) and v.hint:
            return v.hint
    return None


# ---- registrations ----------------------------------------------------------------


