"""The state of `jax.experimental.hijax`'s mutable hi values (flax's hijax Variables,
JAX's `Box`): Python objects whose quasi-dynamic data (`qdd`: structure and leaf types,
`cur_qdd(x)`) and arrays a function may change.

- `hi_type`, `is_mutable`: a value's hi type, from its entry in JAX's one type table
  (`value_tables.pytype_aval_mappings`, which `hijax.register_hitype` writes): an
  abstract value that `is_high`; `active()`: whether any type but astjax's own is
  registered there (until then, the boundaries skip all of this);
- `Lowering`: a tree with each such value replaced by a `Lo` pytree node (its arrays
  the children, its type and qdd static), and `write_back` of final `Lo`s into the
  objects; `swapped_in`: run a function with given states in the same objects, then
  put theirs back;
- the watch: a staging in `watching()` records each foreign mutable value a hi
  primitive touches (`touch` / `made`, from `HiPrimitive.bind`) with its state then;
  at its end their states are put back and `CapturedHiError` names them, for the
  caller to stage again with them passed in (JAX's implicit arguments: read at every
  call, stored back after) -- or, where it cannot, to report.

`astjax.hi_values` holds the boundaries (`jit`, `eval_shape`, `grad`); `lax.scan`,
`cond` / `switch` and `while_loop` carry the values their bodies write (`carrying`,
`primitives.cond.hi_carried`).
"""
from __future__ import annotations

import contextlib
from typing import Any

from . import tree_util, value_tables
from .errors import JAXTypeError

active = value_tables.registered_types


def hi_type(x):
    """The registered hi type (abstract value) of `x`, or None (no type registered for
    it but astjax's own, or its abstract value is not a hi one: a library's array type,
    as tfp's `Variable`)."""
    if not value_tables.registered_types():
        return None
    fn = value_tables.library_rule(type(x))
    if fn is None:
        return None
    aval = fn(x)
    return aval if getattr(aval, "is_high", False) is True else None


def is_mutable(x) -> bool:
    """Whether `x` is a value of a registered hi type with quasi-dynamic data."""
    aval = hi_type(x)
    return aval is not None and bool(getattr(aval, "has_qdd", False))


def cur_qdd(x):
    """`x`'s current quasi-dynamic data (JAX's `jax.experimental.cur_qdd`): astjax's hi
    values are Python objects on every side of a staging, so it is the value's own."""
    return x.cur_qdd()


def has_mutable(tree) -> bool:
    """Whether a mutable hi value is among `tree`'s leaves."""
    return active() and any(is_mutable(x) for x in tree_util.tree_leaves(tree))


class _Log:
    """What one watched staging saw: the ids of hi values made inside it (`local`) and
    the foreign ones touched, with their state at the first touch."""
    __slots__ = ("local", "touched")

    def __init__(self):
        self.local: set[int] = set()
        self.touched: dict[int, tuple] = {}


_logs: list[_Log] = []    # the watched stagings, innermost last
_notes: list[_Log] = []   # the stagings `noting` (control-flow bodies kept for reuse)
_quiet = [False]   # (reading or storing a state here binds hi primitives: not a touch)


def quiet() -> bool:
    """Whether astjax itself is reading or storing a hi value's state now."""
    return _quiet[0]


def quietly():
    """A context in which astjax reads hi values for itself (`quiet()`)."""
    return _quietly()


class _quietly:
    """Astjax itself reading hi values (their states, a closure's contents): no touch."""

    def __enter__(self):
        self.was, _quiet[0] = _quiet[0], True

    def __exit__(self, *exc):
        _quiet[0] = self.was


def _state(x):
    """(qdd, arrays) of a mutable hi value now."""
    with _quietly():
        qdd = cur_qdd(x)
        return qdd, list(hi_type(x).read_loval(qdd, x))


def _store(x, qdd, vals) -> None:
    """Put the state (qdd, arrays) into the mutable hi value `x`."""
    with _quietly():
        hi_type(x).update_from_loval(qdd, x, *vals)


def _changed(x, qdd, vals) -> bool:
    now_qdd, now = _state(x)
    return now_qdd != qdd or len(now) != len(vals) or any(
        a is not b for a, b in zip(now, vals))


def touch(args) -> None:
    """Record the foreign mutable hi values among a hi primitive's operands in every
    watched staging that has not met them (`HiPrimitive.bind` calls it)."""
    if not (_logs or _notes) or _quiet[0]:
        return
    for x in args:
        if not is_mutable(x):
            continue
        pending = [log for log in (*_logs, *_notes)
                   if id(x) not in log.local and id(x) not in log.touched]
        if pending:
            state = (x, *_state(x))
            for log in pending:
                log.touched[id(x)] = state


def made(outs) -> None:
    """Mark the mutable hi values a hi primitive returned as made inside every watched
    staging."""
    if not (_logs or _notes or _making):
        return
    for x in outs if isinstance(outs, (list, tuple)) else (outs,):
        if is_mutable(x):
            for log in (*_logs, *_notes):
                log.local.add(id(x))
            for ids in _making:
                ids.add(id(x))


class CapturedHiError(JAXTypeError):
    """A staged function closes over mutable hi values (hijax Variables) -- `objs`, put
    back to their states before it -- where its caller cannot pass them in."""

    def __init__(self, objs):
        self.objs = objs
        super().__init__(
            f"the function staged here reads or writes {len(objs)} mutable hi value(s) "
            f"(hijax Variables, e.g. a {type(objs[0]).__name__}) it closes over, where "
            f"astjax cannot pass them in and store them back",
            hint="pass them to the transformed function as arguments")


class watching:
    """Watch a staging: on exit, the foreign mutable hi values it wrote (every one it
    touched unless `writes_only`) are put back and raised as `CapturedHiError`."""

    def __init__(self, writes_only=False):
        self.writes_only = writes_only

    def __enter__(self):
        self.log = _Log()
        _logs.append(self.log)
        return self.log

    def __exit__(self, kind, exc, tb):
        _logs.remove(self.log)
        written, caps = [], []
        for x, qdd, vals in self.log.touched.values():
            w = _changed(x, qdd, vals)
            if w:
                written.append((x, qdd, vals))
            if w or not self.writes_only:
                caps.append(x)
        for x, qdd, vals in written:   # (they hold this staging's values)
            _store(x, qdd, vals)
        if caps and kind is None:
            raise CapturedHiError(caps)
        return False


def watched():
    """`watching()` once a hi type is registered; before, nothing to watch (a null context)."""
    return watching() if active() else contextlib.nullcontext()


class noting:
    """Note whether a staging touches foreign mutable hi values (`.touched` on exit):
    one that reads their states among its constants must not be reused."""

    def __enter__(self):
        self.log = _Log()
        _notes.append(self.log)
        return self

    def __exit__(self, *exc):
        _notes.remove(self.log)
        self.touched = bool(self.log.touched)
        return False


_making: list[set] = []   # the `made_inside` collections open now


class made_inside:
    """Collect the ids of the mutable hi values made (by a hi primitive, or raised from
    their arrays) while it is open -- not those swapped in: the set it enters with."""

    def __enter__(self):
        self.ids: set[int] = set()
        _making.append(self.ids)
        return self.ids

    def __exit__(self, *exc):
        del _making[next(i for i, ids in enumerate(_making) if ids is self.ids)]
        return False


class Lo:
    """A mutable hi value at a boundary: its arrays (the children) and, static, which
    distinct argument it is, its type and its qdd."""
    __slots__ = ("index", "aval", "qdd", "vals")

    def __init__(self, index, aval, qdd, vals):
        self.index, self.aval, self.qdd, self.vals = index, aval, qdd, list(vals)


tree_util.register_pytree_node(
    Lo, lambda n: (n.vals, (n.index, n.aval, n.qdd)),
    lambda aux, vals: Lo(*aux, vals))


class Lowering:
    """`tree` with each mutable hi value replaced by its `Lo` node (`.tree`), and the
    objects (`.objs`) the final states are stored back into, in order. As in JAX, an
    object passed twice is two values: each is raised on its own and stored back in
    turn (the last one's state stays)."""

    def __init__(self, tree):
        self.objs: list = []

        def lower(x):
            aval = hi_type(x)
            if aval is None or not getattr(aval, "has_qdd", False):
                return x
            self.objs.append(x)
            return Lo(len(self.objs) - 1, aval, *_state(x))

        self.tree = tree_util.tree_map(lower, tree)

    def write_back(self, finals) -> None:
        """Store each object's final state (`finals`: its `Lo` nodes, in order)."""
        for obj, node in zip(self.objs, finals):
            _store(obj, node.qdd, node.vals)


def _is_lo(x) -> bool:
    return isinstance(x, Lo)


def raise_tree(tree, diff=()):
    """`tree` with its `Lo` nodes raised to fresh hi values, and those values in order;
    those of the indices `diff` are noted as `differentiated`."""
    out_objs: dict[int, Any] = {}

    def up(x):
        if not isinstance(x, Lo):
            return x
        obj = out_objs[x.index] = x.aval.new_from_loval(x.qdd, *x.vals)
        if x.index in diff:
            differentiated[id(obj)] = obj
        for log in (*_logs, *_notes):
            log.local.add(id(obj))
        for ids in _making:
            ids.add(id(obj))
        return obj

    out = tree_util.tree_map(up, tree, is_leaf=_is_lo)
    return out, [out_objs[i] for i in sorted(out_objs)]


def lowered(x, index) -> Lo:
    """The mutable hi value `x` now, as the `Lo` node numbered `index`."""
    return Lo(index, hi_type(x), *_state(x))


def raised(node: Lo):
    """A fresh hi value of the `Lo` node's state."""
    return raise_tree(node)[0]


def finals(objs) -> list:
    """Each object's state now, as `Lo` nodes (indices in order)."""
    outs = []
    for i, obj in enumerate(objs):
        outs.append(lowered(obj, i))
    return outs


def swapped_in(objs, nodes, call):
    """`call()` with each of `objs` holding its node's state (made inside the innermost
    watched staging; touched, in their own states, for the stagings around it) -> (its
    result, their final `Lo`s); their own states put back."""
    for log in (*_logs[-1:], *_notes):   # (their states come in: a staging may be kept)
        log.local.update(map(id, objs))
    touch(objs)
    saved = [_state(obj) for obj in objs]
    for node, obj in zip(nodes, objs):
        _store(obj, node.qdd, node.vals)
    try:
        out = call()
        return out, finals(objs)
    finally:
        for obj, (qdd, vals) in zip(objs, saved):
            _store(obj, qdd, vals)


class states_kept:
    """Put the states of the mutable hi values `objs` back on exit."""

    def __init__(self, objs):
        self.objs = [x for x in objs if is_mutable(x)]

    def __enter__(self):
        self.saved = [_state(x) for x in self.objs]

    def __exit__(self, *exc):
        for x, (qdd, vals) in zip(self.objs, self.saved):
            _store(x, qdd, vals)
        return False


differentiated: dict[int, Any] = {}   # id -> the hi values a `grad` differentiates now


def carrying(plain, lifted):
    """`plain()`, watched; when it writes mutable hi values it closes over, `lifted(objs)`
    (the operation carrying their states), with any it meets then added."""
    objs = ()
    while True:
        try:
            with watching(writes_only=True):
                return lifted(objs) if objs else plain()
        except CapturedHiError as e:
            if all(any(o is c for c in objs) for o in e.objs):
                raise
            objs = (*objs, *e.objs)


class Idents(tuple):
    """Objects compared and hashed by identity (a static argument naming the values
    a function closes over)."""

    def __eq__(self, other):
        return (type(other) is Idents and len(other) == len(self)
                and all(a is b for a, b in zip(self, other)))

    def __hash__(self):
        return hash(tuple(map(id, self)))


