"""Run-time operators for converted branches and boolean operators (`ag__.if_stmt`,
`if_exp`, `and_`, `or_`, `not_`, `any_flag`) and the state values every converted
construct shares (`Undefined`, `ld`).

Each checks its test: a static test (a Python value, or a staged value whose value
is known at staging time) runs plain Python, so only the taken branch is staged; a
staged test stages `cond`.

State values are split leaf by leaf: array-like leaves (Tracers, arrays, Python
numbers) are carried through the staged construct; other Python objects must be
the same object on every path (they stay static); undefined names are errors
when used after the construct (internal return values get zeros instead).
Loops are in `loop_ops`.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes, tree_util, util
from ..core import Tracer
from ..errors import (USER_CODE, AmbiguousTruthValueError, ConcretizationError, JAXTypeError,
                      ShapeError, AstjaxError, StructureError, UnboundLocalVariableError,
                      UndefinedVariableError,
                      raised_location, user_location)
from ..primitives import elementwise as ew
from ..primitives.cond import bind_cond
from . import call_tape, identity, object_effects
from .array_ops import convert, logical_not, nonzero, promote, select, zeros_like


# ------------------------------------------------------------------------ values


class Undefined:
    """A name not bound on the path taken so far."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"

    def _fail(self, *a, **k):
        raise UnboundLocalVariableError(   # (Python's wording; the hint says why)
            f"cannot access local variable '{self.name}' where it is not associated with a "
            f"value")

    __bool__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __getitem__ = __call__ = __iter__ = __neg__ = __lt__ = __gt__ = _fail
    __array__ = _fail

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        self._fail()


class UndefinedReturnValue(Undefined):
    """The function's return value before a `return` inside control flow ran."""
    __slots__ = ()

    def __init__(self):
        super().__init__("ag__retval")


def ld(local_vars, name):
    """`ag__.ld(locals(), 'x')`: x's value if it is bound here, else `Undefined('x')`."""
    return local_vars[name] if name in local_vars else Undefined(name)


def defined(value):
    """`return ag__.defined(x)` (or of a tuple `x, y`) where `x` may be unbound: an
    `Undefined` returned would be read only by the caller (or `jit`, outside the user's
    code); Python raises its NameError at the `return`, and so does this."""
    for v in value if type(value) is tuple else (value,):
        if isinstance(v, Undefined) and not isinstance(v, UndefinedReturnValue):
            v._fail()
    return value


def cell(value, name, free):
    """`ag__.cell(x, 'x', free)`: a read of closure cell `x` where it may be unbound
    (the converter binds a captured name to `Undefined` on entry, so a nested function
    shares its cell): Python's errors for an unbound cell, an UnboundLocalError read in
    its own function and a NameError read from a nested one (`free`)."""
    if not isinstance(value, Undefined):
        return value
    if free:
        raise UndefinedVariableError(
            f"cannot access free variable '{name}' where it is not associated with a value "
            f"in enclosing scope", hint=f"assign '{name}' in the enclosing function before "
            f"the nested function that reads it runs")
    raise UnboundLocalVariableError(
        f"cannot access local variable '{name}' where it is not associated with a value")


def is_staged(x) -> bool:
    """A staged value whose value is not known while staging."""
    return isinstance(x, Tracer) and x.known is None


def _truth(x) -> bool:
    return bool(x)


def _array_like(x) -> bool:
    # (a mutable array reference is not: a loop or branch closes over it, never
    # carries it; transforms/discharge.py threads its value)
    return (isinstance(x, (Tracer, np.ndarray, np.generic, bool, int, float, complex,
                           core.WeakConst)) or hasattr(x, "_buf")) and \
        not isinstance(x, core.RefTracer)


def _static_equal(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, (Tracer,)) or isinstance(b, (Tracer,)) or hasattr(a, "_buf") or hasattr(b, "_buf"):
        return False
    try:
        if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
            return (type(a) is type(b) and np.shape(a) == np.shape(b)
                    and np.asarray(a).dtype == np.asarray(b).dtype and bool(np.all(a == b)))
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _aval(x):
    return core.get_aval(x)


def _line(meta, name, k):
    for row in meta or ():
        if row[0] == name:
            return row[k]
    return None


# ----------------------------------------------------------------- boolean ops


def and_(a_fn, b_fn):
    """`a and b` (operands as thunks: b is evaluated only when Python would). On a
    staged 0-d `a`, Python's value: `b` where `a` is true, else `a` (R4)."""
    a = a_fn()
    if not is_staged(a):
        return b_fn() if _truth(a) else a
    return _staged_bool_op(a, staged_path(b_fn, "the right operand of an `and`")(), "and")


def or_(a_fn, b_fn):
    """`a or b` (operands as thunks: b is evaluated only when Python would). On a
    staged 0-d `a`, Python's value: `a` where `a` is true, else `b` (R4)."""
    a = a_fn()
    if not is_staged(a):
        return a if _truth(a) else b_fn()
    return _staged_bool_op(a, staged_path(b_fn, "the right operand of an `or`")(), "or")


def now(a):
    """The thunk of an operand already evaluated (the first operand of `and` / `or`
    when it binds a name with `:=`: evaluated where the name lives)."""
    return lambda: a


_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne, "is": identity.is_,
            "is not": identity.is_not, "in": lambda a, b: a in b,
            "not in": lambda a, b: a not in b}


def compare_chain(left, right, ops, rest):
    """`left op0 right op1 c1 ...` (`rest`: thunks of c1, ...): every operand evaluated
    once, and a later one only when the chain so far is true, as Python does; the
    links are joined by `and_` (so a staged link gives a staged truth value)."""
    value = _COMPARE[ops[0]](left, right)
    if not rest:
        return value
    return and_(lambda: value,
                lambda: compare_chain(right, rest[0](), ops[1:], rest[1:]))


def _staged_bool_op(a, b, op):
    """`where(a, b, a)` (and) / `where(a, a, b)` (or) after promotion: both operands
    0-d values (Python's result has the shape of whichever it picks)."""
    loc = user_location(3)
    if _aval(a).shape != ():
        raise AmbiguousTruthValueError(
            f"the truth value of an array with more than one element is ambiguous: "
            f"`{op}` needs a scalar, got {_aval(a).str_short(True)}", loc=loc)
    if not _array_like(b) or isinstance(b, str):
        raise JAXTypeError(f"`a {op} b` with a staged `a` picks between `a` and `b` when the "
                           f"function runs, so `b` must be a number or array, not "
                           f"{type(b).__name__}", loc=loc,
                           hint="compute both operands as arrays, or test a value known "
                                "at staging time")
    if _aval(b).shape != ():
        raise AmbiguousTruthValueError(
            f"`a {op} b` with a staged scalar `a` and an array `b` of shape {_aval(b).shape}: "
            f"Python's result would be `a` or `b`, whose shapes differ, depending on a "
            f"value only known when the function runs", loc=loc,
            hint="use jnp.where(a, b, a) (for and) or jnp.where(a, a, b) (for or)")
    pa, pb = promote(a, b)
    test = a if _aval(a).dtype == dtypes.bool_ else nonzero(a)
    out = select(test, pb, pa) if op == "and" else select(test, pa, pb)
    identity.record(out, (a, b))   # Python's result is `a` or `b` itself
    return out


def not_(x):
    """`not x`."""
    if not is_staged(x):
        return not _truth(x)
    return logical_not(x)


def any_flag(flags):
    """Whether any of the flags (a loop's break/return flags) is set. A flag that is
    statically set decides it: another flag may then be undefined, since the path
    that jumped never assigns it (fuzz seed 800194: a `break` flag after a `return`
    in an unrolled loop, whose guarded `break` never ran)."""
    if any(not isinstance(f, Undefined) and not is_staged(f) and bool(f) for f in flags):
        return True
    out = False
    for f in flags:
        out = or_(lambda: out, lambda f=f: f) if is_staged(out) or is_staged(f) else (out or bool(f))
    return out

# ------------------------------------------------------------------------- if


def _pred_index(test, what):
    av = _aval(test)
    if av.shape != () and av.size != 1:  # Python's truth value of it: JAX's ValueError
        raise AmbiguousTruthValueError(
            f"the test of this `{what}` is an array of shape {av.shape}: the truth value of "
            f"an array with more than one element is ambiguous",
            hint="use jnp.any(...) / jnp.all(...), or jnp.where for elementwise selection")
    if av.shape != ():
        raise ConcretizationError(
            f"the test of this `{what}` is an array of shape {av.shape}; a condition must be "
            f"a scalar", hint="use jnp.any(...) / jnp.all(...), or jnp.where for elementwise "
                              "selection")
    if av.dtype != dtypes.bool_:
        test = nonzero(test)
    return convert(test, dtypes.int32)


def if_stmt(test, true_fn, false_fn, init, names, meta, jumps=(), effect=None):
    """`if test: ... else: ...` with the branches as functions of the state `names`
    (initial values `init`); returns the new state. `meta` rows give source lines
    for error messages. `jumps` rows (flag, names): names nothing reads on a path that
    has jumped -- a branch that set `flag` to a static True, or with flag "" the else
    path of a canonicalizer guard -- so there they may stay undefined (R3). `effect`:
    a Python-level effect in a branch (`next(it)`, `o.a = v`), which staging both
    branches would run on both paths: a staged test is then an error."""
    if not is_staged(test):
        return (true_fn if _truth(test) else false_fn)(*init)
    if effect:
        what, line, col, end_col = effect
        loc = user_location(2)
        raise ConcretizationError(
            f"this branch has a Python effect ({what}) but the test of its `if` is staged: "
            f"both branches are staged, so the effect would happen on both paths",
            hint="make the test static, or compute both values and pick one with "
                 "jnp.where", loc=loc.replace(line=line, col=col, end_col=end_col)
            if line and loc.file else loc)
    return _staged_if(test, true_fn, false_fn, init, names, meta, "if", jumps)


def if_exp(test, true_fn, false_fn):
    """`body if test else orelse` with both values as thunks."""
    if not is_staged(test):
        return true_fn() if _truth(test) else false_fn()
    (out,) = _staged_if(test, lambda: (true_fn(),), lambda: (false_fn(),), (), ("<expr>",),
                        (), "x if c else y")
    return out


def _stage_branch(fn, init, what):
    with core.new_builder() as b:
        out = staged_path(fn, f"a branch of an `{what}`")(*init)
    return b, list(out)


def staged_path(fn, what):
    """`fn` -- a branch, a loop body, the right operand of `and`/`or` -- which astjax
    stages although Python runs it only where a staged test allows (`what` names the
    construct). A NameError it raises (a name nothing defines, read on that path)
    becomes a located UndefinedVariableError: Python would raise it only on inputs
    where the path runs (fuzz seed 1200287). Any other exception raised by the
    user's own code there (`raise ValueError(...)`, `lst[5]`) is a located
    ConcretizationError for the same reason: raised as is, a `try: ... except
    ValueError:` around the staged `if` would take its handler on every input."""
    def run(*args):
        try:
            return fn(*args)
        except NameError as e:
            if isinstance(e, AstjaxError):
                raise
            name = getattr(e, "name", None)
            loc = raised_location(e)
            cls = (UnboundLocalVariableError if isinstance(e, UnboundLocalError)
                   else UndefinedVariableError)
            raise cls(
                f"{f'{name!r} is not defined here' if name else e}. This "
                f"line runs only where a test that is staged allows ({what}, or code "
                f"after a `return`/`break` in staged control flow), so it is staged for "
                f"every input; Python raises NameError only on inputs where it runs",
                hint=f"define {f'{name!r}' if name else 'the name'} on every path (assign "
                     f"it before, or as a global), or make the test that guards this line "
                     f"static", loc=loc if loc.file else None) from None
        except Exception as e:
            if isinstance(e, AstjaxError) or not _raised_by_user_code(e):
                raise
            loc = raised_location(e)
            raise ConcretizationError(
                f"`{type(e).__name__}: {e}` is raised here, on a line that runs only where "
                f"a test that is staged allows ({what}), so it is staged for every input; "
                f"Python raises it only on inputs where the line runs",
                hint="raise under a static test (shapes, Python values), or check values "
                     "when the function runs with checkify (astjax.compat.experimental)",
                loc=loc if loc.file else None) from e
    return run


def _raised_by_user_code(e):
    """Whether `e` was raised by a frame of converted user code (a `raise` statement, or
    an operation of Python's on that line), not inside a library or astjax itself."""
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code in USER_CODE


# ---- lists and dicts a staged branch changes in place: copy, then merge -----------


def _copy(v, origin):
    """`v` with its lists and dicts (at any depth, inside tuples too) copied, so that a
    branch staged after the other does not see, or leak into, the other's changes;
    `origin` maps id(copy) -> (original, copy), and ("of", id(original)) -> its copy,
    so two names of one list share one copy, as they share the list."""
    t = type(v)
    if t is tuple:
        return tuple(_copy(e, origin) for e in v)
    if ("of", id(v)) in origin:
        return origin[("of", id(v))]
    if t is list:
        c = [_copy(e, origin) for e in v]
    elif t is dict:
        c = {k: _copy(e, origin) for k, e in v.items()}
    else:
        return v
    origin[id(c)] = (v, c)
    origin[("of", id(v))] = c
    return c


def _original(x, origin):
    hit = origin.get(id(x))
    return hit[0] if hit is not None and hit[1] is x else None


def _changed(copy, orig):
    if type(copy) is list:
        return len(copy) != len(orig) or any(a is not b for a, b in zip(copy, orig))
    return copy.keys() != orig.keys() or any(copy[k] is not orig[k] for k in copy)


def _merge_back(merged, a, c, of, ot):
    """Write the merged value of a list/dict that both branches changed in place (as
    copies `a`, `c` of one original) back into the original, so every other reference
    to it sees the change as in Python; returns the original (or `merged`)."""
    orig = _original(a, of)
    if orig is None or orig is not _original(c, ot) or type(merged) is not type(orig):
        return merged
    if type(orig) is list:
        new = [_merge_back(m, a[i], c[i], of, ot) if i < min(len(a), len(c)) else m
               for i, m in enumerate(merged)]
        orig[:] = new
    else:
        new = {k: _merge_back(m, a[k], c[k], of, ot) if k in a and k in c else m
               for k, m in merged.items()}
        orig.clear()
        orig.update(new)
    return orig


def _check_in_place(name, a, c, of, ot, meta, loc, what):
    """A list/dict changed in place in one branch and rebound in the other cannot be
    merged (the original would change on one path only)."""
    oa, oc = _original(a, of), _original(c, ot)
    for o, copy, line in ((oa, a, 2), (oc, c, 1)):
        if o is not None and (oa is None or oc is None) and _changed(copy, o):
            raise StructureError(
                f"'{name}' is changed in place in one branch and rebound in the other of "
                f"this `{what}` whose test is staged", loc=_at_line(loc, _line(meta, name, line)),
                hint=f"build a new value for '{name}' in both branches (e.g. "
                     f"`{name} = {name} + [v]`), or change it in place in both")


def _at_line(loc, line):
    return loc.replace(line=line, col=None, end_col=None) if line and loc.file else loc


def _jumped(name, outs, names, jumps, else_path):
    """Whether `name`, undefined in a branch's outputs `outs`, is never read on it
    because that branch has jumped (see `if_stmt`)."""
    for flag, fillable in jumps:
        if name not in fillable:
            continue
        if flag == "" and else_path:
            return True
        if flag in names:
            v = outs[names.index(flag)]
            if not is_staged(v) and not isinstance(v, Undefined) and _truth(v):
                return True
    return False


def _staged_if(test, true_fn, false_fn, init, names, meta, what, jumps=()):
    loc = user_location(2)
    idx = _pred_index(test, what)
    of, ot = {}, {}
    records = object_effects.snapshot((true_fn, false_fn), [
        x for v in init for x in tree_util.flatten_for_staging(v)[0] if not _array_like(x)])
    with call_tape.recording(trial=True) as tape:
        stop = None     # a call staged once for all trips (`call_tape.Unrepeatable`)
        try:
            # the `if` branch first, as Python reads it and JAX's `cond` traces it (the
            # order of output while staging: `call_tape.is_output`)
            true = _stage_branch(true_fn, _copy(tuple(init), ot), what)
            staged = [_stage_branch(false_fn, _copy(tuple(init), of), what), true]
        except call_tape.Unrepeatable as e:
            stop = e
            if e.tape is not tape:
                raise       # an enclosing loop unrolls
            raise _effect_error(f"calls {e.what}, whose state Python keeps outside the "
                                f"staged program", what, loc) from None
        finally:
            change = object_effects.changed(records)
            if change:
                object_effects.restore(records)
                if stop is None:
                    raise _effect_error(f"changes a Python object ({change})", what, loc)
    drawn = tape.hidden_value()
    if drawn:   # e.g. `rng.random()`: drawn once while staging, whichever path runs
        raise _effect_error(f"calls {drawn}, whose state Python keeps outside the staged "
                            f"program", what, loc)
    (bf, outs_f), (bt, outs_t) = staged
    values = [None] * len(names)
    staged_leaves = []   # (name index, leaf index, leaf_false, leaf_true)
    layout = []
    for k, name in enumerate(names):
        vf, vt = outs_f[k], outs_t[k]
        uf, ut = isinstance(vf, Undefined), isinstance(vt, Undefined)
        if uf and ut:
            values[k] = vf
            layout.append(None)
            continue
        if uf or ut:
            if name.startswith("ag__") or _jumped(name, outs_f if uf else outs_t, names,
                                                  jumps, uf):
                # an internal flag/return value, or a name undefined only on the path
                # that already jumped: the other branch's zeros never get read
                with _reenter(bf if uf else bt):   # (of the other's type, weak or not)
                    filler = tree_util.tree_map(
                        lambda x: _as(zeros_like(x), _aval(x).dtype, _aval(x).weak_type)
                        if _array_like(x) else x, vt if uf else vf)
                vf, vt = (filler, vt) if uf else (vf, filler)
            else:
                if what == "for":   # a trip of an unrolled loop with a staged exit test
                    line, used = _line(meta, name, 1), _line(meta, name, 2)
                    raise UnboundLocalVariableError(
                        f"'{name}' is assigned in the loop body"
                        f"{f' (line {line})' if line else ''} but is undefined when the "
                        f"loop stops early (its exit test is staged)"
                        f"{f', and it is used after the loop (line {used})' if used else ''}",
                        hint=f"assign '{name}' before the loop", loc=loc)
                line_t, line_f, used = _line(meta, name, 1), _line(meta, name, 2), _line(meta, name, 3)
                use = f", and it is used after the if (line {used})" if used else ""
                if not isinstance(init[k], Undefined):
                    # bound on entry: the branch that left it undefined unbound it
                    branch, line = ("`if`", line_t) if ut else ("`else`", line_f)
                    raise UnboundLocalVariableError(
                        f"'{name}' is deleted in the {branch} branch"
                        f"{f' (line {line})' if line else ''} of this `{what}` whose test is "
                        f"staged (`del {name}`, or the end of `except ... as {name}`){use}: "
                        f"Python would raise UnboundLocalError reading it after that branch",
                        hint=f"delete '{name}' in both branches or in neither, or stop "
                             f"reading it after the `if`", loc=loc)
                branch = "`if`" if not ut else "`else`"
                where = f" (line {line_t if not ut else line_f})" if (line_t or line_f) else ""
                raise UnboundLocalVariableError(
                    f"'{name}' is assigned only in the {branch} branch{where} of this "
                    f"`{what}` whose test is staged{use}",
                    hint=f"assign '{name}' before the `if` or in both branches", loc=loc)
        _check_in_place(name, vf, vt, of, ot, meta, loc, what)
        lf, tf_ = tree_util.flatten_for_staging(vf)
        lt, tt = tree_util.flatten_for_staging(vt)
        if tf_ != tt:
            raise StructureError(f"'{name}' has a different structure in the two branches of "
                                 f"this `{what}`: {tf_} and {tt}", loc=loc)
        kinds = []
        for j, (a, c) in enumerate(zip(lf, lt)):
            if _static_equal(a, c):
                kinds.append(("static", a))
            elif _array_like(a) and _array_like(c):
                kinds.append(("staged", len(staged_leaves)))
                staged_leaves.append((name, a, c))
            else:
                raise StructureError(f"'{name}' is {a!r:.40} in one branch and {c!r:.40} in "
                                     f"the other of this `{what}` whose test is staged; Python "
                                     f"values must agree", loc=loc)
        layout.append((tf_, kinds))
    outs_false, outs_true = [], []
    for name, a, c in staged_leaves:
        (da, wa), (dc, wc) = dtypes.dtype_and_weak(a), dtypes.dtype_and_weak(c)
        sa, sc = np.shape(a) if not isinstance(a, Tracer) else a.shape, \
            np.shape(c) if not isinstance(c, Tracer) else c.shape
        if tuple(sa) != tuple(sc) or (da != dc and not (wa or wc)):
            raise ShapeError(
                f"'{name}' is {_aval(a).str_short(True)} in the else branch and "
                f"{_aval(c).str_short(True)} in the if branch of this `{what}` (line "
                f"{_line(meta, name, 1) or '?'} / {_line(meta, name, 2) or '?'}); "
                f"both branches must give the same shape and dtype", loc=loc,
                hint="cast with .astype(...) or broadcast explicitly in one branch")
        dt, weak = dtypes.promote((da, wa), (dc, wc))
        with _reenter(bf):
            outs_false.append(_as(a, dt, weak))
        with _reenter(bt):
            outs_true.append(_as(c, dt, weak))
    jf, cf = bf.build(outs_false)
    jt, ct = bt.build(outs_true)
    # a branch with an effect (a debug print) is staged even when the `if` has no outputs
    effects = any(core.has_effects(e) for j in (jf, jt) for e in j.eqns)
    res = bind_cond(idx, [(jf, cf), (jt, ct)]) if staged_leaves or effects else []
    if staged_leaves:
        res = identity.merged(res, [(a, c) for _, a, c in staged_leaves], inner=(bf, bt))
    for k, name in enumerate(names):
        if layout[k] is None:
            continue
        tree, kinds = layout[k]
        leaves = [v if kind == "static" else res[v] for kind, v in kinds]
        values[k] = _merge_back(tree_util.tree_unflatten(tree, leaves), outs_f[k], outs_t[k],
                                of, ot)
    return tuple(values)


def _effect_error(effect, what, loc):
    """A staged `if` whose branch changes a Python object or draws from Python's state
    (see `object_effects`)."""
    where = ("a trip of this loop, whose exit test is staged," if what == "for" else
             f"a branch of this `{what}`, whose test is staged,")
    return ConcretizationError(
        f"{where} {effect}: both paths are staged, so that would happen on both", loc=loc,
        hint="make the test static, or carry the value as a variable (assigned in both "
             "branches) instead of storing it on an object or drawing it in a branch")


def _as(x, dt, weak):
    av = _aval(x)
    if av.dtype == dt and av.weak_type == weak and isinstance(x, Tracer):
        return x
    return convert(x, dt, weak_type=weak)


def _reenter(b) -> util.pushed:
    """A branch's builder `b` innermost again (to stage its outputs' fillers and casts)."""
    return util.pushed(core._state.builders, b)
