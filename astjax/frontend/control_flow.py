"""Control-flow conversion: `if`/`while`/`for`, conditional expressions and
boolean operators become calls to run-time operators (`branch_ops`, `loop_ops`) that
run plain Python when the test is static and stage `cond`/`while`/`scan` when it
is staged.

A statement's *state* is the set of names it modifies that are live around it
(activity + liveness analyses); bodies become nested functions taking the state
as parameters and returning it (functional form, AutoGraph's design):

    if x > 0:                      def ag__fn_true_1(y):
        y = x                          y = x
    else:                   ->         return (y,)
        y = -x                     def ag__fn_false_1(y):
                                       y = -x
                                       return (y,)
                                   (y,) = ag__.if_stmt(x > 0, ag__fn_true_1,
                                           ag__fn_false_1, (<y or undefined>,), ('y',), meta)
"""
from __future__ import annotations

import bisect

import gast

from ..errors import SourceInfo, UnsupportedSyntaxError
from ..util import Namer
from . import astbridge
from .analysis import activity, liveness, reaching_definitions
from .canonicalize import binds, canonicalize, converted_method  # noqa: F401  (re-exported for
#                                                                        the converter)
from .templates import locate, name_tuple, replace, replace_expr, str_tuple

INTERNAL = "ag__fn_"


def _const(v):
    return gast.Constant(value=v, kind=None)


def _first_lines(stmts, ctx=gast.Store):
    """name -> first line where a block assigns (ctx=Store: also `del x`, `x.a = v`,
    `x[k] = v`, `x.append(v)`) or reads (ctx=Load) it."""
    out = {}
    ctxs = (gast.Store, gast.Del) if ctx is gast.Store else ctx
    for s in stmts:
        for n in gast.walk(s):
            name = None
            if isinstance(n, gast.Name) and isinstance(n.ctx, ctxs):
                name = n.id
            elif ctx is gast.Store and isinstance(n, (gast.Attribute, gast.Subscript)) and \
                    isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name):
                name = n.value.id
            elif ctx is gast.Store and isinstance(n, gast.Call) and activity.mutated(n):
                name = n.func.value.id
            if name is not None and name not in out:
                out[name] = getattr(n, "lineno", None)
    return out


class _BlockReads:
    """name -> (statement positions, lines) of its reads in a block, built once, on the
    first question, from the statements after the one being converted then (those
    are still unconverted); `_ReadsAfter` answers from it by bisection."""
    __slots__ = ("stmts", "start", "index")

    def __init__(self, stmts):
        self.stmts, self.start, self.index = stmts, None, None

    def first_after(self, i, name):
        if self.index is None:
            self.start, self.index = i + 1, {}
            for j in range(i + 1, len(self.stmts)):
                for n, line in _first_lines([self.stmts[j]], gast.Load).items():
                    pos, lines = self.index.setdefault(n, ([], []))
                    pos.append(j)
                    lines.append(line)
        entry = self.index.get(name)
        if entry is None:
            return None
        k = bisect.bisect_right(entry[0], i)
        return (True, entry[1][k]) if k < len(entry[0]) else None


class _ReadsAfter:
    """The first line reading a name after statement `i` of a block, else after the
    enclosing statement (`parent`): a lazy stand-in for that merged dict."""
    __slots__ = ("block", "i", "parent")

    def __init__(self, block, i, parent):
        self.block, self.i, self.parent = block, i, parent

    def get(self, name, default=None):
        found = self.block.first_after(self.i, name)
        if found is not None:
            return found[1]
        return self.parent.get(name, default)


def declared_globals(fn) -> set:
    """Names a function declares `global` in its own scope (not in nested ones); a
    walk of its statements only (a declaration is never inside an expression)."""
    out = set()
    for n in liveness.scope_statements(fn.body):
        if isinstance(n, gast.Global):
            out.update(n.names)
    return out


def _stores(stmts, names) -> dict:
    """name -> (line, col, end_col) of the first place where a block (not its nested
    functions) binds one of `names`, in any binding form (`activity.binding_sites`)."""
    return {n: _position(node) for n, node in activity.binding_sites(stmts, names).items()}


class _Unannotate(gast.NodeTransformer):
    """`x: T = v` -> `x = v` (a bare `x: T` -> `pass`) for the names of `names`, in one
    scope (not its nested functions or classes)."""

    def __init__(self, names):
        self.names = names

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_AnnAssign(self, node):
        if not (isinstance(node.target, gast.Name) and node.target.id in self.names):
            return node
        new = (gast.Pass() if node.value is None else
               gast.Assign(targets=[node.target], value=node.value, type_comment=None))
        return gast.copy_location(new, node)


def _unannotated(stmts, names):
    """A generated function's body with the annotations of the names it declares
    `nonlocal` or `global` dropped: Python refuses `nonlocal x` with `x: T = v`
    (SyntaxError "annotated name 'x' can't be nonlocal"), and the annotation of a
    function's variable is never evaluated, so dropping it changes nothing."""
    return [_Unannotate(set(names)).visit(s) for s in stmts] if names else stmts


def _in_place(body, state):
    """State names whose object a loop body changes in place and never rebinds."""
    return sorted((activity.mutated(body) | activity.stored_into(body))
                  - activity.modified(body) & set(state))


_PER_TRIP = ("next",)   # builtins whose every call changes Python state


def _effect(effects):
    """The `effect=` argument of a loop or branch operator for the candidates of
    `_per_trip_effect`: a constant (what, line, col, end_col) when the first one is
    certain, else `ag__.per_trip_effect(...)`, which decides when the statement runs
    whether a method call changes its owner (`tx.update(g, s)` on an optax
    transformation is a function stored in a tuple: no change; `d.update(...)` on a
    dict is one) and gives the first effect that holds, or None."""
    if not effects:
        return _const(None)
    consts = [gast.Tuple(elts=[_const(v) for v in e], ctx=gast.Load()) for e, _ in effects]
    if effects[0][1] is None:
        return consts[0]
    rows = []
    for c, (_, owner) in zip(consts, effects):
        test = _const(None) if owner is None else replace_expr(
            "lambda: owner", owner=gast.Name(id=owner[0], ctx=gast.Load(), annotation=None,
                                             type_comment=None))
        rows.append(gast.Tuple(elts=[c, test, _const(None if owner is None else owner[1])],
                               ctx=gast.Load()))
    return gast.Call(func=replace_expr("ag__.per_trip_effect"), args=rows, keywords=[])


def _certain(effects) -> bool:
    """The first of `effects` (`_per_trip_effect`) holds whatever the objects are."""
    return bool(effects) and effects[0][1] is None


def _position(n):
    """(line, col, end_col) of a node; end_col None when it ends on another line."""
    line = getattr(n, "lineno", None)
    end = getattr(n, "end_col_offset", None) if getattr(n, "end_lineno", None) == line else None
    return (line, getattr(n, "col_offset", None), end)


def _per_trip_effect(body, global_names=(), local_names=None):
    """The Python-level effects in a loop body that the loop must run once per trip
    (R17), or a branch only on its own path: a call of a builtin like `next(it)`
    (advances an iterator), an attribute assignment `o.a = v` (arrays have no settable
    attributes), an assignment to a name the function declares `global`, or a change
    of an object the function does not own (`lst.append(v)`, `d[k] = v` where `lst`,
    `d` are not locals of the function: `local_names`). Returns a list of candidates
    ((text, line, col, end_col), owner), in order, up to the first certain one (owner
    None); a change of an object is a candidate with owner (name, method name or None
    for an item store): whether the call changes that object is only known when it
    runs (`_effect`). An empty list: none."""
    stored = activity.binding_sites(body, set(global_names))
    if stored:
        name = min(stored, key=lambda n: getattr(stored[n], "lineno", 0) or 0)
        node = stored[name]
        verb = "deleting" if isinstance(getattr(node, "ctx", None), gast.Del) else "assigning"
        return [((f"{verb} the global `{name}`",) + _position(node), None)]
    own = activity.modified(body)   # `o = Box(); o.a = v`, `it = iter(xs); next(it)`:
    #                                 a fresh object each time
    out = []
    for n, fresh in _walk_scopes(body):
        bound = own | fresh
        if (isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in _PER_TRIP
                and not (n.args and isinstance(n.args[0], gast.Name) and n.args[0].id in bound)):
            return out + [((f"`{n.func.id}()`",) + _position(n), None)]
        if (isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store)
                and isinstance(n.value, gast.Name) and n.value.id not in bound):
            return out + [((f"`{n.value.id}.{n.attr} = ...`",) + _position(n), None)]
        if local_names is not None:
            changed = activity.changed_object(n)
            if changed is not None and changed[0] not in local_names and changed[0] not in fresh:
                method = n.func.attr if isinstance(n, gast.Call) else None
                out.append(((f"changing `{changed[0]}`, an object this function does not "
                             f"own, with {changed[1]}",) + _position(n),
                            (changed[0], method)))
    return out


def _walk_scopes(body):
    """Every node of a block with the names that hold objects made inside it besides
    the block's own: in a method of a class the block defines, its `self` (an instance
    made after the class, so on this path) and the names the method binds."""
    stack = [(n, frozenset()) for n in reversed(body)]
    while stack:
        n, fresh = stack.pop()
        yield n, fresh
        if isinstance(n, gast.ClassDef):
            kids = []
            for c in astbridge.child_nodes(n):
                if isinstance(c, gast.FunctionDef):
                    params = c.args.posonlyargs + c.args.args
                    mine = activity.modified(c.body) | ({params[0].id} if params else set())
                    kids.append((c, fresh | mine))
                else:
                    kids.append((c, fresh))
            stack.extend(reversed(kids))
        else:
            stack.extend((c, fresh) for c in reversed(astbridge.child_nodes(n)))

# Statements without a block of their own. In a function made only of them the
# converter rewrites expressions at most (`and`/`or`/`not`, `x if c else y`, chained
# comparisons), which need no analysis.
_PLAIN = frozenset({gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return,
                    gast.Pass, gast.Import, gast.ImportFrom, gast.Delete, gast.Assert,
                    gast.Raise, gast.Global, gast.Nonlocal})


def _straight_line(body) -> bool:
    """True when a function body is plain statements only, none binding a lambda to a
    name (a closure whose captured names would need cells, `liveness.closure_names`):
    then no `if`/loop/`try`/`with`/nested `def` anywhere in it, so no statement the
    converter turns into functions of their state, and the reaching-definitions and
    liveness annotations would never be read. A check of the top-level statements,
    not a walk (issue 14)."""
    for s in body:
        t = type(s)
        if t not in _PLAIN or (t is gast.Assign and isinstance(s.value, gast.Lambda)):
            return False
    return True


def expressions_only(node) -> bool:
    """Whether this converter would rewrite nothing in function `node` but expressions
    (`_straight_line` and no `global` declaration to move first): then the converter
    runs with the other one in one walk (`converter._OneWalk`)."""
    return (type(node) is gast.FunctionDef and _straight_line(node.body)
            and not declared_globals(node))


_OPS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
        gast.NotEq: "!=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in",
        gast.NotIn: "not in"}


class _CellReads(astbridge.Transformer):
    """Rewrites each read `_function` marked (`ag_cell_read`) to `ag__.cell(x, 'x',
    free)`, which raises Python's error for an unbound cell (an `x += v` gets the check
    as a statement before it)."""

    def visit_Name(self, node):
        free = node.__dict__.pop("ag_cell_read", None)
        if free is None:
            return node
        return locate(replace_expr("ag__.cell(x, name, free)", x=node, name=_const(node.id),
                                   free=_const(free)), node)

    def visit_AugAssign(self, node):
        free = node.__dict__.pop("ag_cell_read", None)
        if free is None:
            return self.generic_visit(node)
        t = node.target.id
        return locate(replace("ag__.cell(x, name, free)", x=t, name=_const(t),
                              free=_const(free)), node) + [self.generic_visit(node)]


class ControlFlowConverter(astbridge.Transformer):
    def __init__(self, filename):
        self.filename = filename
        self.fresh = Namer("counter", prefix=INTERNAL).fresh   # ag__fn_true_1, ...
        self.after: list[dict] = [{}]   # name -> first use line after the current stmt
        # per function being converted: its names that nested functions read or write
        # (closure cells), and name -> names a nested function writes with `nonlocal`
        self.captured: list[set] = [set()]
        # per function: its own local names (None outside a function: not known)
        self.locals: list = [None]
        self.writers: list[dict] = [{}]
        # per function: the names it declares `global` -- never state: the generated
        # functions declare them `global` too, so every read and write is Python's
        self.globals: list[set] = [set()]

    # ---- entry -------------------------------------------------------------------
    def visit_FunctionDef(self, node):
        # each analysis covers this function's own scope; a nested function is
        # analysed when this visitor reaches it (issue 14: once per function, not
        # once per enclosing level). Its free reads, kept from the enclosing function's
        # analyses, go stale as it is rewritten: dropped before and after.
        if len(self.locals) > 1 and not converted_method(node):
            return node   # a nested generator: plain Python, iterated where it is used
        activity.forget(node)
        try:
            return self._function(node)
        finally:
            activity.forget(node)

    def visit_ClassDef(self, node):
        # the class body is plain Python, run once where the class is defined (as JAX
        # runs it while tracing); its methods are converted as nested functions are,
        # so a staged test in a method becomes `cond`/`while` as anywhere else
        node.body = [self.visit(s) if converted_method(s) else s for s in node.body]
        return node

    def _function(self, node):
        straight = _straight_line(node.body)
        if straight:   # nothing will ask for state, liveness or definedness (issue 14)
            closures = {}
        else:
            reaching_definitions.resolve(node)
            closures = liveness.resolve(node).ag_closures
        self.globals.append(declared_globals(node))
        # (the locals are asked about only by statements a straight-line body has not)
        local = None if straight else (activity.modified(node.body) - self.globals[-1]) | {
            a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            + [node.args.vararg, node.args.kwarg] if a is not None}
        self.locals.append(local)
        self.captured.append(set().union(*closures.values()) & local if closures else set())
        writers = {}
        for n in () if straight else liveness.scope_statements(node.body):
            if isinstance(n, gast.FunctionDef):
                written = liveness.nonlocal_names(n)
                if written:
                    writers[n.name] = written
        self.writers.append(writers)
        params = {a.id for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                  + [node.args.vararg, node.args.kwarg] if a is not None}
        # a read that may find its cell still `Undefined` checks it (marked now, while
        # the reads are the user's own; rewritten once the body is converted)
        unbound = self.captured[-1] - params - liveness.declared(node.body)
        reads = reaching_definitions.cell_reads(node, unbound) if unbound else ()
        for n, free in reads:
            n.ag_cell_read = free
        try:
            # a captured name gets its cell here even when only generated functions
            # assign it (`nonlocal` in a loop body needs a binding in this scope)
            cells = [s for n in sorted(self.captured[-1] - params)
                     for s in replace("n = ag__.Undefined(name)", n=n, name=_const(n))]
            body = self.visit_block(node.body)
            doc = 1 if body and isinstance(body[0], gast.Expr) and isinstance(
                body[0].value, gast.Constant) and isinstance(body[0].value.value, str) else 0
            # a `global` nested in a block moves into a generated function with it:
            # declared first here too, it still covers the whole function (Python's rule)
            decl = [gast.Global(names=sorted(self.globals[-1]))] if self.globals[-1] else []
            node.body = body[:doc] + locate(decl + cells, node.body[0]) + body[doc:]
            if reads:
                node.body = [_CellReads().visit(s) for s in node.body]
        finally:
            self.locals.pop()
            self.captured.pop()
            self.writers.pop()
            self.globals.pop()
        return node

    def _modified(self, *blocks):
        """Names a block assigns, mutates (`lst.append`, `d[k] = v`, `o.a = v`), or writes
        through a call of a nested function that declares them `nonlocal`."""
        out = set()
        writers = self.writers[-1]
        for b in blocks:
            out |= activity.modified(b) | activity.mutated(b) | activity.stored_into(b)
            for n in gast.walk(gast.Module(body=list(b), type_ignores=[])):
                if isinstance(n, gast.FunctionDef):
                    out |= liveness.nonlocal_names(n)
                elif (isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
                      and n.func.id in writers):
                    out |= writers[n.func.id]
        # an object the function does not own (a module's list) is changed in place as
        # Python does, never state (a generated function could not rebind it)
        own = self.locals[-1]
        return (out - self.globals[-1]) if own is None else (out - self.globals[-1]) & own

    def visit_block(self, stmts):
        """Convert a block's statements in order. While statement `i` is converted,
        `self.after[-1]` answers "first line reading `name` after it" lazily (issue 14:
        re-walking the rest of the block per statement was quadratic)."""
        out = []
        block = _BlockReads(stmts)
        for i, s in enumerate(stmts):
            self.after.append(_ReadsAfter(block, i, self.after[-1]))
            r = self.visit(s)
            self.after.pop()
            out.extend(r if isinstance(r, list) else [r])
        return out

    def _init(self, node, names, dead=(), bound=()):
        """Initial values of state names: the name itself when defined on every
        path (or `bound` by the statement's test, evaluated first), `ag__.ld(locals(),
        'x')` when maybe, `ag__.Undefined('x')` when never (or when `dead`: its value
        is never read)."""
        definitely, maybe = getattr(node, "ag_defined_in", (frozenset(), frozenset()))
        elts = []
        for n in names:
            if n in dead:
                elts.append(replace_expr("ag__.Undefined(name)", name=_const(n)))
            elif n in definitely or n in bound:
                elts.append(gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None))
            elif n in maybe:
                elts.append(replace_expr("ag__.ld(locals(), name)", name=_const(n)))
            else:
                elts.append(replace_expr("ag__.Undefined(name)", name=_const(n)))
        return gast.Tuple(elts=elts, ctx=gast.Load())

    def _meta(self, node, names, blocks):
        """(name, line assigned in each block..., first use after) per state name,
        for error messages."""
        lines = [_first_lines(b) for b in blocks]
        uses = self.after[-1]
        rows = [gast.Tuple(elts=[_const(n)] + [_const(l.get(n)) for l in lines]
                           + [_const(uses.get(n))], ctx=gast.Load()) for n in names]
        return gast.Tuple(elts=rows, ctx=gast.Load())

    @staticmethod
    def _state(names):
        return sorted(n for n in names if not n.startswith(INTERNAL))

    def _params(self, fn, params, body):
        """Set a generated function's parameters. A name that a nested function reads
        or writes (a closure cell, R2) is not shadowed by a parameter: the function
        declares it `nonlocal` and writes the carried value into the cell first, so a
        closure called in the body sees the current value."""
        captured = self.captured[-1]
        cells = sorted((set(params) | activity.modified(body)) & captured)
        fn.args.args = [gast.Name(id=f"ag__nl_{p}" if p in captured else p, ctx=gast.Param(),
                                  annotation=None, type_comment=None) for p in params]
        if cells:
            pre = [gast.Nonlocal(names=cells)] + [
                s for p in params if p in captured
                for s in replace("p = q", p=p, q=f"ag__nl_{p}")]
            fn.body = pre + fn.body
        return fn

    def _def(self, name, params, body, results, origin):
        # a result the body may unbind (`del x`, `except E as x`) is read with `ag__.ld`:
        # unbound, it leaves as `Undefined`, which raises a located error where it is read
        gone = activity.unbound(body) & set(results)
        out = name_tuple(results)
        if gone:
            out.elts = [replace_expr("ag__.ld(locals(), name)", name=_const(e.id))
                        if e.id in gone else e for e in out.elts]
        fn = replace("def fn(params):\n    body\n    return results",
                     fn=name, body=body or [gast.Pass()], results=out)[0]
        self._params(fn, params, body)
        stored = sorted(_stores(body, self.globals[-1]))
        if stored:  # the user's `global` reaches into the generated function
            fn.body = [gast.Global(names=stored)] + fn.body
        fn.body = _unannotated(fn.body, liveness.declared(fn.body))
        return locate([fn], origin)[0]

    @staticmethod
    def _fill(node, flags, state):
        """Rows (flag, names) per exit flag of a loop: the state names nothing reads
        once that flag stopped the loop -- after a `return` no state name, after a
        `break` those dead after the loop. Per flag, not for the flags together: a trip
        that returns may leave the loop's `break` flag undefined (its guarded
        `ag__break = True` never ran), which only the `return` row allows (fuzz seed
        1500299)."""
        rows = []
        for flag in flags:
            after = set() if flag == "ag__do_return" else set(node.ag_live_out)
            rows.append((flag, [n for n in state if n not in after]))
        return rows if any(ns for _, ns in rows) else []

    @staticmethod
    def _rows(rows):
        return gast.Tuple(elts=[gast.Tuple(elts=[_const(f), str_tuple(ns)], ctx=gast.Load())
                                for f, ns in rows], ctx=gast.Load())

    # ---- if ----------------------------------------------------------------------
    def visit_If(self, node):
        # objects a branch changes in place are state too (`_modified`): each branch gets
        # its own copy of a list or dict, merged back after a staged test (`branch_ops`)
        modified = self._modified(node.body, node.orelse)
        state = self._state(modified & set(node.ag_live_out))
        # a branch that reads a name before assigning it needs its value too, even
        # when the name is dead after the `if` (R1): such names are parameters of
        # both branch functions, but only the live ones are results
        live_in = set()
        for block in (node.body, node.orelse):
            if block:
                live_in |= set(block[0].ag_live_in)
        params = self._state(modified & (set(node.ag_live_out) | live_in))
        # a state name dead where the `if` starts (both branches assign it before any
        # read) is not read for the initial state: it may be a local of an enclosing
        # branch function that Python never binds there (fuzz seed 600041: the early
        # return flag of an inner if/else, inside the `if not ag__do_return:` guard)
        # (a name the test binds with `:=` has its value by then)
        bound = activity.modified(node.test)
        dead = set(state) - set(node.ag_live_in) - bound
        meta = self._meta(node, state, [node.body, node.orelse])
        init = self._init(node, state, dead, bound)
        jumps = self._jumps(node, state)
        node.test = self.visit(node.test)
        body = self.visit_block(node.body)
        orelse = self.visit_block(node.orelse)
        t, f = self.fresh("true"), self.fresh("false")
        defs = [self._def(t, params, body, state, node), self._def(f, params, orelse, state, node)]
        if params != state:
            init = self._init(node, params, dead, bound)
        jumps = gast.Tuple(elts=[gast.Tuple(elts=[_const(f), str_tuple(ns)], ctx=gast.Load())
                                 for f, ns in jumps], ctx=gast.Load()) if jumps else None
        effect = _per_trip_effect(node.body + node.orelse, self.globals[-1], self.locals[-1])
        tail = "".join([", jumps=jumps" if jumps else "", ", effect=effect" if effect else "",
                        ")"])
        call = replace("targets = ag__.if_stmt(test, t, f, init, names, meta" + tail,
                       targets=name_tuple(state, gast.Store()), test=node.test, t=t, f=f,
                       init=init, names=str_tuple(state), meta=meta, jumps=jumps,
                       effect=_effect(effect))
        if not state:
            call = replace("ag__.if_stmt(test, t, f, init, (), ()" + tail, test=node.test,
                           t=t, f=f, init=init, jumps=jumps, effect=_effect(effect))
        return locate(defs + call, node)

    @staticmethod
    def _jumps(node, state):
        """Rows (flag, names) for the run-time definedness check of a staged `if`
        (R3): a state name undefined on a path that has jumped -- a branch that set the
        flag to a static True, or the else path of the canonicalizer's guard
        `if not flag:` (flag "") -- gets a typed zero placeholder when it is not live
        where the jump goes (liveness' `ag_jump_live`): every later read of it on that
        path sits behind a guard of the same flag. A name live there -- read after the
        loop a `break` leaves, say -- stays strict."""
        rows = []
        guard = getattr(node, "ag_guard", None)
        for flag, live in sorted(node.ag_jump_live.items()):
            names = [n for n in state if n not in live and not n.startswith("ag__")]
            if names and flag == guard:
                rows.append(("", names))
            if names and flag in state:
                rows.append((flag, names))
        return rows

    # ---- while -------------------------------------------------------------------
    def visit_While(self, node):
        modified = self._modified(node.body)
        live = set(node.ag_live_in) | set(node.ag_live_out)
        state = self._state(modified & live)
        meta = self._meta(node, state, [node.body])
        init = self._init(node, state)
        test = self.visit(node.test)
        body = self.visit_block(node.body)
        tn, bn = self.fresh("test"), self.fresh("body")
        test_def = replace("def fn():\n    return test", fn=tn, test=test)[0]
        self._params(test_def, state, [])
        locate([test_def], node)
        body_def = self._def(bn, state, body, state, node)
        effect = _per_trip_effect(node.body, self.globals[-1], self.locals[-1])
        inplace = _in_place(node.body, state)
        exits = [f for f in getattr(node, "ag_exit_flags", []) if f in state]
        fill = self._fill(node, getattr(node, "ag_exit_flags", []), state)
        tail = "".join([", effect=effect" if effect else "", ", fill=fill" if fill else "",
                        ", exits=exits" if exits else "", ", inplace=inplace" if inplace
                        else "", ")"])
        call = replace("targets = ag__.while_stmt(t, b, init, names, meta" + tail,
                       targets=name_tuple(state, gast.Store()), t=tn, b=bn, init=init,
                       names=str_tuple(state), meta=meta, effect=_effect(effect),
                       fill=self._rows(fill), exits=str_tuple(exits),
                       inplace=str_tuple(inplace))
        if not state:
            call = replace("ag__.while_stmt(t, b, (), (), ()" + tail, t=tn, b=bn,
                           effect=_effect(effect), inplace=str_tuple(inplace))
        return locate([test_def, body_def] + call, node)

    # ---- for ---------------------------------------------------------------------
    def visit_For(self, node):
        target_names = activity.modified(node.target) - self.globals[-1]
        extra = list(getattr(node, "ag_extra_test", []))
        modified = self._modified(node.body) - target_names
        body_live = set(node.body[0].ag_live_in) if node.body else set()
        state = self._state((modified & (body_live | set(node.ag_live_out))) | set(extra)
                            | (target_names & set(node.ag_live_out)))
        meta = self._meta(node, state, [node.body])
        init = self._init(node, state)
        it = self.visit(node.iter)
        if (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
                and it.func.id in ("range", "enumerate", "zip") and not it.keywords):
            op = "ag__.range_" if it.func.id == "range" else "ag__.iter_"
            it = locate(gast.Call(func=replace_expr(op), args=[it.func] + it.args,
                                  keywords=[]), it)
        effect = _per_trip_effect([node.target] + node.body, self.globals[-1],
                                  self.locals[-1])
        if effect:
            it = locate(replace_expr("ag__.unrolled_(it, effect)", it=it,
                                     effect=_effect(effect)), it)
        reads = [] if _certain(effect) else self._scan_reads(node, modified | target_names)
        body = self.visit_block(node.body)
        bn = self.fresh("body")
        itr = "ag__itr"
        assign = replace("target = itr", target=node.target, itr=itr)
        body_def = self._def(bn, [itr] + [r[1] for r in reads] + state, assign + body, state, node)
        extra_fn = _const(None)
        defs = [body_def]
        if extra:
            en = self.fresh("extra_test")
            cond = gast.Call(func=replace_expr("ag__.any_flag"), args=[name_tuple(extra)],
                             keywords=[])
            test_def = replace("def fn():\n    return ag__.not_(cond)", fn=en, cond=cond)[0]
            self._params(test_def, state, [])
            defs.append(locate([test_def], node)[0])
            extra_fn = gast.Name(id=en, ctx=gast.Load(), annotation=None, type_comment=None)
        read_vals = name_tuple([r[0] for r in reads])
        fill = self._fill(node, extra, state)
        inplace = _in_place(node.body, state)
        tail = "".join([", fill=fill" if fill else "", ", exits=exits" if extra else "",
                        ", inplace=inplace" if inplace else "", ")"])
        call = replace("targets = ag__.for_stmt(it, b, init, names, extra, meta, reads" + tail,
                       targets=name_tuple(state, gast.Store()), it=it, b=bn, init=init,
                       names=str_tuple(state), extra=extra_fn, meta=meta, reads=read_vals,
                       fill=self._rows(fill), exits=str_tuple(extra),
                       inplace=str_tuple(inplace))
        if not state:
            call = replace("ag__.for_stmt(it, b, (), (), extra, (), reads)", it=it, b=bn,
                           extra=extra_fn, reads=read_vals)
        return locate(defs + call, node)

    def _scan_reads(self, node, changed):
        """`xs[i]` reads in a `for i in range(...)` body, of arrays the loop does not
        change, become scan inputs: each read is rewritten to
        `ag__.scan_read(<slice param>, xs, i)` (the slice when the loop is scanned,
        `xs[i]` otherwise). Returns [(array name, slice parameter name)]."""
        if not (isinstance(node.target, gast.Name) and isinstance(node.iter, gast.Call)
                and isinstance(node.iter.func, gast.Name) and node.iter.func.id == "range"):
            return []
        i = node.target.id
        if i in activity.modified(node.body):
            return []
        params: dict = {}

        class Rewrite(gast.NodeTransformer):
            def visit_Subscript(inner, sub):
                inner.generic_visit(sub)
                if (isinstance(sub.ctx, gast.Load) and isinstance(sub.value, gast.Name)
                        and isinstance(sub.slice, gast.Name) and sub.slice.id == i
                        and sub.value.id not in changed):
                    p = params.setdefault(sub.value.id, f"ag__sl_{sub.value.id}")
                    return locate(replace_expr("ag__.scan_read(sl, xs, idx)", sl=p,
                                               xs=sub.value.id, idx=i), sub)
                return sub

            def visit_FunctionDef(inner, fn):  # nested scopes keep their own reads
                return fn

            visit_Lambda = visit_FunctionDef
        node.body = [Rewrite().visit(s) for s in node.body]
        return list(params.items())

    # ---- expressions -------------------------------------------------------------
    def _thunk(self, node, what):
        """An operand Python evaluates only sometimes becomes a thunk (`lambda: b`),
        where a `:=` would bind the thunk's own local: a located error instead."""
        if binds(node):
            raise UnsupportedSyntaxError(
                f"`:=` in {what} is not supported in a staged function: it is evaluated "
                f"only when Python would, inside a function of its own, so the name "
                f"would not be bound here", "assign the name in a statement before",
                loc=SourceInfo(self.filename, node.lineno, node.col_offset,
                               node.end_col_offset))
        return node

    def visit_Return(self, node):
        """`return x` (or `return x, y`) where the analysis says `x` may be unbound: a
        loop or branch may have left it `Undefined` (`del x` in a trip), which must
        fail here, as Python's NameError would, not in the caller."""
        self.generic_visit(node)
        definitely = getattr(node, "ag_defined_in", (None,))[0]
        own = self.locals[-1]   # (a global or a closure's free name is Python's to check)
        v = node.value
        names = v.elts if isinstance(v, gast.Tuple) else [v]
        if definitely is not None and own is not None and any(
                isinstance(n, gast.Name) and n.id in own and n.id not in definitely
                for n in names):
            node.value = replace_expr("ag__.defined(v)", v=v)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        body = self._thunk(node.body, "a branch of `x if c else y`")
        orelse = self._thunk(node.orelse, "a branch of `x if c else y`")
        return locate(replace_expr("ag__.if_exp(test, lambda: body, lambda: orelse)",
                                   test=node.test, body=body, orelse=orelse), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "ag__.and_" if isinstance(node.op, gast.And) else "ag__.or_"
        values = node.values
        result = self._thunk(values[-1], "the right operand of `and` / `or`")
        for k in range(len(values) - 2, -1, -1):
            v = values[k]
            if k == 0 and binds(v):
                # the first operand always runs: evaluated here, where `:=` binds
                result = replace_expr(f"{fn}(ag__.now(a), lambda: b)", a=v, b=result)
                continue
            v = self._thunk(v, "the right operand of `and` / `or`")
            result = replace_expr(f"{fn}(lambda: a, lambda: b)", a=v, b=result)
        return locate(result, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return locate(replace_expr("ag__.not_(x)", x=node.operand), node)
        return node

    def visit_Compare(self, node):
        # `a < b < c` -> `ag__.compare_chain(a, b, ('<', '<'), (lambda: c,))`: each
        # operand evaluated once, a later one only when the chain is not yet false
        self.generic_visit(node)
        if len(node.ops) == 1:
            op, right = node.ops[0], node.comparators[0]
            if type(op) in (gast.Is, gast.IsNot) and not any(
                    isinstance(e, gast.Constant) for e in (node.left, right)):
                # `a is b` -> `ag__.is_(a, b)`: a staged choice may make it path-dependent
                fn = "ag__.is_(a, b)" if type(op) is gast.Is else "ag__.is_not(a, b)"
                return locate(replace_expr(fn, a=node.left, b=right), node)
            return node
        ops = gast.Tuple(elts=[gast.Constant(value=_OPS[type(op)], kind=None) for op in node.ops],
                         ctx=gast.Load())
        rest = [replace_expr("lambda: c", c=self._thunk(c, "a chained comparison's third or "
                                                           "later operand"))
                for c in node.comparators[1:]]
        return locate(replace_expr("ag__.compare_chain(a, b, ops, rest)", a=node.left,
                                   b=node.comparators[0], ops=ops,
                                   rest=gast.Tuple(elts=rest, ctx=gast.Load())), node)

    def visit_Lambda(self, node):
        activity.forget(node)
        node.body = self.visit(node.body)
        activity.forget(node)
        return node
