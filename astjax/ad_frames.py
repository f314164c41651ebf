"""Which staged values carry a tangent of the differentiation staging them: what JAX's
JVP tracers are, for code that asks (`isinstance(x, jax.interpreters.ad.JVPTracer)`,
with `x._trace.main` against `jax.extend.core.find_top_trace(...).main`: equinox's
`filter_jvp` keeps exactly those outputs as the differentiated ones).

Every differentiation stages its function in a builder of its own (`ad_base._stage`),
which it registers here with the inputs it differentiates. A value of such a builder
carries a tangent when it is not known at staging time, has an inexact dtype (JAX
drops a zero or float0 tangent: the value is then no JVP tracer) and is computed in
that function from a differentiated input, not through a `stop_gradient`. A value
the function closed over belongs to an enclosing builder: to the differentiation it
is a constant, as JAX lifts an outer tracer with a zero tangent.
"""
from __future__ import annotations

import contextlib
import weakref

from . import core, dtypes
from .primitives import structural
from .primitives.custom_derivatives import stop_gradient_p
from .primitives.vma import input_hooks

__all__ = ["register", "passed", "carries_tangent", "perturbed", "reaches_tangent",
           "tangents_key"]

# builder -> (one flag per input: does the differentiation staging it differentiate it,
#             the value passed for each input)
_FRAMES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def register(builder, flags, passed) -> None:
    """Note that `builder` stages a function differentiated in its inputs `flags`,
    called with the values `passed`."""
    _FRAMES[builder] = (tuple(flags), tuple(passed))


def passed(builder):
    """The values passed for the inputs of `builder`, a differentiation's (None: not one)."""
    frame = _FRAMES.get(builder)
    return None if frame is None else frame[1]


def carries_tangent(x) -> bool:
    """Whether staged value `x` carries a tangent of the differentiation whose function
    it belongs to (JAX: `x` is a JVP tracer, of that differentiation's trace)."""
    if not isinstance(x, core.Tracer) or x.known is not None:
        return False
    b = x.builder
    frame = _FRAMES.get(b)
    if frame is None or not dtypes.is_inexact(x.aval.dtype):
        return False
    return any(frame[0][i] for i in _sources(b.producer, b.invars, x._var))


# (stack depth, the values passed) of each function staged now on known arguments: a
# loop body, a branch, an inner jit (`vma.input_hooks`)
_GIVEN: list = []


@contextlib.contextmanager
def _given(leaves, unknown):
    _GIVEN.append((len(core._state.builders), [None] * unknown + list(leaves)))
    try:
        yield
    finally:
        _GIVEN.pop()


input_hooks.append(_given)


# stack depths of the builders staging an inner `jit`'s function now (`inputs_as_given`)
_AS_GIVEN: list = []


@contextlib.contextmanager
def inputs_as_given():
    """While the next builder stages a function whose inputs carry a tangent exactly
    when the values passed for them do -- an inner `jit`'s, whose equation JAX
    differentiates with the tangents of its operands (no iteration feeds its results
    back, as a loop's) -- `perturbed` follows those values instead of assuming so: a
    constant passed to it is no JVP tracer to JAX, and a custom rule does not run for it."""
    _AS_GIVEN.append(len(core._state.builders))
    try:
        yield
    finally:
        _AS_GIVEN.pop()


def tangents_key(leaves) -> tuple:
    """What an inner `jit`'s staging for the values `leaves` depends on beyond their
    types while a differentiation stages around it: which of them carry a tangent (its
    inputs do as they do, `inputs_as_given`, so a custom rule runs or sees `perturbed`
    by them). JAX caches the jit equation's derivative by the same mask; () when none
    carries one (no differentiation: the key is the types alone)."""
    if not _FRAMES or not any(b in _FRAMES for b in core._state.builders):
        return ()
    mask = tuple(isinstance(x, core.Tracer) and perturbed(x) for x in leaves)
    return ("tangents", mask) if any(mask) else ()


def _as_given(b) -> bool:
    stack = core._state.builders
    return bool(_AS_GIVEN) and b in stack and stack.index(b) in _AS_GIVEN


def _given_to(b):
    """The values passed for the inputs of builder `b`, staging a function on known
    arguments (None: not known)."""
    stack = core._state.builders
    if b not in stack:
        return None
    at = stack.index(b)
    for depth, vals in reversed(_GIVEN):
        if depth == at:
            return vals if len(vals) == len(b.invars) else None
    return None


def reaches_tangent(x) -> bool:
    """Whether staged `x` carries a tangent of some differentiation staging now, as far
    as astjax can tell (JAX: `x` is a JVP tracer of any trace; a hi primitive's jvp rule
    runs for it): `perturbed`, following what was passed to a function staged inside a
    differentiation's (a loop body's initial carry and scanned values, a branch's
    operands, an inner jit's arguments) instead of assuming it. A carry that only the
    loop's iterations perturb is missed: never a false positive."""
    return perturbed(x, follow_given=True)


def perturbed(x, follow_given=False) -> bool:
    """Whether staged value `x` may carry a tangent of some differentiation staging now
    (JAX: `x` is a JVP tracer, of any trace; a custom rule runs for it): computed --
    through the values functions closed over and the values passed for inputs a
    differentiation does not differentiate -- from an input a differentiation
    differentiates, or from an input of a function staged inside a differentiation's
    (a loop body's: what it was given is not followed, so it may; an inner jit's
    input as the value passed for it, `inputs_as_given`). An
    input of a function staged around every differentiation (the jit that an eager
    transformation compiles, a user's jit) carries none: JAX's tracers there are not
    JVP tracers."""
    if not isinstance(x, core.Tracer) or x.known is not None:
        return False
    stack, seen = [x], set()
    while stack:
        t = stack.pop()
        b = t.builder
        if (id(b), t._var) in seen:
            continue
        seen.add((id(b), t._var))
        captured = {cv: tr for cv, tr in b.captures.values()}
        for v in _roots(b.producer, t._var):
            if v in captured:
                stack.append(captured[v])
                continue
            if v not in b.invars:
                continue   # a constant
            frame = _FRAMES.get(b)
            if frame is None:
                given = _given_to(b) if follow_given or _as_given(b) else None
                if given is not None:
                    src = given[b.invars.index(v)]
                    if isinstance(src, core.Tracer) and src.known is None:
                        stack.append(src)
                elif not follow_given and _inside_differentiation(b):
                    return True
                continue
            k = b.invars.index(v)
            if frame[0][k]:
                return True
            src = frame[1][k]
            if isinstance(src, core.Tracer) and src.known is None:
                stack.append(src)
    return False


def _inside_differentiation(b) -> bool:
    """Whether builder `b` stages a function inside some differentiation's (or is not on
    the stack any more: unknown, so it may be)."""
    stack = core._state.builders
    if b not in stack:
        return True
    at = stack.index(b)
    return any(bb in _FRAMES for bb in stack[:at])


# calls whose one sub-jaxpr takes the equation's operands and gives its results: a
# result depends on the operands its sub-jaxpr output does (loops feed results back)
_CALLS = ("jit", "closed_call", "remat2", "custom_jvp_call", "custom_vjp_call")


def _sources(producer, invars, var) -> set:
    """The positions of `invars` that `var` is computed from (`_roots`)."""
    roots = _roots(producer, var)
    return {i for i, v in enumerate(invars) if v in roots}


def _roots(producer, var) -> set:
    """The variables without a producer (inputs, constants, captures; `producer`: var ->
    its equation) that `var` is computed from, not through a `stop_gradient` or a
    primitive without derivative, and through a call only from the operands its result
    is computed from. (A piecewise-constant primitive -- floor, sign, round -- still
    counts: JAX's zero tangent there makes its result no JVP tracer, astjax does not
    tell.)"""
    found, stack, seen = set(), [var], set()
    while stack:
        v = stack.pop()
        if not isinstance(v, core.Var) or v in seen:
            continue
        seen.add(v)
        eqn = producer.get(v)
        if eqn is None:
            found.add(v)
            continue
        if eqn.primitive is stop_gradient_p or getattr(eqn.primitive, "nondiff", False):
            continue
        sub = _call_jaxpr(eqn)
        if sub is None:
            stack.extend(eqn.invars)
        else:
            inner = sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub
            stack.extend(eqn.invars[i] for i in _sources(
                _producers(inner), inner.invars, inner.outvars[eqn.outvars.index(v)]))
    return found


def _call_jaxpr(eqn):
    """The sub-jaxpr of a call equation aligned with its operands and results, or None
    (then every result depends on every operand: also a `custom_jvp_call` whose rule an
    eager jvp ran on values, `ad_eager_values`, whose body only returns what it gave)."""
    if eqn.primitive.name not in _CALLS or getattr(
            eqn.params.get("jvp_jaxpr_fun"), "values", None) is not None:
        return None
    for p in eqn.params.values():
        inner = p.jaxpr if isinstance(p, core.ClosedJaxpr) else p
        if (isinstance(inner, core.Jaxpr) and len(inner.invars) == len(eqn.invars)
                and len(inner.outvars) == len(eqn.outvars)):
            return p
    return None


def _producers(jaxpr) -> dict:
    return {v: e for e in jaxpr.eqns for v in e.outvars}


def _concrete_to_jax(x) -> bool:
    """Whether staged `x` is, to JAX's op-by-op evaluation, a JVP tracer whose primal is
    concrete: `x` carries a tangent of the differentiation staging its builder, and
    every builder from the outermost eager transformation's function to that one stages
    an eager differentiation's own function (no `vmap`, `checkpoint`, loop body or inner
    `jit` between: JAX's tracers there are abstract). JAX's `convert_element_type` to
    the operand's own type hands back an abstract operand and converts a concrete one."""
    stack, marked = core._state.builders, core._state.op_by_op
    if not marked or not stack or x.builder is not stack[-1] or not carries_tangent(x):
        return False
    return all(i in marked and stack[i] in _FRAMES
               for i in range(min(marked), len(stack)))


structural.concrete_to_jax = _concrete_to_jax
