"""What JAX's eager `jvp` hands back as the objects the function made, not as Arrays.

JAX runs an eager `jvp` op by op on JVP tracers that hold the primals and tangents as
they were passed. A value no primitive computed is returned as the object it is: an
input passed through (`jvp(lambda x: x, (2.0,), (3.0,))` is `(2.0, 3.0)`), and what a
rule written in Python returned when JAX ran it on such values -- a `custom_jvp` rule
(`primal_out = x ** 2` of a Python float is a float) or an extension primitive's JVP
rule, whose `bind` runs the primitive's impl. Every other primitive gives an Array.

astjax stages the function and compiles it, which would make every output an Array.
While an eager jvp stages (`jvp_values`), a `custom_jvp` called on the values passed
in runs its rule on them right there, once, and its equation keeps what the rule
returned (`values_of`, read by `custom_api`). `split` then evaluates first the
equations JAX's eager jvp runs through such Python rules -- those `custom_jvp_call`s
and the extension primitives whose operands are all values passed in (or made so) and
literals -- and leaves the rest of the jaxpr, taking their results as extra inputs, to
be compiled as before.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from . import ad_frames, core, tree_util
from .extend.core import Primitive as _ExtensionPrimitive
from .primitives.custom_derivatives import custom_jvp_call_p
from .transforms import ad
from .dtypes import _float0_zeros
from .transforms.ad import differentiable, float0

__all__ = ["jvp_values", "values_of", "returned", "run_rule", "note", "split", "output"]

_PYTHON = (bool, int, float, complex, np.generic, np.ndarray)
_PASSED: ContextVar = ContextVar("astjax_eager_jvp_values", default=None)


@contextmanager
def jvp_values(leaves, t_leaves):
    """While an eager jvp stages its function, called with primal leaves `leaves` and
    tangent leaves `t_leaves` (JAX's JVP tracers hold them)."""
    state = (list(leaves), list(t_leaves), {}, [])
    token = _PASSED.set(state)
    try:
        yield state
    finally:
        _PASSED.reset(token)


def values_of(xs):
    """(primals, tangents) of the operands `xs` of a call staged now, when JAX's eager
    jvp would run its rule on Python values: each is an input of the eager jvp's own
    function that was passed as a Python value, or the result of a rule run so
    (`note`), or a constant one (with a zero tangent: Zero), and one at least is not a
    constant; else None."""
    passed, b = _own_builder()
    if passed is None:
        return None
    leaves, t_leaves, made, _ = passed
    ps, ts, found = [], [], False
    for x in xs:
        if isinstance(x, core.Tracer) and x.builder is b and x._var in made:
            p, t = made[x._var]
            ps.append(p)
            ts.append(t)
            found = True
        elif isinstance(x, core.Tracer):
            if x.builder is not b or x._var not in b.invars:
                return None
            k = b.invars.index(x._var)
            if not isinstance(leaves[k], _PYTHON):
                return None
            ps.append(leaves[k])
            ts.append(_tangent(x.aval, t_leaves[k]))
            found = True
        elif isinstance(x, _PYTHON):
            ps.append(x)
            ts.append(core.Zero(core.get_aval(x)))
        else:
            return None
    return (ps, ts) if found else None


def _own_builder():
    """(the eager jvp's values, its function's builder) while that builder is the current
    one (not a function staged inside: a loop body, an inner jit), else (None, None)."""
    passed = _PASSED.get()
    b = core.current_builder()
    if passed is None or b is None:
        return None, None
    given = ad_frames.passed(b)
    if given is None or len(given) != len(passed[0]) or any(
            g is not x for g, x in zip(given, passed[0])):
        return None, None
    return passed, b


def returned(out) -> None:
    """The output of the eager jvp's function, as it returned it (called in its builder;
    without has_aux): a Python value among its leaves is returned as it is."""
    passed, _ = _own_builder()
    if passed is not None:
        passed[3][:] = [x if isinstance(x, _PYTHON) else None
                        for x in tree_util.flatten_for_staging(out)[0]]


def run_rule(rule, primals, tangents):
    """`rule(*primals, *tangents)` run as JAX's eager jvp runs a custom rule: on the
    values, outside any staging (a `custom_jvp` it calls is called, not staged)."""
    builders = core._state.builders
    saved = builders[:]
    del builders[:]
    try:
        return rule(*primals, *tangents)
    finally:
        builders[:] = saved


def note(outs, primals, tangents) -> None:
    """The staged results `outs` of a call whose rule ran on values (`values_of`) hold
    `primals` with `tangents`: a later call on them runs its rule on those too."""
    passed = _PASSED.get()
    if passed is None:
        return
    for o, p, t in zip(outs, primals, tangents):
        if isinstance(o, core.Tracer):
            passed[2][o._var] = (p, t if t is not None else core.Zero(o.aval))


def split(closed, leaves, t_leaves, state):
    """Run the equations of `closed` (the staged primal function, called with `leaves`
    and tangents `t_leaves`; `state`: what `jvp_values` gave while it staged) that JAX's
    eager jvp runs as Python on the passed values.
    -> None (no such equation, and no input passed through), or (rest, primals,
    tangents, known): `rest` is `closed` without them, taking their results after its
    own inputs, `primals` / `tangents` the values for those extra inputs, `known` the
    (primal, tangent) of every such variable (the inputs passed as Python values too)."""
    jaxpr = closed.jaxpr
    known = {v: (x, _tangent(v.aval, t)) for v, x, t in zip(jaxpr.invars, leaves, t_leaves)
             if isinstance(x, _PYTHON)}
    if len(state[3]) == len(jaxpr.outvars):
        for v, x in zip(jaxpr.outvars, state[3]):
            if x is not None and isinstance(v, core.Literal):
                known[v] = (x, core.Zero(v.aval))   # (a constant the function returned)
    if not known:
        return None
    ran, rest = [], []
    for eqn in jaxpr.eqns:
        if not _runs_as_python(eqn, known):
            rest.append(eqn)
            continue
        ps = [ad.read_atom({}, a) if isinstance(a, core.Literal) else known[a][0]
              for a in eqn.invars]
        ts = [core.Zero(a.aval) if isinstance(a, core.Literal) else known[a][1]
              for a in eqn.invars]
        pout, tout = ad.jvp_eqn(eqn, ps, ts)
        for v, p, t in zip(eqn.outvars, pout, tout):
            known[v] = (p, t)
        ran.extend(eqn.outvars)
    if not ran and not any(v in known for v in jaxpr.outvars):
        return None
    rest_jaxpr = core.Jaxpr(jaxpr.constvars, list(jaxpr.invars) + ran, jaxpr.outvars, rest)
    return (core.ClosedJaxpr(rest_jaxpr, closed.consts), [known[v][0] for v in ran],
            [known[v][1] for v in ran], known)


def output(v, known, primal, tangent):
    """Output `v`'s (primal, tangent) as JAX's eager jvp returns them: the objects `split`
    found for it (a Python constant the function returned too: `returned`), else the
    compiled program's `primal` and `tangent`. A zero tangent is zeros, as JAX
    instantiates it."""
    if v not in known:
        return primal, tangent
    p, t = known[v]
    if isinstance(t, core.Zero):
        aval = v.aval
        t = (ad.zeros_like_aval(aval) if differentiable(aval)
             else _float0_zeros(aval.shape))
    return p, t


def _tangent(aval, t):
    """A passed tangent as the rules take it: Zero for a float0 one (an int primal)."""
    return t if differentiable(aval) else core.Zero(aval)


def _runs_as_python(eqn, known) -> bool:
    """Whether JAX's eager jvp runs `eqn` through a rule written in Python on values
    astjax has: a `custom_jvp_call` whose rule ran on them, or an extension primitive,
    with every operand a literal or a value `split` knows (one at least)."""
    if not any(isinstance(a, core.Var) for a in eqn.invars):
        return False
    if not all(isinstance(a, core.Literal) or a in known for a in eqn.invars):
        return False
    if eqn.primitive is custom_jvp_call_p:   # (the rule ran on the values: `values_of`)
        return getattr(eqn.params.get("jvp_jaxpr_fun"), "values", None) is not None
    return isinstance(eqn.primitive, _ExtensionPrimitive)
