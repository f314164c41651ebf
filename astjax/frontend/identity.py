"""Object identity across a staged choice: `a is b` where Python's answer depends on
the path a staged test takes.

Python runs one branch of an `if`; a name the taken branch leaves alone is still bound
to the very object it held before, so `x is old` after the `if` is true on that path
and false on a path that rebinds `x`. A staged `if` (and a staged loop, which may run
no trip) gives one new staged value for every path, so Python's `is` on it would
silently say false. `record` notes, for such a value, the objects it is on some path;
`is_` -- what the converter turns `a is b` / `a is not b` into -- gives Python's answer
where it does not depend on the path (the same object, or objects no path can make the
same) and raises a located ConcretizationError where it does."""
from __future__ import annotations

import numbers
import weakref

from ..errors import ConcretizationError, user_location

# id(value) -> (weak reference to the value, the objects it is on some path)
_MAYBE: dict = {}


def _forget(key):
    return lambda _ref: _MAYBE.pop(key, None)


def maybe(value) -> tuple:
    """The objects `value` (a staged choice's result) stands for on some path."""
    hit = _MAYBE.get(id(value))
    return hit[1] if hit is not None and hit[0]() is value else ()


def record(value, candidates, inner=()):
    """`value` is, on some path, each of `candidates` (the objects bound before the
    choice; transitively what they may be). Objects made on a path (`inner`: the
    builders of the staged branches or body) and Python numbers (whose identity Python
    does not promise) are left out."""
    objs = [o for c in candidates for o in (c, *maybe(c))
            if o is not value and not isinstance(o, numbers.Number)
            and not any(getattr(o, "builder", None) is b for b in inner)]
    if not objs:
        return
    try:
        ref = weakref.ref(value, _forget(id(value)))
    except TypeError:
        return
    _MAYBE[id(value)] = (ref, tuple(objs))


def merged(res, pairs, inner=()):
    """The results `res` of a staged `if` whose branches gave `pairs` (else value, if
    value) per result, as Python's objects: two results that are one object on both
    paths are one object (`b = a` in each branch), two that are one object on one path
    only share a mark (`is` between them depends on the path), and each is, on some
    path, the object a branch passed through from before the `if` (`record`)."""
    res = list(res)
    first, marks = {}, {}
    for side in (0, 1):
        seen = {}
        for v, pair in enumerate(pairs):
            seen.setdefault(id(pair[side]), []).append(v)
        for vs in seen.values():
            if len(vs) > 1:
                mark = object()
                for v in vs:
                    marks.setdefault(v, []).append(mark)
    for v, (a, c) in enumerate(pairs):
        twin = first.setdefault((id(a), id(c)), v)
        if twin != v:
            res[v] = res[twin]
            continue
        record(res[v], (a, c, *marks.get(v, ())), inner)
    return res


def trip_paths(carry_pos, tracers, afters, builder):
    """Per carry position of a staged loop's body (its inputs `tracers`, outputs
    `afters`, staged in `builder`): whether some path of a trip leaves it as it was
    (a staged `if` of the body rebinding it on one path only), the outer objects it is
    on some path, and the first position holding the same output object."""
    paths, seen = {}, {}
    for pos, t, after in zip(carry_pos, tracers, afters):
        may = maybe(after)
        paths[pos] = (after is t or any(o is t for o in may),
                      tuple(o for o in may if getattr(o, "builder", None) is not builder),
                      seen.setdefault(id(after), pos))
    return paths


def loop_results(carry_pos, values, before, paths, no_trip):
    """A staged loop's carried results `values` (per position of `carry_pos`; `before`:
    the state's leaves before the loop; `paths`: `trip_paths`) as Python's objects: two
    positions one object before the loop and after every trip are one object; one
    object after a trip but two before share a mark; a result the loop may leave as it
    was (`no_trip`: it may run no trip) is, on that path, the object before it."""
    out, marks = {}, {}
    for pos, v in zip(carry_pos, values):
        keep, outer, twin = paths.get(pos, (False, (), pos))
        (k, j), (tk, tj) = pos, twin
        if twin != pos and twin in out:
            if before[tk][tj] is before[k][j]:
                out[pos] = out[twin]
                continue
            marks.setdefault(twin, object())
            outer += (marks[twin],)
            record(out[twin], (marks[twin],))
        out[pos] = v
        record(v, ((before[k][j],) if no_trip or keep else ()) + outer)
    return [out[pos] for pos in carry_pos]


def is_(a, b) -> bool:
    """Python's `a is b`, or a located ConcretizationError where a staged choice made
    the answer depend on the path taken when the function runs."""
    if a is b:
        return True
    ma, mb = maybe(a), maybe(b)
    if not ma and not mb:
        return False
    left, right = (a, *ma), (b, *mb)
    if any(p is q for p in left for q in right):
        raise ConcretizationError(
            "`is` compares a value a staged `if` or loop chose with an object it is on "
            "some path only: Python's answer depends on the path taken when the function "
            "runs", loc=user_location(2),
            hint="compare values (jnp.array_equal, ==), or keep a static flag of the path")
    return False


def is_not(a, b) -> bool:
    """Python's `a is not b` (see `is_`)."""
    return not is_(a, b)
