"""Run-time operators for converted loops (`ag__.while_stmt`, `for_stmt`,
`range_`, `iter_`, `scan_read`) and `astjax.unroll`.

A static test or trip count runs plain Python, so static loops unroll; a staged
test stages `while`, and a loop over a static range or a staged array stages
`scan` (an early exit or a staged trip count: a `while` over an index).

State values are split leaf by leaf as for branches (`branch_ops`): array-like
leaves are carried, other Python objects must not change; empty lists appended
to once per iteration of a scanned loop become stacked scan outputs
(`StackedList`).
"""
from __future__ import annotations

import builtins
import logging

import numpy as np

from .. import core, dtypes, tree_util
from ..config import config
from ..core import Tracer
from ..errors import (AmbiguousTruthValueError, ConcretizationError, LoopCarryError,
                      UnboundLocalVariableError, UndefinedVariableError, user_location)
from ..primitives import elementwise as ew
from ..primitives.scan import bind_scan
from ..primitives.vma import staging_inputs
from ..primitives.while_loop import bind_while, bind_while_test_last, stores_to_refs
from .array_ops import (StackedList, binary, convert, iota, logical, nonzero, row, select,
                        slice_rows, zeros_like)
from . import call_tape, identity, object_effects, trials
from .branch_ops import (Undefined, _array_like, _as, _aval, _line, _staged_if, _static_equal,
                         _truth, is_staged, staged_path)

log = logging.getLogger("astjax")


class _Collector(list):
    """Stands in for a fresh list while a loop body is staged once."""

# ----------------------------------------------------------------- loop state


class _LoopState:
    """Flattened loop state: which leaves are carried, static, or collected."""

    def __init__(self, values, names, body_fn=None):
        self.names = list(names)
        self.body_fn = body_fn     # whose reachable objects `object_effects` watches
        self.trees, self.leaves = [], []
        # fresh empty lists: candidates for `lst.append(y)` -> stacked scan outputs
        self.fresh_lists = [k for k, v in enumerate(values) if type(v) is list and not v]
        for v in values:
            leaves, tree = tree_util.flatten_for_staging(v)
            self.trees.append(tree)
            self.leaves.append(leaves)

    def positions(self):
        for k, leaves in enumerate(self.leaves):
            for j, x in enumerate(leaves):
                yield k, j, x

    def carried(self):
        return [(k, j) for k, j, x in self.positions()
                if _array_like(x) and not isinstance(x, Undefined)]

    def collectors(self):
        return list(self.fresh_lists)


def _fmt_aval(a):
    return a.str_short(True) + ("{weak}" if a.weak_type else "")


def _stage_loop_body(st: _LoopState, carry_pos, carry_avals, call_body, n_extra_args=0,
                     extra_avals=(), collect=(), meta=(), what="loop", fill=(), exits=(),
                     unrollable=False, tape=None):
    """Stage one iteration: carries become Tracers, statics stay. Returns
    (jaxpr, consts, carry_out_values, collected_ys). A name that a trip leaves
    undefined -- the trip jumped out -- keeps its carried value when nothing reads it
    once the loop has stopped early (R3): `fill` rows (exit flag, names) say which
    names each flag allows, see `_fillable`. The loop's exit flags `exits` are False
    where a trip starts (its test read them), so the trip starts from a static False
    (`_exits_cleared`). A trip that sets one to a static True stops the loop on every
    trip; when the caller can unroll the loop (`unrollable`), `_Unstageable` makes it
    run that one trip as Python does, so the flags and the code after the loop stay
    static (fuzz seed 1200287). A body that changes a Python object, or calls code whose
    state lives outside the program (`tape`, see `call_tape.CallTape`), raises
    `_PythonEffect`: a trip staged once would not repeat it."""
    loc = user_location(3)
    rows = getattr(extra_avals, "arrays", None)   # (the carries vary as their initial values)
    with staging_inputs(list(rows or ()) + [st.leaves[k][j] for k, j in carry_pos],
                        unknown=0 if rows else len(extra_avals)), core.new_builder() as b:
        extra = [b.new_arg(a) for a in extra_avals]
        tracers = [b.new_arg(a, hint=st.names[k]) for (k, j), a in zip(carry_pos, carry_avals)]
        leaves = [list(l) for l in st.leaves]
        for (k, j), t in zip(carry_pos, tracers):
            leaves[k][j] = t
        state = [tree_util.tree_unflatten(t, l) for t, l in zip(st.trees, leaves)]
        collectors = {}
        for k in collect:
            state[k] = collectors[k] = _Collector()
        records = object_effects.snapshot((st.body_fn,), [
            x for ls in st.leaves for x in ls if not _array_like(x)]) if st.body_fn else []
        stop = None   # a call staged once for all trips (`call_tape.Unrepeatable`)
        try:
            out = list(call_body(extra, _exits_cleared(state, st.names, exits)))
        except call_tape.Unrepeatable as e:   # (an enclosing loop's: that one unrolls)
            stop = e
            raise (e if e.tape is not tape else _PythonEffect(f"calls {e.what}")) from None
        finally:
            change = object_effects.changed(records)
            if change:   # staged once, it would change once: undo, run as Python does
                object_effects.restore(records)
                if tape is not None:
                    tape.forget_values()
                if stop is None:
                    raise _PythonEffect(f"changes a Python object ({change})")
            hidden = tape.hidden_state() if tape is not None and stop is None else None
            if hidden:   # staged once, every trip would reuse the first trip's values
                raise _PythonEffect(f"calls {hidden}, whose state Python keeps outside "
                                    f"the staged program")
        for k, name in enumerate(st.names):
            if unrollable and name in exits and _static_true(out[k]):
                raise _Unstageable(f"every trip stops the loop ('{name}' is set to a "
                                   f"static True)")
        carry_out = []
        for k, name in enumerate(st.names):
            if k in collectors:
                if out[k] is not collectors[k]:
                    raise _Unstageable(f"'{name}' is rebound in the loop")
                continue
            lo, to = tree_util.flatten_for_staging(out[k])
            if to != st.trees[k]:
                if any(isinstance(x, Undefined) for x in st.leaves[k]):
                    raise _NeedsInit(k, out[k])
                raise LoopCarryError(f"'{name}' changes structure in this {what}: {st.trees[k]} "
                                     f"before, {to} after one iteration", loc=loc)
            for j, (before, after) in enumerate(zip(st.leaves[k], lo)):
                if (k, j) in carry_pos:
                    if isinstance(after, Undefined) and _fillable(name, fill, out, st.names):
                        after = tracers[carry_pos.index((k, j))]
                    elif isinstance(after, Undefined):
                        line = _line(meta, name, 1)
                        raise UnboundLocalVariableError(
                            f"'{name}' is carried by this {what}, but a trip deletes it"
                            f"{f' (line {line})' if line else ''} (`del {name}`, or the end "
                            f"of `except ... as {name}`): Python would raise "
                            f"UnboundLocalError where the next trip or the code after the "
                            f"loop uses it",
                            hint=f"delete '{name}' after the loop, or bind it again before "
                                 f"the trip ends", loc=loc)
                    carry_out.append((name, after))
                elif isinstance(before, Undefined):
                    if not isinstance(after, Undefined):
                        raise _NeedsInit(k, out[k])
                elif not _static_equal(before, after):
                    if _array_like(after):
                        raise _Promote(k, j)
                    raise LoopCarryError(f"'{name}' is a Python value that changes in this "
                                         f"{what} whose trip count is staged", loc=loc)
        # which carries a trip may leave as they were, or bind to one object (`identity`)
        st.paths = identity.trip_paths(carry_pos, tracers, [v for _, v in carry_out], b)
        ys = []
        for pos, c in collectors.items():
            if len(c) != 1 or not _array_like(c[0]):
                raise _Unstageable(f"a list is appended to {len(c)} times per iteration")
            ys.append(c[0])
        outs = []
        for (name, v), a in zip(carry_out, carry_avals):
            va = _aval(v)
            if va.shape != a.shape or va.dtype != a.dtype:
                if a.weak_type and va.shape == a.shape:
                    raise _Promote(name, va)
                raise LoopCarryError(
                    f"'{name}' has type {_fmt_aval(a)} before the {what} and {_fmt_aval(va)} "
                    f"after one iteration", loc=loc)
            outs.append(_as(v, a.dtype, a.weak_type and va.weak_type))
        jaxpr, consts = b.build(outs + ys)
    return jaxpr, consts, ys


def _fill_all(fill):
    """The names of the `fill` rows (flag, names) that every exit flag allows: those
    nothing reads whichever flag stopped the loop."""
    sets = [set(ns) for _, ns in fill]
    return set.intersection(*sets) if sets else set()


def _fillable(name, fill, out, names) -> bool:
    """Whether `name`, undefined after a trip whose state is `out`, is never read:
    nothing reads it whichever exit flag stopped the loop, or the trip set a flag to a
    static True whose row allows it (a trip that returns leaves the `break` flag
    unassigned; fuzz seed 1500299)."""
    if name in _fill_all(fill):
        return True
    return any(name in ns and flag in names and _static_true(out[names.index(flag)])
               for flag, ns in fill)


def _static_true(v) -> bool:
    return (not is_staged(v) and not isinstance(v, Undefined) and _array_like(v)
            and np.ndim(v) == 0 and bool(v))


def _exits_cleared(state, names, exits):
    """`state` with the exit flags `exits` a static False (a staged one, or already
    False): a trip runs only when its loop's test found every flag False."""
    if not exits:
        return state
    return [False if n in exits and (is_staged(v) or (not isinstance(v, Undefined)
                                                      and not _static_true(v))) else v
            for v, n in zip(state, names)]


class _NeedsInit(Exception):
    def __init__(self, k, value):
        self.k, self.value = k, value


class _Promote(Exception):
    pass


class _Unstageable(Exception):
    pass


class _PythonEffect(_Unstageable):
    """A staged trial of a loop body changed a Python object (`object_effects`)."""


def _effect_error(e, what):
    return ConcretizationError(
        f"this {what}'s body {e.args[0]}; that must happen once per trip, but the trip "
        f"count is staged (the number of trips is only known when the function runs)",
        loc=user_location(3),
        hint="make the loop's trip count static, or carry the value as a loop variable "
             "instead of storing it on an object or drawing it from Python's state")


def _init_undefined(st, k, value):
    """Give a loop variable undefined before the loop zeros of its in-loop type."""
    def z(x):
        return zeros_like(x) if _array_like(x) and not isinstance(x, Undefined) else x
    new = tree_util.tree_map(z, value)
    leaves, tree = tree_util.flatten_for_staging(new)
    st.trees[k], st.leaves[k] = tree, leaves


def _carry_values(st, carry_pos):
    vals = []
    for k, j in carry_pos:
        x = st.leaves[k][j]
        if dtypes.is_weak_scalar(x):
            x = core.WeakConst(np.asarray(x, dtypes.python_scalar_dtype(x)))
        vals.append(x)
    return vals


def _stage_until_stable(st, call_body, extra_avals=(), collect_ok=False, meta=(), what="loop",
                        fill=(), exits=(), unrollable=False, tape=None):
    """Stage the body, widening the carry (weak -> strong types, newly staged Python
    numbers, undefined-before-the-loop names) until one iteration type-checks. Every
    attempt is the loop's first trip: it replays the calls of stateful code recorded on
    `tape` (a new one by default); a function whose value the trip read and that returns
    another one when called again (`CallTape.second_trip`) makes the trips differ too."""
    with call_tape.recording(tape, trial=True) as tape:
        out = _stage_attempts(st, call_body, extra_avals, collect_ok, meta, what, fill,
                              exits, unrollable, tape)
    change = tape.second_trip()      # e.g. `time.time()`: do its values repeat?
    if change:
        raise _PythonEffect(f"calls {change}")
    return out


def _stage_attempts(st, call_body, extra_avals, collect_ok, meta, what, fill, exits,
                    unrollable, tape):
    promote_to = {}
    for _ in range(8):
        tape.rewind()
        carry_pos = st.carried()
        vals = _carry_values(st, carry_pos)
        avals = []
        for (k, j), v in zip(carry_pos, vals):
            a = _aval(v)
            if (k, j) in promote_to:
                a = promote_to[(k, j)]
            avals.append(a)
        collect = st.collectors() if collect_ok else []
        try:
            jaxpr, consts, ys = _stage_loop_body(st, carry_pos, avals, call_body,
                                                 extra_avals=extra_avals, collect=collect,
                                                 meta=meta, what=what, fill=fill,
                                                 exits=exits, unrollable=unrollable, tape=tape)
            init = [_as(v, a.dtype, a.weak_type) if _aval(v) != a else v
                    for v, a in zip(vals, avals)]
            return carry_pos, init, jaxpr, consts, ys, collect
        except _NeedsInit as e:
            _init_undefined(st, e.k, e.value)
        except _Promote as e:
            if isinstance(e.args[0], str):
                name, va = e.args
                idx = [i for i, (k, j) in enumerate(carry_pos) if st.names[k] == name]
                for i in idx:
                    if _aval(vals[i]).shape == va.shape:
                        promote_to[carry_pos[i]] = va  # weak as unrolled Python keeps it
            else:
                k, j = e.args
                x = st.leaves[k][j]
                st.leaves[k][j] = core.WeakConst(np.asarray(x, dtypes.python_scalar_dtype(x))) \
                    if dtypes.is_weak_scalar(x) else np.asarray(x)
    raise LoopCarryError(f"could not find a stable type for the state of this {what}")


def _rebuild(st, carry_pos, carry_vals, collect=(), ys=(), no_trip=False):
    """The state after a staged loop; with `no_trip` (the loop may run no trip), or
    where a trip may leave it unchanged (`st.kept`), a carried value is, on some path,
    the object it was before the loop (`identity`)."""
    leaves = [list(l) for l in st.leaves]
    outs = identity.loop_results(carry_pos, carry_vals, st.leaves, getattr(st, "paths", {}),
                                 no_trip)
    for (k, j), v in zip(carry_pos, outs):
        leaves[k][j] = v
    out = [tree_util.tree_unflatten(t, l) for t, l in zip(st.trees, leaves)]
    for k, y in zip(collect, ys):
        out[k] = StackedList(y)
    return tuple(out)

# ---------------------------------------------------------------------- while


def _in_place(names, inplace, init, final):
    """The final state, where a list or dict that the loop body changes in place (never
    rebinds: `inplace`) is the caller's original object holding the final items, as
    in Python (a staged loop rebuilds its state containers)."""
    final = list(final)
    for k, name in enumerate(names):
        orig, new = init[k], final[k]
        if name in inplace and new is not orig and type(orig) is type(new) and \
                type(orig) in (list, dict):
            if type(orig) is list:
                orig[:] = new
            else:
                orig.clear()
                orig.update(new)
            final[k] = orig
    return tuple(final)


def while_stmt(test_fn, body_fn, init, names, meta, effect=None, inplace=(), fill=(),
               exits=()):
    """`while test: body` over the state `names` (initial values `init`); returns
    the final state. `effect`: a Python-level effect of every trip (`next()`, R17),
    which a staged loop would run once: then a staged test is an error. `inplace`:
    see `_in_place`; `fill`, `exits` (the break/return flags the test checks): see
    `for_stmt`."""
    return _in_place(names, inplace, init, _while(test_fn, body_fn, init, names, meta, effect,
                                                  fill, exits))


def _while(test_fn, body_fn, init, names, meta, effect, fill=(), exits=()):
    state = tuple(init)
    while True:
        t = test_fn(*state)
        if is_staged(t) and effect:
            effect = f"{effect[0]}, line {effect[1]}"  # (what, line, col, end_col)
            raise ConcretizationError(
                f"this loop's body has a Python effect that must happen once per trip "
                f"({effect}), but its test is staged: the number of trips is only known "
                f"when the function runs", hint="make the test static, or move the effect "
                                                "out of the loop")
        if is_staged(t):
            return _staged_while(test_fn, body_fn, state, names, meta, t, fill=fill,
                                 exits=exits)
        if not _truth(t):
            return state
        state = tuple(body_fn(*state))


def _staged_while(test_fn, body_fn, state, names, meta, first, what="while loop", fill=(),
                  exits=()):
    """The staged `while` of a loop whose test is staged. `first`: the test's value on
    `state`, already evaluated once before the loop (see `while_loop.bind_while_test_last`)."""
    st = _LoopState(state, names, body_fn)
    body = staged_path(body_fn, "the body of a `while` loop")
    try:
        carry_pos, init, body_j, body_c, _, _ = _stage_until_stable(
            st, lambda extra, s: body(*s), meta=meta, what=what, fill=fill, exits=exits)
    except _PythonEffect as e:
        raise _effect_error(e, what) from None
    cond_j, cond_c = _stage_test(st, carry_pos, [_aval(v) for v in init],
                                 lambda s: test_fn(*s))
    if stores_to_refs(cond_j):   # the test after each trip's body
        first = first if _aval(first).dtype == dtypes.bool_ else nonzero(first)
        outs = bind_while_test_last(first, (cond_j, cond_c), (body_j, body_c), init)
    else:
        outs = bind_while((cond_j, cond_c), (body_j, body_c), init, python=True)
    return _rebuild(st, carry_pos, outs, no_trip=True)


def _stage_test(st, carry_pos, avals, test, extra_avals=()):
    with core.new_builder() as b:
        extra = [b.new_arg(a) for a in extra_avals]
        tracers = [b.new_arg(a) for a in avals]
        leaves = [list(l) for l in st.leaves]
        for (k, j), t in zip(carry_pos, tracers):
            leaves[k][j] = t
        state = [tree_util.tree_unflatten(t, l) for t, l in zip(st.trees, leaves)]
        r = test(state) if not extra_avals else test(extra, state)
        av = _aval(r)
        if av.shape != () and av.size != 1:  # Python's truth value of it: JAX's ValueError
            raise AmbiguousTruthValueError(
                f"the test of this loop is an array of shape {av.shape}: the truth value of "
                f"an array with more than one element is ambiguous",
                hint="use jnp.any / jnp.all")
        if av.shape != ():
            raise ConcretizationError(f"the test of this loop is an array of shape {av.shape}; "
                                      "it must be a scalar", hint="use jnp.any / jnp.all")
        if av.dtype != dtypes.bool_:
            r = nonzero(r)
        if not isinstance(r, Tracer):
            r = b.const_tracer(np.asarray(bool(r)))
        jaxpr, consts = b.build([r])
    return jaxpr, consts


# ------------------------------------------------------------------------ for


class StagedRange:
    """`range(a, b, s)` with a staged bound: iterated by a staged `while`."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


def range_(callee, *args):
    """`range(...)` in a `for` header: a Python range when the bounds are static,
    a `StagedRange` when one is staged."""
    if callee is not builtins.range:
        return callee(*args)
    vals = []
    for a in args:
        if is_staged(a):
            break
        vals.append(int(a.known) if isinstance(a, Tracer) else a)
    else:
        return range(*vals)
    if len(args) == 1:
        start, stop, step = 0, args[0], 1
    else:
        start, stop, step = (list(args) + [1])[:3]
    i32 = dtypes.int32
    conv = [convert(v, i32) if isinstance(v, Tracer) else np.int32(v)
            for v in (start, stop, step)]
    return StagedRange(*conv)


class unroll:  # noqa: N801  (used like a builtin: `for i in astjax.unroll(range(n), 4):`)
    """Mark a loop's iterable with an explicit unroll factor for its compiled `scan`
    (`True` or a factor >= the trip count unrolls fully; 1 never unrolls)."""

    def __init__(self, iterable, factor=True):
        self.iterable, self.factor = iterable, factor

    def __iter__(self):
        return iter(self.iterable)

    def __len__(self):
        return len(self.iterable)


def _unroll_factor(n, explicit):
    if explicit is not None:
        return n if explicit is True else max(1, int(explicit))
    return n if n <= config.read("astjax_loop_unroll_threshold") else 1


class _NoSlice:
    """Passed for a scan-read slice when the loop is not a scan: read xs[i] instead."""

    def __repr__(self):
        return "<no slice>"


NO_SLICE = _NoSlice()


def scan_read(sl, xs, i):
    """`xs[i]` in a loop body: the pre-sliced scan input when the loop is a scan."""
    return xs[i] if sl is NO_SLICE else sl


class _Enumerate:
    def __init__(self, xs):
        self.xs = xs


class _Zip:
    def __init__(self, arrays):
        self.arrays = arrays


def iter_(callee, *args):
    """`enumerate(xs)` / `zip(xs, ys)` over staged arrays scan instead of unrolling; over
    containers they are the list of their items; over an iterator the call goes through
    the staged loop body's call tape (`call_tape`), since its items move."""
    staged = [isinstance(a, Tracer) or hasattr(a, "_buf") for a in args]
    if callee is builtins.enumerate and len(args) == 1 and staged[0] and _aval(args[0]).shape:
        return _Enumerate(args[0])
    if callee is builtins.zip and args and all(staged) and len(
            {_aval(a).shape[:1] for a in args}) == 1 and _aval(args[0]).shape:
        return _Zip(list(args))
    if callee in (builtins.zip, builtins.enumerate) and not any(
            call_tape.is_iterator(a) for a in args):
        return list(callee(*args))     # over containers: the trip's own items
    tape = call_tape.active_tape()   # over an iterator: its items move on every trip
    return callee(*args) if tape is None else tape.call(callee, args, {}, _run)


def _run(f, args, kwargs):
    return f(*args, **kwargs)


def unrolled_(iterable, effect):
    """The iterable of a `for` whose body has a Python-level effect on every trip
    (`effect`, e.g. `next(it)`; R17; None: none holds): staged as one `scan`/`while` body
    it would happen once, so the loop is unrolled while staging (a static trip count)."""
    if effect is None:
        return iterable
    effect = "{}, line {}".format(*effect[:2])  # (what, line, col, end_col)
    if isinstance(iterable, unroll):
        iterable = iterable.iterable
    if isinstance(iterable, StagedRange):
        raise ConcretizationError(
            f"this loop's body has a Python effect that must happen once per trip "
            f"({effect}), so the loop is unrolled while staging; its trip count depends "
            f"on a staged value", hint="make the range's bounds static, or move the effect "
                                       "out of the loop")
    if isinstance(iterable, (Tracer, _Enumerate, _Zip)) or hasattr(iterable, "_buf"):
        iterable = _python_iterable(iterable)
    return list(iterable)


def for_stmt(iterable, body_fn, init, names, extra_test, meta, reads=(), fill=(), inplace=(),
             exits=()):
    """`for itr in iterable: body` over the state `names`; `extra_test` (or None)
    stops the loop early (break/return flags: `exits`, state names); `reads` are the
    arrays read as `xs[i]` (scan inputs when the loop is a scan); `fill` rows
    (exit flag, names): the names nothing reads once that flag stopped the loop (they
    may stay undefined on that path, R3); `inplace`: see `_in_place`. Returns the final state."""
    return _in_place(names, inplace, init, _for(iterable, body_fn, init, names, extra_test,
                                                meta, reads, fill, exits))


def _for(iterable, body_fn, init, names, extra_test, meta, reads, fill, exits=()):
    state = tuple(init)
    factor = None
    nr = len(reads)
    if nr:
        plain_body = body_fn
        body_fn = lambda itr, *s: plain_body(itr, *([NO_SLICE] * nr), *s)  # noqa: E731
    if isinstance(iterable, (_Enumerate, _Zip)):
        return _scan_or_unroll(iterable, body_fn, state, names, extra_test, meta, None,
                               fill=fill, exits=exits)
    if isinstance(iterable, unroll):
        iterable, factor = iterable.iterable, iterable.factor
    if isinstance(iterable, StagedRange):
        return _index_loop(iterable, body_fn, state, names, extra_test, meta, fill, exits)
    if isinstance(iterable, range) or (isinstance(iterable, Tracer) or hasattr(iterable, "_buf")):
        if isinstance(iterable, range) and nr and extra_test is None:
            return _scan_or_unroll(iterable, body_fn, state, names, extra_test, meta, factor,
                                   (plain_body, reads))
        return _scan_or_unroll(iterable, body_fn, state, names, extra_test, meta, factor,
                               fill=fill, exits=exits)
    return _python_loop(call_tape.pulled(iterable), body_fn, state, names, extra_test,
                        meta, fill, exits)


def _length(iterable):
    if isinstance(iterable, range):
        return len(iterable)
    if isinstance(iterable, _Enumerate):
        iterable = iterable.xs
    elif isinstance(iterable, _Zip):
        iterable = iterable.arrays[0]
    shape = _aval(iterable).shape
    if not shape:
        raise ConcretizationError("iteration over a 0-d array")
    return shape[0]


def _python_iterable(iterable):
    if isinstance(iterable, _Enumerate):
        return enumerate(iterable.xs)
    if isinstance(iterable, _Zip):
        return zip(*iterable.arrays)
    return iterable


def _scan_or_unroll(iterable, body_fn, state, names, extra_test, meta, factor, reads=None,
                    fill=(), exits=()):
    n = _length(iterable)
    if n == 0:
        return state
    tape = call_tape.CallTape(call_tape.active_tape(), repeats=True)
    try:
        with trials.trial():
            if extra_test is None:
                return _scan_loop(iterable, body_fn, state, names, meta, factor, reads, tape)
            if isinstance(iterable, (_Enumerate, _Zip)):
                raise _Unstageable("an early exit from a loop over enumerate/zip")
            return _index_loop(iterable, body_fn, state, names, extra_test, meta, fill,
                               exits, unrollable=True, tape=tape)
    except (ConcretizationError, LoopCarryError, _Unstageable, TypeError,
            UndefinedVariableError, trials.Tainted) as e:
        # (a name a later trip reads that an earlier one binds is unbound on the staged
        # trial's one trace; unrolled, each trip sees Python's bindings -- or raises)
        log.debug("astjax: unrolling the loop at %s: %s", user_location(3).where(), e)
    with call_tape.recording(tape):   # the first trip replays what the trial drew
        return _python_loop(_python_iterable(iterable), body_fn, state, names, extra_test,
                            meta, fill, exits)


def _python_loop(iterable, body_fn, state, names, extra_test, meta, fill=(), exits=()):
    """The loop unrolled while staging. A staged early-exit test makes each trip a
    staged `if`: run the body, or keep the state of the loop that already stopped.
    A name may be undefined on both paths of that `if` where the loop has stopped:
    the kept state (the loop stopped on an earlier trip, by any flag: the names all
    `fill` rows allow) and a trip that sets one of its exit flags `exits` to a static
    True (it stops the loop now, the names of that flag's row; fuzz seed 1100374: a
    static `return`). That trip starts with its exit flags False."""
    jumps = [("", tuple(_fill_all(fill)))] + [tuple(r) for r in fill]
    items = iter(iterable)
    while True:
        t = None if extra_test is None else extra_test(*state)
        if t is not None and not is_staged(t) and not _truth(t):
            break     # before the next item is read: an iterator keeps it, as in Python
        try:
            itr = next(items)
        except StopIteration:
            break
        if t is not None and is_staged(t):
            state = tuple(_staged_if(t, lambda *s, itr=itr: body_fn(
                                         itr, *_exits_cleared(s, names, exits)),
                                     lambda *s: s, state, names, meta, "for", jumps))
            continue
        state = tuple(body_fn(itr, *state))
    return state


def _iter_xs(iterable):
    if isinstance(iterable, range):
        idx = iota(len(iterable))
        if iterable.step != 1:
            idx = binary(ew.mul_p, idx, np.int32(iterable.step))
        if iterable.start:
            idx = binary(ew.add_p, idx, np.int32(iterable.start))
        return idx
    return iterable


def _read_slices(iterable, reads):
    """Pre-sliced arrays for `xs[i]` reads of a range loop (None where a read must
    stay an indexing operation: not an array, or indices out of its bounds)."""
    out = []
    r = iterable
    for xs in reads:
        ok = (isinstance(xs, Tracer) or hasattr(xs, "_buf") or isinstance(xs, np.ndarray))
        if ok:
            shape = _aval(xs).shape
            ok = bool(shape) and r.step > 0 and 0 <= r.start and r[-1] < shape[0]
        whole = ok and r.start == 0 and r.step == 1 and len(r) == _aval(xs).shape[0]
        out.append(xs if whole else slice_rows(xs, r.start, r[-1] + 1, r.step)
                   if ok else None)
    return out


class _Rows(tuple):
    """A scan loop's row avals, with the arrays they are rows of (`arrays`: what the
    rows vary over inside a shard_map body, `vma.staging_inputs`)."""


def _scan_loop(iterable, body_fn, state, names, meta, factor=None, reads=None, tape=None):
    """A loop over a static range, a staged array, enumerate(array) or zip(arrays)
    as one `scan`; `xs[i]` reads (see `ControlFlowConverter._scan_reads`) as scan
    inputs; `tape`: see `_stage_until_stable`."""
    if isinstance(iterable, _Enumerate):
        xs = [iota(_length(iterable)), iterable.xs]
        item = tuple                       # (i, row)
    elif isinstance(iterable, _Zip):
        xs = list(iterable.arrays)
        item = tuple                       # (a, b, ...)
    else:
        xs = [_iter_xs(iterable)]
        item = lambda ex: ex[0]  # noqa: E731
    nx = len(xs)
    body, slices = body_fn, []
    if reads is not None:
        body, read_vals = reads
        slices = _read_slices(iterable, read_vals)
        xs += [sl for sl in slices if sl is not None]

    def call(extra, s):
        rest = iter(extra[nx:])
        sl = [NO_SLICE if v is None else next(rest) for v in slices]
        return body(item(extra[:nx]), *sl, *s)
    x_avals = _Rows([_aval(x).update(shape=_aval(x).shape[1:], weak_type=False) for x in xs])
    x_avals.arrays = xs
    n = _length(iterable)
    st = _LoopState(state, names, body_fn)
    carry_pos, init, jaxpr, consts, ys, collect = _stage_until_stable(
        st, call, extra_avals=x_avals, collect_ok=True, meta=meta, what="for loop",
        tape=tape)
    # the scanned inputs come first among the body's arguments; scan wants them last
    m = len(xs)
    jaxpr = core.Jaxpr(jaxpr.constvars, jaxpr.invars[m:] + jaxpr.invars[:m], jaxpr.outvars,
                       jaxpr.eqns)
    outs = bind_scan((jaxpr, consts), init, xs, length=n, unroll=_unroll_factor(n, factor))
    k = len(init)
    return _rebuild(st, carry_pos, outs[:k], collect, outs[k:])


def _index_loop(iterable, body_fn, state, names, extra_test, meta, fill=(), exits=(),
                unrollable=False, tape=None):
    """A loop with a staged trip count or an early exit: a `while` over an index;
    `fill`, `exits`: see `for_stmt`; `unrollable`: see `_stage_loop_body`; `tape`: see
    `_stage_until_stable`."""
    i32 = dtypes.int32
    if isinstance(iterable, StagedRange):
        start, stop, step = iterable.start, iterable.stop, iterable.step

        def item(i):
            return i

        def in_range(i):
            # i is staged (an int32 index), so both tests are staged booleans: a `select`
            # stages what `jnp.where` would
            staged = isinstance(stop, Tracer) or isinstance(i, Tracer)
            return select(binary(ew.gt_p, step, np.int32(0)) if isinstance(step, Tracer) else step > 0,
                          binary(ew.lt_p, i, stop) if staged else i < stop,
                          binary(ew.gt_p, i, stop) if staged else i > stop)
    else:
        xs = _iter_xs(iterable)
        n = _aval(xs).shape[0]
        start, step = np.int32(0), np.int32(1)

        def item(i):
            return row(xs, i)

        def in_range(i):
            return binary(ew.lt_p, i, np.int32(n))
    st = _LoopState(state, names, body_fn)
    idx_aval = core.ShapedArray((), i32)

    if isinstance(iterable, StagedRange):   # it may run no trip
        body_fn = staged_path(body_fn, "the body of a `for` loop over a staged range")

    def body(extra, s):
        return body_fn(item(extra[0]), *s)
    try:
        carry_pos, init, body_j, body_c, _, _ = _stage_until_stable(
            st, body, extra_avals=(idx_aval,), meta=meta, what="for loop", fill=fill,
            exits=exits, unrollable=unrollable, tape=tape)
    except _PythonEffect as e:
        if unrollable:
            raise
        raise _effect_error(e, "for loop") from None

    def test(extra, s):
        ok = in_range(extra[0])
        if extra_test is None:
            return ok
        return logical(ew.and_p, ok, extra_test(*s))
    cond_j, cond_c = _stage_test(st, carry_pos, [_aval(v) for v in init], test,
                                 extra_avals=(idx_aval,))
    # body: (consts, [step], i, carry...) -> (i + step, carry...)
    bj = _with_index_step(body_j, step)
    body_consts = list(body_c) + ([step] if isinstance(step, Tracer) else [])
    start = start if isinstance(start, Tracer) else np.int32(start)
    outs = bind_while((cond_j, cond_c), (bj, body_consts), [start, *init], python=True)
    return _rebuild(st, carry_pos, outs[1:], no_trip=isinstance(iterable, StagedRange))


def _with_index_step(jaxpr, step):
    """(consts, i, carry) -> carry'  becomes  (consts, [step], i, carry) -> (i+step, carry')."""
    i = jaxpr.invars[0]
    i32 = core.ShapedArray((), dtypes.int32)
    nxt = core.Var(i32)
    extra_in = []
    if isinstance(step, Tracer):
        sv = core.Var(i32)
        extra_in = [sv]
        step_atom = sv
    else:
        step_atom = core.Literal(np.int32(step), i32)
    eqn = core.Eqn(ew.add_p, [i, step_atom], [nxt], {})
    return core.Jaxpr(jaxpr.constvars + extra_in, jaxpr.invars, [nxt] + jaxpr.outvars,
                      jaxpr.eqns + [eqn])
