"""Python state a staged loop body reads or changes, which a body staged once (a
`scan`, a `while`) would read or change once, not on every trip.

- Objects it reaches (`acc.add(v)` where `add` sets `self.total`): the run-time
  counterpart of the converter's per-trip effect check (R17), which sees `o.a = v` in
  the loop's own text but not inside a method. Before a body is staged, `snapshot`
  records what its function reaches -- closure cells and the module globals it names
  (through nested, wrapping and called user functions), the loop's static state --
  with their attributes, list items and dict entries, a few levels deep, and the
  bindings a helper may rebind (`nonlocal`, `global`); after it, `changed` names the
  first one the body changed and `restore` puts every one back.
- State no snapshot can see (a `random.Random`, NumPy's global generator, an iterator,
  a library's counter) moves through calls of code that is not converted: while a loop
  body is staged, every such call of converted code goes through its `CallTape`
  (`operators.call`). A call of a method of a stateful object, or of a function given
  an iterator, is recorded: the trips differ. Any other function that is not converted
  (not one of Python's builtins, a class, or astjax's own) and returned a value is
  called again after the trial; a different value (`time.time`, `os.urandom`) means
  the trips differ too. The loop's unrolled trips replay what the trial calls
  returned (the state has moved past them), so Python's sequence of values is kept.

Such a loop then runs as Python does: unrolled while staging when its trip count is
static (JAX's traced loop), otherwise a located error (`loop_ops`). The branches of a
staged `if` are watched the same way: both are staged, so a change or a value drawn
there is a located error (`branch_ops`), as `o.a = v` in a branch is.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import types

import numpy as np

from ..core import Tracer
from .sourceless import SKIP_MODULES

_DEPTH = 3        # closure value -> attribute -> attribute
_BUDGET = 256     # objects recorded per body, at most

_OPAQUE = (str, bytes, int, float, complex, bool, type(None), np.ndarray, np.generic, Tracer,
           types.ModuleType, type, types.BuiltinFunctionType, types.MethodType, range, slice)


def _watched(o) -> bool:
    """A user object whose attributes a body could change (not a value, function,
    class, module, array, or one of astjax's own objects, whose caches change as
    staging runs)."""
    if isinstance(o, _OPAQUE) or hasattr(o, "_buf") or not hasattr(o, "__dict__"):
        return False
    mod = getattr(type(o), "__module__", "") or ""
    return not (mod == "astjax" or mod.startswith(("astjax.", "builtins", "numpy")))


_SKIP_MODULES = SKIP_MODULES + ("builtins",)   # whose functions' globals are not watched
_names_of: dict = {}   # code object -> the names its code (and nested code) loads


def _code_names(code):
    """Every name `code` and the code nested in it (lambdas, comprehensions) load:
    candidates for globals (attribute names are in `co_names` too; a lookup in the
    function's globals filters them)."""
    names = _names_of.get(code)
    if names is None:
        acc, stack = set(), [code]
        while stack:
            c = stack.pop()
            acc.update(c.co_names)
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        if len(_names_of) > 4096:
            _names_of.clear()
        names = _names_of[code] = tuple(acc)
    return names


def _user_function(f) -> bool:
    mod = getattr(f, "__module__", None) or ""
    return mod.split(".")[0] not in _SKIP_MODULES


_EMPTY = object()


def _functions_roots(fn, depth=3):
    """The objects a function reads through its closure cells and the module globals it
    names (and through those of the user functions found there: the loop operators
    wrap the user's body, which calls helpers), and the records of those bindings:
    a helper's `nonlocal` or `global` store rebinds one. The cells of the loop body
    `fn` and of the other generated functions are not recorded: a trip writes its
    carried values there (R2)."""
    out, cells, bindings, stack, seen = [], [], [], [(fn, 0)], set()
    own = {id(c) for c in getattr(fn, "__closure__", None) or ()}
    while stack:
        f, d = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        values = []
        code, g = getattr(f, "__code__", None), getattr(f, "__globals__", None)
        generated = (getattr(f, "__name__", "").startswith("ag__")
                     or not _user_function(f))   # a converted body, or a loop operator's
        for name, cell in zip(getattr(code, "co_freevars", ()),
                              getattr(f, "__closure__", None) or ()):
            try:
                v = cell.cell_contents
            except ValueError:          # an empty cell
                v = _EMPTY
            if generated:
                own.add(id(cell))
            else:
                cells.append((name, cell, v))
            if v is not _EMPTY:
                values.append(v)
        if code is not None and g is not None:
            names = [n for n in _code_names(code) if n in g]
            if names and f is not fn:
                bindings.append(("global", g, {n: g[n] for n in names}))
            values += [g[n] for n in names]
        for v in values:
            if isinstance(v, types.FunctionType):
                if d < depth and _user_function(v):
                    stack.append((v, d + 1))
            elif not isinstance(v, _OPAQUE):
                out.append(v)
    done = set(own)
    for name, cell, v in cells:
        if id(cell) not in done:
            done.add(id(cell))
            bindings.append(("cell", cell, (name, v)))
    return out, bindings


def snapshot(fns, state=()):
    """Records (kind, object, copy) of what the functions `fns` reach (see the
    module), and the objects `state`."""
    records, seen, level = [], set(), list(state)
    for fn in fns:
        objects, bindings = _functions_roots(fn)
        level[:0] = objects
        records += bindings
    for _ in range(_DEPTH):
        nxt = []
        for o in level:
            if id(o) in seen or len(records) >= _BUDGET:
                continue
            seen.add(id(o))
            if type(o) is list:
                records.append(("list", o, list(o)))
                nxt.extend(o[:_BUDGET])
            elif type(o) is dict:
                records.append(("dict", o, dict(o)))
                nxt.extend(list(o.values())[:_BUDGET])
            elif type(o) is tuple:
                nxt.extend(o[:_BUDGET])
            elif _watched(o):
                d = vars(o)
                records.append(("object", o, dict(d)))
                nxt.extend(d.values())
        level = nxt
    return records


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return _EMPTY


def _differs(kind, o, copy):
    if kind == "cell":
        return _cell_value(o) is not copy[1]
    if kind == "global":
        return any(o.get(k, _EMPTY) is not v for k, v in copy.items())
    now = o if kind == "list" else (o if kind == "dict" else vars(o))
    if len(now) != len(copy):
        return True
    if kind == "list":
        return any(a is not b for a, b in zip(now, copy))
    return any(k not in copy or now[k] is not copy[k] for k in now)


def changed(records):
    """A description of the first recorded object the body changed, or None."""
    for kind, o, copy in records:
        if _differs(kind, o, copy):
            if kind == "cell":
                return f"the variable `{copy[0]}` of a closure (`nonlocal {copy[0]}`)"
            if kind == "global":
                k = next(k for k, v in copy.items() if o.get(k, _EMPTY) is not v)
                return f"the global `{k}`"
            if kind == "object":
                now = vars(o)
                keys = [k for k in now if k not in copy or now[k] is not copy[k]]
                keys += [k for k in copy if k not in now]
                return f"attribute `{keys[0]}` of an object of class `{type(o).__name__}`"
            return f"the items of a {kind}"
    return None


def restore(records):
    """Put every recorded object back as it was (undo a staged trial's changes)."""
    for kind, o, copy in records:
        if not _differs(kind, o, copy):
            continue
        if kind == "cell":
            if copy[1] is _EMPTY:
                del o.cell_contents
            else:
                o.cell_contents = copy[1]
        elif kind == "global":
            for k, v in copy.items():
                if v is _EMPTY:
                    o.pop(k, None)
                else:
                    o[k] = v
        elif kind == "list":
            o[:] = copy
        else:
            d = o if kind == "dict" else vars(o)
            d.clear()
            d.update(copy)


# ------------------------------------------------- state kept where no snapshot sees it

# objects whose methods read or return values, not hidden state (lists, dicts and
# sets: `snapshot` watches them; arrays, dtypes, ufuncs: pure)
_VALUE_SELVES = (str, bytes, int, float, complex, bool, tuple, frozenset, list, dict, set,
                 range, slice, type, types.ModuleType, np.ndarray, np.generic, np.dtype,
                 np.ufunc, Tracer)


def _holds_tracer(r) -> bool:
    if isinstance(r, Tracer):
        return True
    if isinstance(r, (tuple, list)):
        return any(isinstance(x, Tracer) for x in r)
    if isinstance(r, dict):
        return any(isinstance(x, Tracer) for x in r.values())
    return False


def _fresh_generator(a) -> bool:
    """A generator expression not started yet: the body's own `sum(v for v in xs)`."""
    return (isinstance(a, types.GeneratorType) and a.gi_code.co_name == "<genexpr>"
            and inspect.getgeneratorstate(a) == inspect.GEN_CREATED)


_iterator_types: dict = {Tracer: False}   # type -> its instances are iterators


def _stateful(f, args, kwargs, local=frozenset()):
    """A description of the hidden state a call of code that is not converted reads
    or moves (a method of a stateful object, or an iterator it is given), or None.
    Objects whose ids are in `local` were made by the trip itself: their state starts
    afresh on every trip."""
    while type(f) is functools.partial:
        args, kwargs, f = (*f.args, *args), {**f.keywords, **kwargs}, f.func
    if type(f) is not types.FunctionType:       # astjax's functions are plain ones
        s = getattr(f, "__self__", None)
        if (s is not None and not isinstance(s, _VALUE_SELVES) and not hasattr(s, "_buf")
                and id(s) not in local):
            mod = getattr(type(s), "__module__", "") or ""
            if not (mod == "astjax" or mod.startswith("astjax.")):
                return f"`{_name(f)}` of a `{type(s).__name__}` object"
    for a in (*args, *kwargs.values()) if kwargs else args:
        if is_iterator(a) and id(a) not in local:
            return f"`{_name(f)}` on a `{type(a).__name__}` iterator"
    return None


def is_iterator(a) -> bool:
    """`a` is an iterator whose items move as they are read (not a generator expression
    the body made and has not started)."""
    it = _iterator_types.get(type(a))
    if it is None:
        if len(_iterator_types) > 4096:     # classes made at run time: keep it bounded
            _iterator_types.clear()
            _iterator_types[Tracer] = False
        it = _iterator_types[type(a)] = hasattr(type(a), "__next__")
    return it and not _fresh_generator(a)


def pulled(iterable):
    """The items of `iterable` for a loop run by Python while a loop body is staged:
    an iterator's items are read through the tape (they move on every trip, and the
    unrolled trips replay what the staged trial read); anything else as it is."""
    tape = active_tape()
    if tape is None or not is_iterator(iterable) or id(iterable) in tape.local:
        return iterable
    return _pull(tape, iterable.__next__)


def _pull(tape, nxt):
    while True:
        try:
            v = tape.call(nxt, (), {}, lambda f, a, k: f())
        except StopIteration:
            return
        yield v


def _name(f) -> str:
    return getattr(f, "__name__", None) or type(f).__name__


_VALUES = (int, float, complex, bool, str, bytes, np.ndarray, np.generic)


def _value(r) -> bool:
    """A plain value (a number, string or array, or a tuple of them) a body reads."""
    return isinstance(r, _VALUES) or (type(r) is tuple and all(isinstance(x, _VALUES)
                                                               for x in r))


def _maybe_hidden(f) -> bool:
    """A function that is neither a method (those: `_stateful`), a class, one of Python's
    builtins nor astjax's own: what it returns may come from state it keeps
    (`time.time`, `os.urandom`, a library's counter) -- only calling it again tells."""
    if type(f) is not types.FunctionType:
        if isinstance(f, (type, np.ufunc)):
            return False
        s = getattr(f, "__self__", None)
        if s is not None and not isinstance(s, types.ModuleType):
            return False
    mod = getattr(f, "__module__", None) or ""
    return not (mod == "builtins" or mod == "astjax" or mod.startswith("astjax."))


def _equal(a, b) -> bool:
    """`a` and `b` (two results of one call, see `_value`) are the same value."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (np.ndarray, np.generic)):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b,
                                                                                  equal_nan=True))
    return a == b or (a != a and b != b)      # NaN == NaN here


def _same(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or not isinstance(a, (int, float, complex, str, bytes, tuple,
                                                    range, slice, frozenset, np.generic,
                                                    type(None))):
        return False
    try:
        return bool(a == b)
    except Exception:   # noqa: BLE001  (a tuple holding arrays)
        return False


class _Entry:
    """One recorded call: `what` describes it; `stateful`: a method of a stateful object
    or an iterator (else a function `_maybe_hidden` that returned a value)."""
    __slots__ = ("key", "f", "args", "kwargs", "run", "result", "what", "stateful")

    def __init__(self, key, f, args, kwargs, run, result, what, stateful):
        self.key, self.f, self.args, self.kwargs, self.run = key, f, args, kwargs, run
        self.result, self.what, self.stateful = result, what, stateful

    def again(self) -> bool:
        """A function's value that calling it again checks (its arguments are values,
        not staged ones of the finished trial)."""
        return not self.stateful and not any(
            isinstance(a, Tracer) for a in (*self.args, *self.kwargs.values()))

    def matches(self, key, args, kwargs):
        return (self.key == key and len(args) == len(self.args)
                and all(_same(a, b) for a, b in zip(args, self.args))
                and self.kwargs.keys() == kwargs.keys()
                and all(_same(kwargs[k], self.kwargs[k]) for k in kwargs))


def _key(f):
    s = getattr(f, "__self__", None)
    return (id(f), None) if s is None else (id(s), getattr(f, "__name__", None))


class CallTape:
    """The calls of stateful code (see `_stateful`) the first trip of a loop makes, in
    order, with their results, and the values functions that may keep hidden state
    returned (`_maybe_hidden`). Every staging attempt of the trip, and the first trip
    of the loop unrolled afterwards, start at its beginning (`rewind`): a call that
    matches the next entry gets the recorded result, so the state moves once, as in
    Python; past the end, calls run (through the enclosing loop's tape) and are
    appended."""

    def __init__(self, parent=None):
        self.parent, self.entries, self.pos = parent, [], 0
        self.local, self._made = set(), []   # ids of objects calls made in the trip

    def rewind(self):
        self.pos = 0

    def hidden_state(self):
        """What the first recorded stateful call reads (a body that made one stages
        differently on every trip), or None."""
        return next((e.what for e in self.entries if e.stateful), None)

    def forget_values(self):
        """Drop the recorded values of functions (not of stateful methods): `restore` has
        put back the Python state they may have read, so they must run again."""
        self.entries = [e for e in self.entries if e.stateful]
        self.pos = min(self.pos, len(self.entries))

    def hidden_value(self):
        """What the first recorded stateful call that returned a value (not None) reads:
        a staged `if` stages both of its paths, so such a draw would happen on both."""
        return next((e.what for e in self.entries if e.stateful and e.result is not None),
                    None)

    def second_trip(self):
        """Call the functions whose values the trip read (`_maybe_hidden`) again, as a
        second trip would: the first one that returns another value (`time.time`, a
        library's counter), or None. When one does, the second calls are appended to
        this tape, so the loop unrolled afterwards replays both trips."""
        first = [e for e in self.entries if e.again()]
        if not first:
            return None
        second = CallTape(self.parent)
        for e in first:
            second._call(e.what, False, e.key, e.f, e.args, e.kwargs, e.run)
        for x, y in zip(first, second.entries):
            if x.key != y.key or not _equal(x.result, y.result):
                break
        else:
            if len(first) == len(second.entries):
                return None
            x = first[-1]
        self.entries.extend(second.entries)
        return x.what

    def call(self, f, args, kwargs, run):
        """`run(f, args, kwargs)`, or its recorded result (see the class)."""
        mod = getattr(f, "__module__", None) or ""
        if mod.startswith("astjax.") or mod == "astjax":     # jnp, lax, Tracer methods
            return run(f, args, kwargs)
        what = _stateful(f, args, kwargs, self.local)
        if what is not None:
            r = self._call(what, True, _key(f), f, args, kwargs, run)
        elif _maybe_hidden(f):
            r = self._call(f"`{_name(f)}`, which returned another value when called again",
                           False, _key(f), f, args, kwargs, run)
        else:
            r = run(f, args, kwargs)
        # an object a call that reads no outside state returns is the trip's own (a
        # stateful call's result, `islice(it, 2)`, is a view of that state: not)
        if what is None and not (r is None or _value(r) or isinstance(r, Tracer)):
            tape = self
            while tape is not None:          # made in this trip, and in the enclosing ones
                tape.local.add(id(r))
                tape._made.append(r)         # kept alive: its id is not reused
                tape = tape.parent
        return r

    def _call(self, what, stateful, key, f, args, kwargs, run):
        if self.pos < len(self.entries):
            e = self.entries[self.pos]
            if e.matches(key, args, kwargs):
                self.pos += 1
                return e.result.copy() if type(e.result) is np.ndarray else e.result
            del self.entries[self.pos:]       # the trip took another path: stop replaying
        r = (self.parent._call(what, stateful, key, f, args, kwargs, run)
             if self.parent is not None else run(f, args, kwargs))
        # a staged result is the trip's own; a function's value result only is compared
        if not _holds_tracer(r) and (stateful or _value(r)):
            # an array result is copied: the trip may change it in place (`a *= 2`)
            self.entries.append(_Entry(key, f, args, kwargs, run,
                                       r.copy() if type(r) is np.ndarray else r, what,
                                       stateful))
            self.pos += 1
        return r


class _Tapes(threading.local):
    def __init__(self):
        self.stack = []


_tapes = _Tapes()


def active_tape():
    """The innermost loop body's tape while one is staged (or unrolled after its
    trial), else None: `operators.call` sends calls of unconverted code through it."""
    stack = _tapes.stack
    return stack[-1] if stack else None


@contextlib.contextmanager
def recording(tape=None):
    """Run with `tape` (a new one, child of the enclosing loop's tape, by default) as
    the innermost, from its beginning."""
    if tape is None:
        tape = CallTape(active_tape())
    tape.rewind()
    _tapes.stack.append(tape)
    try:
        yield tape
    finally:
        _tapes.stack.pop()
