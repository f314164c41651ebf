"""The converter: rewrites a function's gast AST so that running it stages IR.

Every rewrite keeps the user's source positions, and the converted code is
compiled under the user's filename, so tracebacks, `user_location()` and the
`source_info` of every staged equation point at the user's file:line:col.

Rewrites (each a small visitor method, AutoGraph-style):
- calls `f(a, k=v)` -> `ag__.call(f, a, k=v)`: user functions are converted
  recursively at the call, NumPy functions on staged values map to astjax.numpy;
- `x = value` -> `x = ag__.name(value, 'x')`: the user's name becomes the IR
  variable's naming hint (for generated source and errors);
- control flow (`if`, `while`, `for`, `break`, `continue`, `return`, boolean
  operators, conditional expressions) -> see `control_flow`;
- `global` names: stores go to the module, as in Python, checked by
  `ag__.global_store` (no staged value may escape there);
- a class definition: its body is plain Python, its methods are converted as
  nested functions;
- unsupported syntax -> `UnsupportedSyntaxError` at its position;
- a mutating method call on (or an item store into) an object the function does not
  own -> a warning when it stores a staged value while staging (`operators.mutation`,
  `operators.store_into`);
- `except ...:` -> `ag__.caught()` first in the handler, `with cm:` -> `with
  ag__.guarded_with(cm):`: an astjax error user code catches while a loop is staged
  once as a trial makes the loop unroll (`trials`).
"""
from __future__ import annotations

import ast
import types

import gast

from .. import core
from ..errors import SourceInfo, UnsupportedSyntaxError, USER_CODE
from ..util import WeakIdMap
from . import astbridge, control_flow, parser

_AUGMENTED = {gast.Add: "iadd", gast.Sub: "isub", gast.Mult: "imul", gast.Div: "itruediv",
              gast.FloorDiv: "ifloordiv", gast.Mod: "imod", gast.Pow: "ipow",
              gast.MatMult: "imatmul", gast.BitAnd: "iand", gast.BitOr: "ior",
              gast.BitXor: "ixor", gast.LShift: "ilshift", gast.RShift: "irshift"}
_NO_WRAP = {"super", "locals", "globals", "vars", "eval", "exec", "ag__"}
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
             "add", "discard", "popitem", "sort", "reverse", "__setitem__"}


def _loc(filename, node):
    return SourceInfo(filename, getattr(node, "lineno", None), getattr(node, "col_offset", None),
                      getattr(node, "end_col_offset", None))


_LOAD = gast.Load()   # contexts carry nothing: one shared, as `ast.parse` shares them
_make = astbridge.make


def ag_attr(name, ctx=None):
    return _make(gast.Attribute, value=_make(gast.Name, id="ag__", ctx=_LOAD, annotation=None,
                                             type_comment=None),
                 attr=name, ctx=ctx or _LOAD)


def name_load(n):
    return _make(gast.Name, id=n, ctx=_LOAD, annotation=None, type_comment=None)


def const(v):
    return _make(gast.Constant, value=v, kind=None)


def _call(func, args, keywords=None):
    return _make(gast.Call, func=func, args=args, keywords=[] if keywords is None else keywords)


def _local_names(fn_node, lambdas_to_come=False) -> set:
    """Names bound in the function's own scope (parameters and assignments).
    `lambdas_to_come`: the control-flow rewrites of expressions may not have run yet
    (`_OneWalk`); the parts of an expression they put into a lambda are skipped as the
    lambda would be: a conditional expression's branches, a boolean operator's values
    but a first one that binds a name (`:=`), a chained comparison's operands after
    its first two (`control_flow`'s rules)."""
    out = set()
    args = fn_node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            out.add(a.id)
    body = fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out.add(n.id)
        if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            if not isinstance(n, gast.Lambda):
                out.add(n.name)
            continue
        if lambdas_to_come:
            if isinstance(n, gast.IfExp):
                stack.append(n.test)
                continue
            if isinstance(n, gast.BoolOp):
                if control_flow.binds(n.values[0]):
                    stack.append(n.values[0])
                continue
            if isinstance(n, gast.Compare) and len(n.ops) > 1:
                stack += [n.left, n.comparators[0]]
                continue
        stack.extend(astbridge.child_nodes(n))
    return out


class _LocalNames:
    """A function's own names (`_local_names` minus `declared` globals), found on the
    first question: only a mutating call or an item assignment asks (issue 14: most
    functions never walk their scope for it)."""
    __slots__ = ("node", "declared", "names", "lambdas_to_come")

    def __init__(self, node, declared=frozenset(), lambdas_to_come=False):
        self.node, self.declared, self.names = node, declared, None
        self.lambdas_to_come = lambdas_to_come

    def __contains__(self, name):
        if self.names is None:
            names = _local_names(self.node, True) if self.lambdas_to_come else \
                _local_names(self.node)
            self.names = names - self.declared
        return name in self.names


class Converter(astbridge.Transformer):
    lambdas_to_come = False   # (`_OneWalk`)

    def __init__(self, filename):
        self.filename = filename
        self.scopes: list[_LocalNames] = []
        self.globals: list[set] = [set()]   # per function: the names it declares `global`
        # per function: its first parameter, None for a function `control_flow` made
        self.first: list = []

    def unsupported(self, node, what, hint=None):
        raise UnsupportedSyntaxError(f"{what} is not supported in a staged function", hint,
                                     loc=_loc(self.filename, node))

    # -- scopes --------------------------------------------------------------------
    def visit_FunctionDef(self, node):
        if self.scopes and not control_flow.converted_method(node):
            return node   # a nested generator: plain Python (`operators._convertible`)
        declared = control_flow.declared_globals(node)
        self.scopes.append(_LocalNames(node, declared, self.lambdas_to_come))
        self.globals.append(declared)
        params = node.args.posonlyargs + node.args.args
        self.first.append(None if node.name.startswith(control_flow.INTERNAL)
                          else params[0].id if params else "")
        node.body = self._visit_body(node.body)
        self.scopes.pop()
        self.globals.pop()
        self.first.pop()
        node.decorator_list = [self.visit(d) for d in node.decorator_list] if self.scopes else []
        node.returns = None
        for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            a.annotation = None
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        return node

    def visit_Lambda(self, node):
        self.scopes.append(_LocalNames(node, lambdas_to_come=self.lambdas_to_come))
        self.globals.append(set())
        node.body = self.visit(node.body)
        self.scopes.pop()
        self.globals.pop()
        return node

    def _visit_body(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            if r is None:
                continue
            out.extend(r if isinstance(r, list) else [r])
        return out

    # -- unsupported constructs ----------------------------------------------------
    def visit_Yield(self, node):
        self.unsupported(node, "`yield` (a generator)", "return a list or an array instead")

    visit_YieldFrom = visit_Yield

    def visit_ClassDef(self, node):
        # plain Python but for its methods (`ControlFlowConverter.visit_ClassDef`)
        node.body = [self.visit(s) if control_flow.converted_method(s) else s
                     for s in node.body]
        return node

    def visit_AsyncFunctionDef(self, node):
        self.unsupported(node, "an async function")

    def visit_Await(self, node):
        self.unsupported(node, "`await`")

    visit_AsyncFor = visit_AsyncWith = visit_Await

    # -- calls ---------------------------------------------------------------------
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, gast.Name) and f.id in _NO_WRAP:
            if f.id == "super" and not node.args and not node.keywords:
                self._explicit_super(node)
            return node
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == "ag__":
            return node
        owner = self._side_effect_owner(node)
        if owner is not None:    # `obj.append(v)` -> `ag__.mutation('obj', obj.append, v)`
            return astbridge.copy_location(_call(ag_attr("mutation"),
                                                 [const(owner), node.func] + node.args,
                                                 node.keywords), node)
        return astbridge.copy_location(_call(ag_attr("call"), [node.func] + node.args,
                                             node.keywords), node)

    def _explicit_super(self, node):
        """A zero-argument `super()` that a branch or loop body function (made by
        `control_flow`) now holds: Python finds the class and instance of a
        zero-argument `super()` from the function it is written in (its `__class__`
        cell and first parameter), so it is spelled out as `super(__class__, self)`
        with the method's own first parameter."""
        if not self.first or self.first[-1] is not None:
            return
        owner = next((p for p in reversed(self.first) if p is not None), "")
        if owner:
            node.args = [name_load("__class__"), name_load(owner)]

    def _side_effect_owner(self, node):
        """For `obj.append(...)` (a mutating method) on a name this function does not
        own (not a local of any enclosing converted scope), the name `obj`; else None.
        The call becomes `ag__.mutation('obj', obj.append, ...)`, which decides when it
        runs whether it stores a staged value in a Python object (it warns then, while
        staging); a nested function passed to a host callback runs it on every call of
        the compiled function (no builder then), so it does not warn there. A static
        check here could tell neither apart."""
        f = node.func
        if not (isinstance(f, gast.Attribute) and f.attr in _MUTATORS
                and isinstance(f.value, gast.Name)):
            return None
        name = f.value.id
        if any(name in scope for scope in self.scopes):
            return None
        return name

    # -- globals -------------------------------------------------------------------
    # An assignment to a name the function declares `global` stores into the module
    # as in Python (`control_flow` keeps such names out of branch and loop state, and
    # the generated functions declare them `global` too); `ag__.global_store` checks,
    # when it runs while staging, that no staged value escapes into the module.
    def _global_store(self, node, value, names, elements=None):
        args = [value, gast.Tuple(elts=[const(n) for n in names], ctx=gast.Load())]
        if elements is not None:
            args.append(gast.Tuple(elts=[const(e) for e in elements], ctx=gast.Load()))
        call = gast.Call(func=ag_attr("global_store"), args=args, keywords=[])
        return ast.copy_location(call, node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        t = node.target
        if isinstance(t, gast.Subscript):
            return self._check_setitem(node)
        if not (isinstance(t, gast.Name) and t.id in self.globals[-1]):
            return node
        # `g += v` -> `g = ag__.global_store(ag__.augmented('iadd', g, v), ('g',))`
        op = gast.Call(func=ag_attr("augmented"),
                       args=[const(_AUGMENTED[type(node.op)]), name_load(t.id), node.value],
                       keywords=[])
        new = gast.Assign(targets=[t], value=self._global_store(node, op, [t.id]),
                          type_comment=None)
        return ast.copy_location(new, node)

    def _bound_globals(self, target):
        """The names declared `global` that `target` binds, and for a tuple of plain
        names which of its elements they are (as `visit_Assign`)."""
        glob = self.globals[-1]
        names = [n.id for n in gast.walk(target) if isinstance(n, gast.Name) and n.id in glob]
        elements = None
        if isinstance(target, (gast.Tuple, gast.List)) and \
                all(isinstance(e, gast.Name) for e in target.elts):
            elements = [e.id in glob for e in target.elts]
        return names, elements

    def visit_NamedExpr(self, node):
        # `(g := v)` -> `(g := ag__.global_store(v, ('g',)))`
        self.generic_visit(node)
        names, _ = self._bound_globals(node.target)
        if names:
            node.value = self._global_store(node, node.value, names)
        return node

    def visit_ExceptHandler(self, node):
        # `except E:` -> `except E: ag__.caught()` (`trials`)
        self.generic_visit(node)
        node.body.insert(0, ast.copy_location(gast.Expr(value=_call(ag_attr("caught"), [])),
                                              node.body[0] if node.body else node))
        return node

    def visit_With(self, node):
        # `with cm as g:` -> `with ag__.global_with(cm, ('g',)) as g:`; every manager
        # then -> `ag__.guarded_with(...)` (`trials`)
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = ast.copy_location(
                _call(ag_attr("guarded_with"), [item.context_expr]), item.context_expr)
        for item in node.items:
            names, elements = self._bound_globals(item.optional_vars) \
                if item.optional_vars is not None else ([], None)
            if names:
                args = [item.context_expr, gast.Tuple(elts=[const(n) for n in names],
                                                      ctx=gast.Load())]
                if elements is not None:
                    args.append(gast.Tuple(elts=[const(e) for e in elements], ctx=gast.Load()))
                item.context_expr = ast.copy_location(
                    gast.Call(func=ag_attr("global_with"), args=args, keywords=[]),
                    item.context_expr)
        return node

    def visit_Delete(self, node):
        # `del g` -> `ag__.global_store(None, ('g',), None, 'deleting'); del g`
        names = [t.id for t in node.targets if isinstance(t, gast.Name)
                 and t.id in self.globals[-1]]
        self.generic_visit(node)
        if not names:
            return node
        check = self._global_store(node, const(None), names)
        check.args += [const(None), const("deleting")]
        return [ast.copy_location(gast.Expr(value=check), node), node]

    def visit_Import(self, node):
        # `import m as g` -> `import m as g; ag__.global_store(g, ('g',))` (a module is
        # static: Python's store, and the once-while-staging warning)
        names = [n for n in (a.asname or a.name.split(".")[0] for a in node.names)
                 if n in self.globals[-1]]
        if not names:
            return node
        value = gast.Tuple(elts=[name_load(n) for n in names], ctx=gast.Load())
        return [node, ast.copy_location(gast.Expr(value=self._global_store(node, value, names)),
                                        node)]

    visit_ImportFrom = visit_Import

    # -- naming --------------------------------------------------------------------
    def visit_Assign(self, node):
        self.generic_visit(node)
        glob = self.globals[-1]
        stored = [n.id for t in node.targets for n in gast.walk(t)
                  if isinstance(n, gast.Name) and n.id in glob] if glob else []
        if stored:
            # a staged value must not escape into the module; unpacking into names
            # checks only the elements that go to a global
            t = node.targets[0]
            elements = None
            if (len(node.targets) == 1 and isinstance(t, (gast.Tuple, gast.List))
                    and all(isinstance(e, gast.Name) for e in t.elts)):
                elements = [e.id in glob for e in t.elts]
            node.value = self._global_store(node, node.value, stored, elements)
            return node
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            target = node.targets[0].id
            node.value = astbridge.copy_location(
                _call(ag_attr("name"), [node.value, const(target)]), node.value)
        elif (len(node.targets) == 1 and isinstance(node.targets[0], (gast.Tuple, gast.List))
              and all(isinstance(e, gast.Name) for e in node.targets[0].elts)):
            names = gast.Tuple(elts=[const(e.id) for e in node.targets[0].elts], ctx=gast.Load())
            node.value = astbridge.copy_location(
                _call(ag_attr("names"), [node.value, names]), node.value)
        elif len(node.targets) == 1 and isinstance(node.targets[0], gast.Subscript):
            return self._check_setitem(node)
        return node

    def _check_setitem(self, node):
        """`obj[k] = v` (or `obj[k] op= v`) on a name this function does not own ->
        `obj[k] = ag__.store_into(v, obj, 'obj')`: it warns when a staged value goes
        into a Python container while staging (as `mutation`). `v` is evaluated
        first, then `obj`, as Python evaluates the statement."""
        t = node.targets[0] if isinstance(node, gast.Assign) else node.target
        v = t.value
        if isinstance(v, gast.Name) and not any(v.id in s for s in self.scopes):
            node.value = astbridge.copy_location(
                _call(ag_attr("store_into"), [node.value, name_load(v.id), const(v.id)]),
                node.value)
        return node


class _OneWalk(Converter):
    """Both converters in one walk, for a function of plain statements declaring no
    globals (`control_flow.expressions_only`): there the control-flow converter only
    rewrites expressions -- conditional expressions, boolean operators, `not`, chained
    comparisons -- each by itself, so it rewrites each where this walk meets it and
    the result is converted here, as the second walk would have (issue 14: every node
    was walked twice). The same code as the two walks, checked over
    `tests/functions.py` (`tests/test_perf_frontend.py`)."""
    lambdas_to_come = True

    def __init__(self, filename, control):
        super().__init__(filename)
        self.control = control

    def _expression(self, node):
        new = self.control.visit(node)
        return self.generic_visit(new) if new is node else self.visit(new)

    visit_IfExp = visit_BoolOp = visit_UnaryOp = visit_Compare = _expression


def _hooks():
    return control_flow


def convert_ast(node, filename):
    """Run the analyses and converters over a FunctionDef/Lambda gast node."""
    cf = _hooks()
    node = cf.canonicalize(node, filename)
    if cf.expressions_only(node):
        return _OneWalk(filename, cf.ControlFlowConverter(filename)).visit(node)
    node = cf.ControlFlowConverter(filename).visit(node)
    node = Converter(filename).visit(node)
    return node


def _code_tree(code):
    """`code` and every code object nested in it."""
    out, todo = [], [code]
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


# user code object -> its compiled factory module, for as long as the code
# object lives (JAX keeps its traces weakly on the function): a function dropped by its
# user takes its converted code -- and the staged programs kept for it -- with it
# (issue 14: kept forever, every function ever staged was walked by each full garbage
# collection). By identity: hashing a code object walks its names and constants, and
# equal code objects of other files must not share a conversion.
_factories = WeakIdMap()
_converted_marker = "__astjax_converted__"


# User names that start with `ag__` would collide with the converted code's own names
# (the `ag__` operator namespace, `ag__retval`, `ag__fn_true_1`, ...). They are renamed
# to a prefix no source text can spell (identifiers in source are NFKC-normalised, and
# U+1D64 normalises to 'u'); a read of such a global goes through `globals()`.
_USER_PREFIX = "ag\u1d64__"


def _user_name(n):
    return _USER_PREFIX + n[4:] if n.startswith("ag__") else n


def _protect_user_names(node, code, filename):
    """Rename the user's `ag__*` names (parameters, locals, closure variables) out of
    the converter's way; a global `ag__*` is read as `globals()['ag__*']`."""
    if parser.never_spells(filename, "ag__"):
        return node   # the usual case, told from the file's text (issue 14)
    bound = set(code.co_freevars)
    spelled = False   # some name in the function starts with `ag__` (one walk, issue 14)
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            spelled = spelled or n.id.startswith("ag__")
            if not isinstance(n.ctx, gast.Load):
                bound.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, gast.alias):
            bound.add((n.asname or n.name).split(".")[0])
    if not spelled and not any(b.startswith("ag__") for b in bound):
        return node

    class Rename(gast.NodeTransformer):
        def visit_Name(self, n):
            if not n.id.startswith("ag__"):
                return n
            if n.id in bound:
                n.id = _user_name(n.id)
                return n
            read = gast.Subscript(value=gast.Call(func=name_load("globals"), args=[],
                                                  keywords=[]),
                                  slice=const(n.id), ctx=gast.Load())
            return ast.copy_location(read, n)

        def visit_FunctionDef(self, n):
            n.name = _user_name(n.name) if n.name in bound else n.name
            self.generic_visit(n)
            return n

    return Rename().visit(node)


def _converted_module(fn):
    """The converted factory module of `fn` as a Python `ast` tree."""
    code = fn.__code__
    node, filename = parser.parse_function(fn)
    # default values are the original function's (`convert` copies __defaults__):
    # evaluating them again in the factory would look them up in the wrong scope
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kw_defaults)
    node = _protect_user_names(node, code, filename)
    node = convert_ast(node, filename)
    freevars = [_user_name(n) for n in code.co_freevars]
    args = gast.arguments(args=[gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
                                for n in ["ag__"] + freevars],
                          posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                          defaults=[])
    if isinstance(node, gast.Lambda):
        body = [gast.Return(value=node)]
    else:
        body = [node, gast.Return(value=name_load(node.name))]
    factory = gast.FunctionDef(name="ag__factory", args=args, body=body, decorator_list=[],
                               returns=None, type_comment=None, type_params=[])
    for n in (factory, *body):
        ast.copy_location(n, node)
    module = gast.Module(body=[factory], type_ignores=[])
    return astbridge.to_ast(module), filename   # gast_to_ast + fix_missing_locations


def _factory_code(fn):
    """The compiled factory module of `fn`, converted once per code object. Only the
    code is kept: the converted tree is made again when asked for (`converted_ast`),
    not held for as long as the function lives."""
    code = fn.__code__
    compiled = _factories.get(code)
    if compiled is not None:
        return compiled
    with core.collector_paused():   # acyclic trees: no collection while they are built
        pyast, filename = _converted_module(fn)
        compiled = compile(pyast, filename, "exec")
    for c in _code_tree(compiled):
        USER_CODE[c] = True
    _factories[code] = compiled
    return compiled


class _EmptyCell:
    def __repr__(self):
        return "<undefined>"


def convert(fn):
    """The converted twin of a Python function (same signature, closure, defaults)."""
    if getattr(fn, _converted_marker, False):
        return fn
    compiled = _factory_code(fn)
    ns: dict = {}
    exec(compiled, fn.__globals__, ns)
    cells = []
    for c in fn.__closure__ or ():
        try:
            cells.append(c.cell_contents)
        except ValueError:
            cells.append(_EmptyCell())
    from . import operators
    new = ns["ag__factory"](operators, *cells)
    if fn.__closure__:
        # share the original function's cells, not copies of their contents: a write
        # through `nonlocal` (by the user's other functions or by this one) is seen
        # by both (R2)
        own = {_user_name(n): c for n, c in zip(fn.__code__.co_freevars, fn.__closure__)}
        closure = tuple(own.get(n, c) for n, c in zip(new.__code__.co_freevars,
                                                      new.__closure__ or ()))
        new = types.FunctionType(new.__code__, new.__globals__, new.__name__,
                                 new.__defaults__, closure)
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__doc__ = fn.__doc__
    setattr(new, _converted_marker, True)
    new.__astjax_original__ = fn
    return new



def converted_ast(fn) -> ast.Module:
    """The converted module of `fn` (a Python `ast` tree whose statements keep the
    user's line numbers): what `convert` compiles, converted again (conversion is
    deterministic), so a fresh tree the caller may keep."""
    return _converted_module(fn)[0]


def converted_source(fn) -> str:
    """The converted code of `fn` as Python text (for tests and debugging the converter)."""
    return ast.unparse(converted_ast(fn))
