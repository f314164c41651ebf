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
  a library's counter, output) moves through calls of code that is not converted:
  `call_tape`. Objects of library classes are left to it: their state changes through
  their methods, which the tape replays, so a snapshot must not put part of it back.

Such a loop then runs as Python does: unrolled while staging when its trip count is
static (JAX's traced loop), otherwise a located error (`loop_ops`). The branches of a
staged `if` are watched the same way: both are staged, so a change or a value drawn
there is a located error (`branch_ops`), as `o.a = v` in a branch is.
"""
from __future__ import annotations

import sys
import sysconfig
import types

import numpy as np

from ..core import Tracer
from .sourceless import SKIP_MODULES

_DEPTH = 8        # closure value -> attribute -> ... (`self.opt.state["count"]`)
_BUDGET = 1024    # objects recorded per body, at most

_OPAQUE = (str, bytes, int, float, complex, bool, type(None), np.ndarray, np.generic, Tracer,
           types.ModuleType, type, types.BuiltinFunctionType, types.MethodType, range, slice)


def _watched(o) -> bool:
    """A user object whose attributes a body could change (not a value, function,
    class, module, array, nor an object of a library class that keeps its state behind
    its methods: astjax's own, whose caches change as staging runs, a `random.Random`,
    a logger -- those methods are recorded and replayed by the call tape, so a snapshot
    must not put part of their state back; a library's attribute bag, such as a
    `types.SimpleNamespace`, is watched). Attributes held in `__slots__` count."""
    if isinstance(o, _OPAQUE) or hasattr(o, "_buf") or not (
            hasattr(o, "__dict__") or _slot_names(type(o))):
        return False
    return not _behind_methods(type(o))


_slots_of: dict = {}   # class -> the names of the slots its instances hold values in


def _slot_names(t) -> tuple:
    """The `__slots__` of class `t` and of its bases (private names mangled), without
    `__dict__` and `__weakref__`."""
    names = _slots_of.get(t)
    if names is None:
        acc = []
        for c in t.__mro__:
            declared = c.__dict__.get("__slots__", ())
            for n in (declared,) if isinstance(declared, str) else declared:
                if n in ("__dict__", "__weakref__"):
                    continue
                if n.startswith("__") and not n.endswith("__"):
                    n = f"_{c.__name__.lstrip('_')}{n}"
                if n not in acc:
                    acc.append(n)
        if len(_slots_of) > 4096:
            _slots_of.clear()
        names = _slots_of[t] = tuple(acc)
    return names


def attributes(o):
    """The attributes `o` holds, in its `__dict__` and its slots (a dict, a copy), or
    None for an object that has neither."""
    try:
        d = object.__getattribute__(o, "__dict__")
    except AttributeError:
        d = None
    slots = _slot_names(type(o))
    if d is None and not slots:
        return None
    out = dict(d) if isinstance(d, dict) else {}
    for n in slots:
        try:
            out[n] = object.__getattribute__(o, n)
        except AttributeError:   # a slot not set
            pass
    return out


def set_attributes(o, copy):
    """Give `o` the attributes `copy` (from `attributes`) again, past any `__setattr__`
    of its class (a frozen dataclass's)."""
    slots = _slot_names(type(o))
    try:
        d = object.__getattribute__(o, "__dict__")
    except AttributeError:
        d = None
    if isinstance(d, dict):
        d.clear()
        d.update((k, v) for k, v in copy.items() if k not in slots)
    for n in slots:
        if n in copy:
            object.__setattr__(o, n, copy[n])
        else:
            try:
                object.__delattr__(o, n)
            except AttributeError:
                pass


_python_only: dict = {}   # class -> its instances keep no state below Python's


def state_in_python(t) -> bool:
    """Every class of `t`'s hierarchy keeps its instances' state in Python attributes
    (`__dict__`, slots): none of them is a C type adding a layout of its own (a
    `_random.Random`'s generator, NumPy's `Generator`), judged by the instance size each
    class adds over its base (slot pointers, `__dict__` and `__weakref__` at most)."""
    ok = _python_only.get(t)
    if ok is None:
        ok = True
        for c in t.__mro__[:-1]:
            base = c.__base__ or object
            declared = c.__dict__.get("__slots__", ())
            n = 1 if isinstance(declared, str) else len(declared)
            if c.__basicsize__ - base.__basicsize__ > 8 * (n + 2):
                ok = False
                break
        if len(_python_only) > 4096:
            _python_only.clear()
        _python_only[t] = ok
    return ok


_behind: dict = {}   # class -> a library class whose state is behind its methods
_LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib",
                                                          "purelib", "platlib")})


def _behind_methods(t) -> bool:
    """`t` is defined in a module of the standard library, of an installed package or
    of astjax (not in the user's code), and has public methods."""
    lib = _behind.get(t)
    if lib is None:
        mod = getattr(t, "__module__", None) or "builtins"
        if mod.split(".")[0] in _SKIP_MODULES:
            lib = True
        else:
            f = getattr(sys.modules.get(mod), "__file__", None)
            lib = f is None or f.startswith(_LIBRARY_DIRS) or "site-packages" in f
        lib = lib and any(not n.startswith("_") and callable(getattr(t, n, None))
                          for n in dir(t))
        if len(_behind) > 4096:
            _behind.clear()
        _behind[t] = lib
    return lib


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
            if isinstance(v, types.MethodType):   # `step = model.step`: its object too
                out.append(v.__self__)
                v = v.__func__
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
            if isinstance(o, (types.FunctionType, types.MethodType)):
                # a user function kept in an attribute or a container (a callback, a
                # bound method): what its closure and globals reach
                f = getattr(o, "__func__", o)
                if isinstance(o, types.MethodType) and not isinstance(o.__self__, _OPAQUE):
                    nxt.append(o.__self__)
                if isinstance(f, types.FunctionType) and _user_function(f) and \
                        not f.__name__.startswith("ag__"):
                    objects, bindings = _functions_roots(f, depth=1)
                    nxt.extend(objects)
                    records += bindings
                if _watched(o):   # `f.calls += 1`
                    records.append(("object", o, attributes(o)))
            elif type(o) is list:
                records.append(("list", o, list(o)))
                nxt.extend(o[:_BUDGET])
            elif type(o) is dict:
                records.append(("dict", o, dict(o)))
                nxt.extend(list(o.values())[:_BUDGET])
            elif type(o) is tuple:
                nxt.extend(o[:_BUDGET])
            elif _watched(o):
                d = attributes(o)
                records.append(("object", o, d))
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
    now = o if kind in ("list", "dict") else attributes(o)
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
                now = attributes(o)
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
        elif kind == "dict":
            o.clear()
            o.update(copy)
        else:
            set_attributes(o, copy)


def changes_owner(owner, method) -> bool:
    """Whether calling `owner.<method>(...)` (`method` a name), or storing into
    `owner[...]` (`method` None), may change the object `owner`: a bound method of it
    (a list's `append`, a dict's `update`, a user object's method) or an item store
    into an object that takes one -- not a function kept as an attribute (an optax
    `GradientTransformation`'s `update`, a module's `np.append`)."""
    if isinstance(owner, types.ModuleType):
        return False
    if method is None:
        return hasattr(type(owner), "__setitem__") or hasattr(type(owner), "__delitem__")
    try:
        bound = getattr(owner, method)
    except Exception:   # noqa: BLE001  (the call itself will raise as Python does)
        return True
    return getattr(bound, "__self__", None) is owner

