"""State a staged body reads or moves through calls of code that is not converted (a
`random.Random`, NumPy's global generator, an iterator, a library's counter, output),
which no snapshot of Python objects sees (`object_effects`).

While a loop body (or the branches of a staged `if`) is staged once -- a *trial* --
every call of converted code into unconverted code goes through the innermost
`CallTape` (`operators.call`):

- A call of a method of a stateful object, or of a function given an iterator, is
  recorded: the trips differ. Its result and the lists, dicts or arrays it was given
  are recorded as templates over its arguments, so a replay for the unrolled trip's
  arguments picks the same places (`rng.choice([a, b])` of staged `a`, `b`) and makes
  the same in-place changes (`rng.shuffle(lst)`). A staged result the call computed
  from staged arguments is the trip's own arithmetic (a model's `apply`), unless the
  object's state (`__getstate__`) moved meanwhile (`rng.gauss(x, 1.0)`): the draw is
  undone and the trial stops (`Unrepeatable`).
- Any other function that is not converted (not one of Python's builtins, a class, or
  astjax's own) and returned a value -- a number, array, string, or an object with
  value equality such as a `uuid.UUID` -- is called again after the trial; a different
  value (`time.time`, `uuid.uuid4`) means the trips differ too.
- Output (`print`, a logger, a file: `is_output`) happens while tracing under JAX: per
  trip of a loop Python runs, once for a staged body. So it stops the trial of a loop
  with a static trip count before it runs (the loop is unrolled), and runs once
  otherwise (a staged trip count, each branch of a staged `if`).

The loop's unrolled trips replay what the trial's calls returned (the state has moved
past them), so Python's sequence of values is kept. Such a loop runs as Python does
when its trip count is static, otherwise a located error (`loop_ops`); a value drawn
in a branch of a staged `if` is a located error (`branch_ops`).
"""
from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import io
import logging
import sys
import threading
import types

import numpy as np

from .. import core, tree_util
from ..core import Tracer
from ..errors import ConcretizationError
from . import object_effects

# objects whose methods write output (files, streams, loggers): see `is_output`
_OUTPUT_SELVES = (io.IOBase, logging.Logger, logging.LoggerAdapter, logging.Handler)
_LOG_CALLS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
              "warn": logging.WARNING, "error": logging.ERROR, "exception": logging.ERROR,
              "critical": logging.CRITICAL, "fatal": logging.CRITICAL, "log": None}


def is_output(f) -> bool:
    """`f` writes output and changes nothing a program reads: `print`, a method of a
    file, stream or logger, `logging.info` and its siblings. JAX runs such a call while
    tracing: once per trip of a loop Python runs (a static trip count: astjax unrolls
    it), once for a staged loop body or each branch of a staged `if` (so does astjax)."""
    if f is builtins.print:
        return True
    if isinstance(getattr(f, "__self__", None), _OUTPUT_SELVES):
        return True
    return (type(f) is types.FunctionType and f.__module__ == "logging"
            and f.__name__ in _LOG_CALLS)


def _silent(f, args) -> bool:
    """A logging call (see `is_output`) below its logger's level: it writes nothing, so
    it needs no trip of its own."""
    level = _LOG_CALLS.get(getattr(f, "__name__", ""), 0)
    if level == 0:
        return False
    s = getattr(f, "__self__", None)
    logger = s if isinstance(s, (logging.Logger, logging.LoggerAdapter)) else (
        logging.getLogger() if s is None else None)
    if logger is None:
        return False
    if level is None:        # `log(level, msg)`
        level = args[0] if args and isinstance(args[0], int) else logging.CRITICAL
    return not logger.isEnabledFor(level)


# objects whose methods read or return values, not hidden state (lists, dicts and
# sets: `snapshot` watches them; arrays, dtypes, ufuncs: pure)
_VALUE_SELVES = (str, bytes, int, float, complex, bool, tuple, frozenset, list, dict, set,
                 range, slice, type, types.ModuleType, np.ndarray, np.generic, np.dtype,
                 np.ufunc, Tracer)


def _fresh_generator(a) -> bool:
    """A generator expression not started yet that the running trip made: the body's
    own `sum(v for v in xs)` (one made before the loop and read in it moves)."""
    if not (isinstance(a, types.GeneratorType) and a.gi_code.co_name == "<genexpr>"
            and inspect.getgeneratorstate(a) == inspect.GEN_CREATED):
        return False
    tape = active_tape()
    trial = tape._in_trial() if tape is not None else None
    if trial is None or trial.frame is None:
        return True
    # made by code running in the trip: its code is nested in a function whose frame
    # is above the one that started the trial
    frame = sys._getframe(1)
    while frame is not None and frame is not trial.frame:
        if a.gi_code in _nested_codes(frame.f_code):
            return True
        frame = frame.f_back
    return False


_nested: dict = {}   # code object -> the code objects nested in it


def _nested_codes(code):
    out = _nested.get(code)
    if out is None:
        out, stack = set(), [code]
        while stack:
            c = stack.pop()
            for k in c.co_consts:
                if isinstance(k, types.CodeType):
                    out.add(k)
                    stack.append(k)
        if len(_nested) > 4096:
            _nested.clear()
        _nested[code] = out = frozenset(out)
    return out


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
_CONTAINERS = (list, tuple, dict, set, frozenset)


def _value(r) -> bool:
    """A plain value a body reads: a number, string or array, an object of a class with
    value equality and a hash (`uuid.UUID`, `datetime`, `Decimal`, an enum member; not a
    container or a pytree node, which may hold staged values), or a tuple of them."""
    if isinstance(r, _VALUES):
        return True
    if type(r) is tuple:
        return all(_value(x) for x in r)
    t = type(r)
    return (t.__eq__ is not object.__eq__ and t.__hash__ is not None
            and not isinstance(r, (*_CONTAINERS, Tracer)) and not hasattr(r, "_buf")
            and tree_util.treedef_is_leaf(tree_util.tree_flatten(r)[1]))  # (no pytree)


def _maybe_hidden(f) -> bool:
    """A function that is neither a method (those: `_stateful`), a class, one of Python's
    builtins nor astjax's own: what it returns may come from state it keeps
    (`time.time`, `os.urandom`, `uuid.uuid4`, `datetime.now`, a library's counter) --
    only calling it again tells."""
    if type(f) is not types.FunctionType:
        if isinstance(f, (type, np.ufunc)):
            return False
        s = getattr(f, "__self__", None)
        if s is not None and not isinstance(s, (types.ModuleType, type)):
            return False
    mod = getattr(f, "__module__", None) or ""
    return not (mod == "builtins" or mod == "astjax" or mod.startswith("astjax."))


def _equal(a, b) -> bool:
    """`a` and `b` (two results of one call, see `_value`) are the same value (an
    object whose `==` gives no plain bool counts as the same: nothing tells)."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (np.ndarray, np.generic)):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b,
                                                                                  equal_nan=True))
    try:
        eq = a == b or (a != a and b != b)      # NaN == NaN here
    except Exception:   # noqa: BLE001  (a user class's `__eq__` over arrays)
        return True
    return eq if type(eq) is bool else True


def _same(a, b) -> bool:
    """Arguments of a replayed call and of the recorded one agree: equal Python values,
    the same object, or staged values of one type at the same places (the unrolled
    trip's values of what the trial staged)."""
    if a is b:
        return True
    if isinstance(a, Tracer):
        return isinstance(b, Tracer) and a.aval == b.aval
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if not isinstance(a, (int, float, complex, str, bytes, range, slice, frozenset,
                          np.generic, type(None))):
        return False
    try:
        return bool(a == b)
    except Exception:   # noqa: BLE001  (a tuple holding arrays)
        return False


# ------------------------------------- replaying a call: its result and its arguments

def _leaves(values, depth=3):
    """The objects in `values` and in the lists, tuples and dicts among them (a few
    levels deep), in order: what a call's result or changed argument may be picked
    from."""
    out = []
    for v in values:
        out.append(v)
        if depth and type(v) in (list, tuple):
            out += _leaves(v, depth - 1)
        elif depth and type(v) is dict:
            out += _leaves(v.values(), depth - 1)
    return out


_OWN = object()   # a template leaf: a staged value the call computed in the trip


def _template(v, at, outer):
    """How to rebuild `v` from the leaves of a call's arguments (`at`: id -> position):
    ("arg", k) for one of them (`rng.choice([a, b])` picks one), containers rebuilt,
    pytree nodes through their leaves, ("value", v) for anything else -- or `_OWN`
    inside, for a staged value the call made from the trip's staged values (it cannot
    be repeated from other arguments). `outer`: the builders staged values that stay
    valid after the trial belong to."""
    k = at.get(id(v))
    if k is not None:
        return ("arg", k)
    if isinstance(v, Tracer):
        return ("value", v) if id(v.builder) in outer else _OWN
    if type(v) in (list, tuple):
        return (type(v), [_template(x, at, outer) for x in v])
    if type(v) is dict:
        return (dict, {k: _template(x, at, outer) for k, x in v.items()})
    if not isinstance(v, _PLAIN):     # a pytree node (a dataclass of arrays)
        leaves, tree = tree_util.tree_flatten(v)
        if not tree_util.treedef_is_leaf(tree):
            return (tree, [_template(x, at, outer) for x in leaves])
    return ("value", v.copy() if type(v) is np.ndarray else v)


def _has(t, what) -> bool:
    """Whether template `t` holds `_OWN` (what is `_OWN`) or an ("arg", k) picking a
    staged leaf (what is a list of the leaves)."""
    if t is _OWN:
        return what is _OWN
    kind, v = t
    if kind == "arg":
        return what is not _OWN and isinstance(what[v], Tracer)
    if kind == "value":
        return False
    return any(_has(x, what) for x in (v.values() if kind is dict else v))


_PLAIN = (int, float, complex, bool, str, bytes, type(None), np.ndarray, np.generic)


def _fill(t, leaves, what):
    """The value template `t` describes for the arguments' `leaves` (see `_template`)."""
    if t is _OWN:
        raise ConcretizationError(
            f"{what} returned or stored a staged value it computed from this trip's "
            f"staged values: astjax cannot repeat that call for the trips of the unrolled "
            f"loop without calling it once more than Python does",
            hint="draw a Python value (a number, an index) and compute with it in the "
                 "loop body, or use astjax.random")
    kind, v = t
    if kind == "arg":
        return leaves[v]
    if kind == "value":
        return v.copy() if type(v) is np.ndarray else v
    if kind is dict:
        return {k: _fill(x, leaves, what) for k, x in v.items()}
    if kind in (list, tuple):
        return kind(_fill(x, leaves, what) for x in v)
    return tree_util.tree_unflatten(kind, [_fill(x, leaves, what) for x in v])


_MUTABLE = (list, dict, np.ndarray, bytearray)


def _contents(a):
    return a.copy() if isinstance(a, np.ndarray) else list(a) if type(a) is list else (
        dict(a) if type(a) is dict else bytes(a))


def _changed_in_place(a, before) -> bool:
    if isinstance(a, np.ndarray):
        return a.shape != before.shape or not np.array_equal(a, before, equal_nan=True)
    if type(a) is list:
        return len(a) != len(before) or any(x is not y for x, y in zip(a, before))
    if type(a) is dict:
        return a.keys() != before.keys() or any(a[k] is not before[k] for k in a)
    return bytes(a) != before


def _inside(a, at, outer):
    """The template (`_template`) of what the mutable argument `a` holds now."""
    if type(a) is list:
        return (list, [_template(x, at, outer) for x in a])
    if type(a) is dict:
        return (dict, {k: _template(x, at, outer) for k, x in a.items()})
    return ("value", _contents(a))


def _arguments(args, kwargs):
    return (*args, *(kwargs[k] for k in sorted(kwargs))) if kwargs else tuple(args)


class _Entry:
    """One recorded call: `what` describes it; `stateful`: a method of a stateful object
    or an iterator (else a function `_maybe_hidden` that returned a value). A stateful
    call's `result` and the arguments it `changed` in place are templates over the
    leaves of its arguments (`_template`): replayed for other arguments of the same
    types, `rng.choice([a, b])` picks the same place and `rng.shuffle(lst)` moves the
    same items."""
    __slots__ = ("key", "f", "args", "kwargs", "run", "result", "what", "stateful",
                 "changed")

    def __init__(self, key, f, args, kwargs, run, result, what, stateful, changed=()):
        self.key, self.f, self.args, self.kwargs, self.run = key, f, args, kwargs, run
        self.result, self.what, self.stateful = result, what, stateful
        self.changed = changed

    def again(self) -> bool:
        """A function's value that calling it again checks (its arguments are values,
        not staged ones of the finished trial)."""
        return not self.stateful and not _staged(self.args, self.kwargs)

    def draws(self) -> bool:
        """The call gave the program something from the state it moved: a value (not
        None), or a list, dict or array argument it may have changed in place."""
        r = self.result
        return bool(self.changed) or not (type(r) is tuple and r[0] == "value"
                                          and r[1] is None)

    def matches(self, key, args, kwargs):
        return (self.key == key and len(args) == len(self.args)
                and all(_same(a, b) for a, b in zip(args, self.args))
                and self.kwargs.keys() == kwargs.keys()
                and all(_same(kwargs[k], self.kwargs[k]) for k in kwargs))

    def replay(self, args, kwargs):
        """The recorded call's effect on these arguments, and its result."""
        if not self.stateful:
            r = self.result
            return r.copy() if type(r) is np.ndarray else r
        allargs = _arguments(args, kwargs)
        leaves = _leaves(allargs)
        for k, t in self.changed:
            a, after = allargs[k], _fill(t, leaves, self.what)
            if isinstance(a, np.ndarray):
                a[...] = after
            elif type(a) is dict:
                a.clear()
                a.update(after)
            else:
                a[:] = after
        return _fill(self.result, leaves, self.what)

    @classmethod
    def of_stateful(cls, key, f, args, kwargs, run, r, what, leaves, before, outer):
        """The entry of a stateful call that returned `r` and found its arguments'
        mutable ones as `before` ((index, contents)); None for a call that computed
        a staged result from the trip's values without picking one (a model's
        `apply(params, x)`: staged as it is, like the trip's own arithmetic; `call`
    checks the object's state did not move)."""
        at = {}
        for k, leaf in enumerate(leaves):
            at.setdefault(id(leaf), k)
        result = _template(r, at, outer)
        allargs = _arguments(args, kwargs)
        # every list, dict or array it was given: what it holds after the call (a
        # shuffle that left the order as it was still drew)
        given = tuple((k, _inside(allargs[k], at, outer)) for k, _ in before)
        if (_has(result, _OWN) and not _has(result, leaves)
                and not any(_changed_in_place(allargs[k], c) for k, c in before)):
            return None
        return cls(key, f, args, kwargs, run, result, what, True, given)


def _key(f):
    s = getattr(f, "__self__", None)
    return (id(f), None) if s is None else (id(s), getattr(f, "__name__", None))


_NO_STATE = object()


def _staged(args, kwargs) -> bool:
    return any(isinstance(a, Tracer) for a in _leaves(_arguments(args, kwargs)))


def _exposed_state(s):
    """A copy of the state of the object `s`, from which it can be put back
    (`_put_back`): its attributes (`object_effects.attributes`; the lists and dicts
    among them copied) and, for a class with a pickle protocol of its own
    (`__getstate__` and `__setstate__`: a `random.Random`'s generator), what that gives.
    `_NO_STATE` for an object whose state Python cannot see whole: no attributes and no
    protocol of its own (NumPy's `Generator`: `__getstate__` is None), or a C layout
    under its attributes that no protocol of its own shows."""
    if s is None or isinstance(s, _VALUE_SELVES):
        return _NO_STATE
    t = type(s)
    pickled = None
    if (getattr(t, "__getstate__", None) is not object.__getstate__
            and hasattr(t, "__setstate__")):
        try:
            pickled = s.__getstate__()
        except Exception:   # noqa: BLE001  (objects that cannot be pickled)
            pickled = None
        if type(pickled) is dict:
            pickled = dict(pickled)
    attrs = object_effects.attributes(s)
    if pickled is None and (attrs is None or not object_effects.state_in_python(t)):
        return _NO_STATE
    if attrs is not None:
        attrs = {k: list(v) if type(v) is list else dict(v) if type(v) is dict else v
                 for k, v in attrs.items()}
    return (attrs, pickled)


def _put_back(s, state):
    """Give `s` its state `state` (`_exposed_state`) again: undo a draw."""
    attrs, pickled = state
    if pickled is not None:
        s.__setstate__(pickled)
    if attrs is not None:
        now, back = object_effects.attributes(s) or {}, dict(attrs)
        for k, v in attrs.items():      # a list or dict attribute keeps its identity
            if type(v) in (list, dict) and type(now.get(k)) is type(v):
                now[k].clear()
                (now[k].extend if type(v) is list else now[k].update)(v)
                back[k] = now[k]
        object_effects.set_attributes(s, back)


def _same_state(a, b) -> bool:
    """Two states of one object (`_exposed_state`) agree: equal plain values, the same
    objects elsewhere."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(map(_same_state, a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if type(a) is np.ndarray:
        return a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, (int, float, complex, str, bytes)):
        return a == b
    return False


class Unrepeatable(BaseException):
    """A call that a body staged once cannot make once for every trip: output (see
    `is_output`), raised before the call while `tape`, the trial of a loop with a
    static trip count, stages its body, so that loop runs as Python does; or a staged
    result a stateful object computed with a draw from its state (which is put back
    first), raised for the innermost trial `tape`: a loop then runs as Python does (or
    raises a located error), a staged `if` raises one. A BaseException: an `except
    Exception` of the user's around the call must not swallow it."""

    def __init__(self, tape, what):
        super().__init__(what)
        self.tape, self.what = tape, what


class CallTape:
    """The calls of stateful code (see `_stateful`) the first trip of a loop makes, in
    order, with their results, and the values functions that may keep hidden state
    returned (`_maybe_hidden`). Every staging attempt of the trip, and the first trip
    of the loop unrolled afterwards, start at its beginning (`rewind`): a call that
    matches the next entry gets the recorded result (and its arguments the recorded
    changes), so the state moves once, as in Python; past the end, calls run (through
    the enclosing loop's tape) and are appended. `repeats`: the tape of a loop with a
    static trip count (unrolled when its trips differ); `trial`: set while a body is
    staged once (`recording`), with `outer` the builders that were open then."""

    def __init__(self, parent=None, repeats=False):
        self.parent, self.entries, self.pos = parent, [], 0
        self.local, self._made = set(), []   # ids of objects calls made in the trip
        self.repeats, self.trial, self.outer = repeats, False, frozenset()
        self.frame = None    # while a trial runs: the frame that started it

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
        """What the first recorded stateful call that gave the program something reads
        (`_Entry.draws`): a staged `if` stages both of its paths, so such a draw would
        happen on both."""
        return next((e.what for e in self.entries if e.stateful and e.draws()), None)

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

    def _in_trial(self):
        """The innermost enclosing tape staging a trial, or None."""
        tape = self
        while tape is not None and not tape.trial:
            tape = tape.parent
        return tape

    def _unrolled_by(self):
        """The innermost enclosing tape staging a trial of a loop with a static trip
        count (its trips may differ: it is unrolled), or None."""
        tape = self
        while tape is not None and not (tape.trial and tape.repeats):
            tape = tape.parent
        return tape

    def call(self, f, args, kwargs, run):
        """`run(f, args, kwargs)`, or its recorded result (see the class)."""
        mod = getattr(f, "__module__", None) or ""
        if mod.startswith("astjax.") or mod == "astjax":     # jnp, lax, Tracer methods
            return run(f, args, kwargs)
        if is_output(f):
            stop = None if _silent(f, args) else self._unrolled_by()
            if stop is not None:
                raise Unrepeatable(stop, f"`{_name(f)}`, which writes output on every trip")
            return run(f, args, kwargs)      # once while staging, as JAX's trace
        what = _stateful(f, args, kwargs, self.local)
        if what is not None:
            trial, n = self._in_trial(), len(self.entries)
            s = getattr(f, "__self__", None)
            before = _NO_STATE
            if trial is not None and s is not None and _staged(args, kwargs):
                before = _exposed_state(s)
                if before is _NO_STATE:
                    # whether it draws (a staged result computed with a counter it keeps)
                    # cannot be seen, nor undone: the trips make their own calls
                    raise Unrepeatable(trial, f"{what}, whose state astjax cannot see, "
                                              f"on staged values")
            r = self._call(what, True, _key(f), f, args, kwargs, run)
            if (before is not _NO_STATE and len(self.entries) == n
                    and not _same_state(before, _exposed_state(s))):
                # a staged result computed with a draw (`rng.gauss(x, 1.0)`): staged once,
                # every trip would reuse it; undo the draw, the trips make their own
                _put_back(s, before)
                raise Unrepeatable(trial, what)
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
                return e.replay(args, kwargs)
            del self.entries[self.pos:]       # the trip took another path: stop replaying
        if stateful:
            allargs = _arguments(args, kwargs)
            leaves = _leaves(allargs)
            before = [(k, _contents(a)) for k, a in enumerate(allargs)
                      if isinstance(a, _MUTABLE)]
        r = (self.parent._call(what, stateful, key, f, args, kwargs, run)
             if self.parent is not None else run(f, args, kwargs))
        if stateful:
            e = _Entry.of_stateful(key, f, args, kwargs, run, r, what, leaves, before,
                                   self.outer)
        elif _value(r):   # an array result is copied: the trip may change it in place
            e = _Entry(key, f, args, kwargs, run, r.copy() if type(r) is np.ndarray else r,
                       what, False)
        else:
            e = None
        if e is not None:
            self.entries.append(e)
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
def recording(tape=None, trial=False):
    """Run with `tape` (a new one, child of the enclosing loop's tape, by default) as
    the innermost, from its beginning; `trial`: a body (or a staged `if`'s branches)
    is staged once meanwhile (see `CallTape`)."""
    if tape is None:
        tape = CallTape(active_tape())
    tape.rewind()
    was = tape.trial, tape.outer, tape.frame
    tape.trial = trial
    if trial:
        tape.outer = frozenset(id(b) for b in core._state.builders)
        tape.frame = sys._getframe(2)   # (past contextlib's frame: the caller's)
    _tapes.stack.append(tape)
    try:
        yield tape
    finally:
        _tapes.stack.pop()
        tape.trial, tape.outer, tape.frame = was
