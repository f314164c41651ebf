"""Solving dimension variables at a call of a symbolic export (astjax/shape_poly.py).

An exported function's arguments have symbolic shapes; at a call, `solution_plan`
says how each dimension variable follows from the actual sizes (`b` from a
dimension `2*b + 1`), `solve` computes the values and checks every dimension and the
scope's constraints against them, raising JAX's "Input shapes do not match ..."
errors when they do not fit.
"""
from __future__ import annotations

from .errors import JAXValueError
from .shape_poly_expr import DimExpr, evaluate, variables

__all__ = ["solution_plan", "solve", "constraint_checks", "constraint_error", "spec_text"]


def _linear_in(e, v):
    """(k, rest) with `e == k*v + rest` and `rest` free of `v`, or None."""
    if not isinstance(e, DimExpr) or v not in variables(e):
        return None
    mono = ((("var", v), 1),)
    k = dict(e._terms).get(mono)
    if k is None:
        return None
    rest = e - k * DimExpr._atom(("var", v), e.scope)
    return (k, rest) if v not in variables(rest) else None


def solution_plan(shapes) -> list:
    """How the dimension variables of `shapes` (the exported arguments' symbolic
    shapes) follow from the actual sizes: `(var, arg, axis, k, rest)` steps, each
    `var = (shapes[arg][axis]'s size - rest) // k`, `rest` using earlier variables only.
    A JAX ValueError when some variable cannot be solved for."""
    wanted = variables([d for s in shapes for d in s])
    known: list[str] = []
    plan = []
    progress = True
    while progress and len(known) < len(wanted):
        progress = False
        for i, shape in enumerate(shapes):
            for axis, d in enumerate(shape):
                unknown = [v for v in variables(d) if v not in known]
                if len(unknown) != 1:
                    continue
                lin = _linear_in(d, unknown[0])
                if lin is not None:
                    plan.append((unknown[0], i, axis, *lin))
                    known.append(unknown[0])
                    progress = True
    missing = [v for v in wanted if v not in known]
    if missing:
        raise JAXValueError(
            "Cannot solve for values of dimension variables "
            f"{{{', '.join(repr(v) for v in missing)}}}. We can only solve linear uni-variate "
            "constraints. Using the following polymorphic shapes specifications: "
            + ", ".join(f"args[{i}].shape = {tuple(s)}" for i, s in enumerate(shapes)),
            hint="make each dimension variable appear alone (or as k*v + c) in some "
                 "argument's shape")
    return plan


def solve(shapes, actual, arg_names) -> dict:
    """The dimension variables' values (name -> int, or a dimension when the actual
    shapes are symbolic) for arguments of shapes `actual` called where `shapes` were
    exported; JAX's ValueErrors when they do not fit ("Input shapes do not match the
    polymorphic shapes specification ...")."""
    plan = solution_plan(shapes)
    env: dict = {}
    how = []
    specs = spec_text(arg_names, shapes)

    def fail(what, head="Input shapes do not match the polymorphic shapes specification.",
             end=". "):
        raise JAXValueError(
            f"{head + ' ' if head else ''}{what}{end}"
            f"Using the following polymorphic shapes specifications: {specs}. Obtained "
            f"dimension variables: {''.join(how)}. Please see https://docs.jax.dev/en/latest/"
            "export/shape_poly.html#shape-assertion-errors for more details.", hint="")
    for v, i, axis, k, rest in plan:
        size = actual[i][axis]
        q, r = divmod(size - evaluate(rest, env), k)
        if not isinstance(r, int) or r != 0:
            fail(f"Division had remainder {r} when computing the value of '{v}'")
        env[v] = q
        how.append(f"'{v}' = {q} from specification '{shapes[i][axis]}' for dimension "
                   f"{arg_names[i]}.shape[{axis}] (= {size}), ")
    for v, *_ in plan:
        if isinstance(env[v], int) and env[v] < 1:
            fail(f"Expected value >= 1 for dimension variable '{v}'")
    for i, shape in enumerate(shapes):
        for axis, d in enumerate(shape):
            want = evaluate(d, env)
            if want != actual[i][axis]:
                fail(f"Found inconsistency between dimension size {arg_names[i]}.shape[{axis}] "
                     f"(= {actual[i][axis]}) and the specification '{d}' (= {want})")
    scope = next((d.scope for s in shapes for d in s if isinstance(d, DimExpr)), None)
    for text, g, eq in constraint_checks(scope, env):
        val = evaluate(g, env)
        if isinstance(val, int) and (val != 0 if eq else val < 0):
            fail(constraint_error(text, g, eq, val), head="", end=".  ")
    return env


def spec_text(names, shapes):
    """JAX's text of the arguments' specifications in a shape assertion's error."""
    return ",".join(f"{n}.shape = ({', '.join(map(str, s))}{',' if len(s) == 1 else ''})"
                    for n, s in zip(names, shapes))


def constraint_error(text, g, eq, found):
    """The start of JAX's error when a call breaks the constraint `text` (`g >= 0`,
    or `g == 0` when `eq`); `found` is `g`'s value (or its placeholder)."""
    return (f"Input shapes do not match the symbolic shape constraint {text}. Expected "
            f"'{g}' to be {'equal' if eq else 'greater or equal'} to 0, but found {found}")


def constraint_checks(scope, known):
    """`(text, g, eq)` for each constraint of `scope` to check at a call (`g >= 0`,
    `g == 0` when `eq`) whose variables are all in `known` (a variable an equality
    constraint rewrote away appears in no argument's shape)."""
    if scope is None:
        return []
    return [(text, g, eq) for g, eq, text in scope._facts
            if set(variables(g)) <= set(known)]
