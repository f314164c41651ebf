"""Liveness: which names may be read after a statement before being redefined.

`resolve(node, ctx)` annotates each statement of the function's own scope with
`ag_live_out` (names live after it) and `ag_live_in`, and the function with
`ag_closures` (`closure_names` of its body). A nested function's body is not entered:
it is resolved on its own when the converter reaches it, so each function is analysed
once however deep it is nested. Loops are solved to a fixpoint. The names a function
declares `nonlocal` are live where it returns (the enclosing scope reads the cell). A nested function reads
its free names wherever it may be called: they are live wherever the function's
name is live (and names it writes with `nonlocal` too, since it reads the cell).

Jumps are flags by now (`canonicalize`). The else path of a guard `if not flag:` is
the path that has jumped, so what is live on it is what is live where the jump goes,
not what the guarded rest reads: after a `return`, only the return value; after a
`break`, what is live after the loop; after a `continue`, what is live at the loop
head. Each `if` records that set in `ag_jump_live` (flag -> names) for its guard's
flag and for the flags its branches set. A `raise` does not fall through: live before
it is what it reads and what is live where it goes (the enclosing `try`'s handlers
and `finally`, after a `with` whose manager may swallow it, or the function's exit),
so a name bound on every path that does not raise is not live before the statement
binding it."""
from __future__ import annotations

import gast

from . import activity


_closures: list[dict] = [{}]   # per function being resolved: name -> names its closure reads
_exit: list[frozenset] = [frozenset()]   # per function: names live where it returns
_captured: list[set] = [set()]  # per function being resolved: every name a closure reads
_RETURN_LIVE = frozenset({"ag__retval", "ag__do_return"})
_jump_live: dict = {}          # loop flag -> names live where its jump goes
# per function, and per `try` body in it: names live where a `raise` goes (a handler,
# `finally`, or out of the function) -- what follows a `raise` never runs
_raise_live: list[frozenset] = [frozenset()]


_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


def scope_statements(fn_body):
    """Every statement of a function body's own scope, in order, in `if`/loop/`try`/
    `with` blocks too, but not inside nested functions or classes (bound there, and
    covered by their free names): one walk per scope, not one per enclosing level
    (issue 14)."""
    stack = list(reversed(fn_body))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            for field in _BLOCKS:
                stack.extend(reversed(getattr(n, field, None) or ()))


def declared(fn_body, kinds=(gast.Nonlocal, gast.Global)) -> set:
    """Names a function body's own scope declares `nonlocal` / `global` (`kinds`)."""
    return {n for s in scope_statements(fn_body) if isinstance(s, kinds) for n in s.names}


# the key of the free names of lambdas no name binds: never a live name, so it adds no
# liveness of its own, but its names are captured (they get cells) all the same
ANONYMOUS = "<lambda>"


def closure_names(fn_body) -> dict:
    """name -> free names (reads and `nonlocal` writes) of each nested function, class
    or lambda bound to that name in a function body's own scope. A lambda written
    anywhere else in a statement (`fs.append(lambda u: u + i)`, `[lambda: i]`,
    `return lambda: i`) may be called after its free names change -- Python reads them
    from the cells when it runs (late binding) -- so its names count too: under each
    name the statement reads or writes (a container it is stored in), and under
    `ANONYMOUS`."""
    out: dict = {}
    for n in scope_statements(fn_body):
        if isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            # a class's methods read the enclosing names wherever they are called
            out.setdefault(n.name, set()).update(free_names(n))
        elif (isinstance(n, gast.Assign) and isinstance(n.value, gast.Lambda)
              and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name)):
            out.setdefault(n.targets[0].id, set()).update(free_names(n.value))
        else:
            free = set().union(*(free_names(lam) for lam in _own_lambdas(n)))
            if free:
                read, mod = activity.names(n)
                for key in (set(read) | set(mod)) - free | {ANONYMOUS}:
                    out.setdefault(key, set()).update(free)
    return out


def _own_lambdas(stmt):
    """The outermost lambdas in a statement's own expressions (not in its blocks)."""
    stack = [v for f, v in gast.iter_fields(stmt) if f not in _BLOCKS]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, gast.Lambda):
            yield v
        elif isinstance(v, gast.AST):
            stack.extend(v for _, v in gast.iter_fields(v))


def free_names(fn) -> set:
    """Names a nested function or lambda reads from, or writes to, enclosing scopes."""
    read, _ = activity.names(fn)
    return set(read) | nonlocal_names(fn)


def nonlocal_names(fn) -> set:
    """Names a function (or any function nested in it) declares `nonlocal`; a walk of
    its statements only (a declaration is never inside an expression)."""
    out = set()
    stack = list(fn.body) if isinstance(fn.body, list) else []   # a lambda has none
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Nonlocal):
            out.update(n.names)
        for field in _BLOCKS:
            stack.extend(getattr(n, field, None) or ())
    return out


def _with_closures(live):
    live = set(live)
    closures = _closures[-1]
    todo = [n for n in live if n in closures]
    while todo:
        for v in closures[todo.pop()]:
            if v not in live:
                live.add(v)
                if v in closures:
                    todo.append(v)
    return live


_COMPOUND = (gast.If, gast.While, gast.For, gast.FunctionDef, gast.Try, gast.With)


def _block(stmts, live_out):
    """What is live before `stmts`, given what is live after them. Only a block's
    first statement and compound statements are annotated -- the converter asks
    nothing else -- so a run of plain statements updates one set in place instead of
    copying it twice per statement (issue 14: quadratic when many names stay live
    across a long function)."""
    live = _with_closures(live_out)
    closures = _closures[-1]
    captured = _captured[-1]
    for i in range(len(stmts) - 1, -1, -1):
        s = stmts[i]
        if i == 0 or isinstance(s, _COMPOUND):
            live = _stmt(s, live)
            continue
        read, mod = activity.names(s)
        if type(s) is gast.Raise:
            live = set(_raise_live[-1]) | read
            continue
        mod = _killed(s, mod)
        live -= mod
        live |= read
        if type(s) is gast.Delete:
            live |= _deleted(s)
        # a nested function that stays live reads its free names wherever it runs
        if closures and (not captured.isdisjoint(mod) or not read.isdisjoint(closures)):
            live = _with_closures(live)
    return live


def _stmt(s, live_out):
    live_out = _with_closures(live_out)
    s.ag_live_out = frozenset(live_out)
    if isinstance(s, gast.If):
        # per jump flag the `if` tests (a guard) or sets: what is live where it goes
        flags = {f for f in activity.modified(s.body + s.orelse) if _is_flag(f)}
        guard = getattr(s, "ag_guard", None)
        s.ag_jump_live = {f: frozenset(_target(f, live_out)) for f in flags | {guard} - {None}}
        orelse = _block(s.orelse, s.ag_jump_live[guard] if guard else live_out)
        # a name the test binds (`if (t := v) > 0:`) is bound before either branch
        live = activity.read(s.test) | ((_block(s.body, live_out) | orelse)
                                        - activity.modified(s.test))
    elif isinstance(s, gast.While):
        test = activity.read(s.test)
        after = _block(s.orelse, live_out) | set(live_out)
        live = test | after
        while True:
            _jump_targets(s, live, after | test)
            new = test | after | _block(s.body, live)
            if new <= live:
                break
            live |= new
    elif isinstance(s, gast.For):
        it = activity.read(s.iter)
        target = activity.modified(s.target)
        # flags of an early exit (canonicalize's extra test) are read before each trip
        extra = set(getattr(s, "ag_extra_test", ()))
        after = _block(s.orelse, live_out) | set(live_out)
        live = set(after) | extra
        while True:
            _jump_targets(s, live, after | extra)
            body_in = _block(s.body, live)
            new = after | (body_in - target)
            if new <= live:
                break
            live |= new
        live = live | it
    elif isinstance(s, gast.FunctionDef):
        read, _ = activity.names(s)
        live = (set(live_out) - {s.name}) | read
    elif isinstance(s, gast.Try):
        # `finally` runs after every path; a handler (or, unhandled, `finally`) may
        # start after any statement of the body, so what they read is live all
        # through the body; `else` follows the body
        final = _block(s.finalbody, live_out) if s.finalbody else set(live_out)
        raised = set(final)
        for h in s.handlers:
            name = {h.name.id} if isinstance(h.name, gast.Name) else set()
            raised |= _block(h.body, final) - name
            if h.type is not None:
                raised |= activity.read(h.type)
        after_body = _block(s.orelse, final) if s.orelse else final
        _raise_live.append(frozenset(raised))
        try:
            live = _block(s.body, set(after_body) | raised) | raised
        finally:
            _raise_live.pop()
    elif isinstance(s, gast.With):
        # `as` binds its targets before the body: not live before the `with`. The
        # manager's `__exit__` may swallow an exception raised anywhere in the body,
        # execution going on after the `with`: as a `try` whose handler does nothing,
        # what is live after it is live all through the body
        raised = frozenset(live_out) | _raise_live[-1]
        _raise_live.append(raised)
        try:
            body = _block(s.body, live_out) | raised
        finally:
            _raise_live.pop()
        live = (body - activity.modified(s.items)) | activity.read(s.items)
    elif isinstance(s, gast.Raise):
        live = set(_raise_live[-1]) | activity.read(s)
    else:
        read, mod = activity.names(s)
        live = (set(live_out) - _killed(s, mod)) | read
        if isinstance(s, gast.Delete):
            live |= _deleted(s)
    live = _with_closures(live)
    s.ag_live_in = frozenset(live)
    return live


def _killed(s, mod):
    """The names a simple statement binds on every path: `x += y` reads x first, and a
    `match` (its case bodies moved out by `canonicalize`) binds a pattern's captures
    only when that case matches -- otherwise the name keeps its value."""
    return set() if isinstance(s, (gast.AugAssign, gast.Match)) else mod


def _deleted(s):
    """The names `del` unbinds: it needs them bound, as a read does (a branch function
    that deletes a name gets it as a parameter)."""
    return {t.id for t in s.targets if isinstance(t, gast.Name)}


def _is_flag(name):
    return name == "ag__do_return" or name.startswith(("ag__break_", "ag__cont_"))


def _target(flag, live_out):
    """Names live where the jump of `flag` goes (`live_out` if unknown)."""
    return _RETURN_LIVE | _exit[-1] if flag == "ag__do_return" else _jump_live.get(flag, live_out)


def _jump_targets(loop, head, after):
    """What is live where the loop's `continue` (the loop head) and `break` (after the
    loop, past its flag tests) flags jump to."""
    for flag in getattr(loop, "ag_flags", ()):
        _jump_live[flag] = set(head if flag.startswith("ag__cont") else after)


def _resolve_fn(fn):
    body = fn.body if isinstance(fn.body, list) else []
    fn.ag_closures = closure_names(body)
    _closures.append(fn.ag_closures)
    _captured.append(set().union(*fn.ag_closures.values()))
    # a `nonlocal` name is read after the function returns: by the scope owning the cell
    _exit.append(frozenset(declared(body, gast.Nonlocal)))
    _raise_live.append(_exit[-1])
    try:
        _block(body, set(_exit[-1]))
    finally:
        _closures.pop()
        _captured.pop()
        _exit.pop()
        _raise_live.pop()


def resolve(node, ctx=None):
    if isinstance(node, gast.FunctionDef):
        _resolve_fn(node)
    elif not isinstance(node, gast.Lambda):
        _block(node if isinstance(node, list) else [node], set())
    return node
