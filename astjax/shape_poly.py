"""Shape polymorphism for `jax.export`: symbolic dimensions and their scopes.

The dimensions themselves are astjax/shape_poly_expr.py's `DimExpr` polynomials; this
module adds the `SymbolicScope` their variables live in (its constraints decided by
astjax/shape_poly_decision.py, its equality constraints applied as rewrites) and
`symbolic_shape`, JAX's way to make them from a specification string
(astjax/shape_poly_parse.py), and gathers the names the rest of astjax uses, with
solving the variables at a call (astjax/shape_poly_solve.py).
"""
from __future__ import annotations

import re

from .errors import JAXValueError
from .shape_poly_decision import bounds
from .shape_poly_expr import (INT_OPS, DimExpr, canonical_dim, canonical_shape, evaluate,
                              is_symbolic_dim, shape_entries, symbolic_quotient,
                              symbolic_slice_indices, variables)
from .shape_poly_parse import parse_expr, parse_spec
from .shape_poly_solve import constraint_checks, solution_plan, solve

__all__ = ["DimExpr", "SymbolicScope", "symbolic_shape", "is_symbolic_dim", "evaluate",
           "variables", "parse_spec", "INT_OPS", "canonical_shape", "canonical_dim",
           "shape_entries",
           "symbolic_quotient", "symbolic_slice_indices", "solution_plan",
           "solve", "constraint_checks"]


class SymbolicScope:
    """The constraints dimension variables obey, e.g.
    `SymbolicScope(("a >= b", "b <= 16"))`; dimensions of different scopes never mix.
    Every variable is >= 1 in every scope. An equality constraint `k*t == e` (its
    left side one term) is also a rewrite: every dimension built in the scope has
    `k*t` replaced by `e`, as in JAX."""

    def __init__(self, constraints_str: tuple[str, ...] | list[str] = ()):
        if isinstance(constraints_str, str):
            raise JAXValueError("The symbolic constraints should be a sequence of strings. "
                                f"Got {constraints_str!r}")
        self._constraints_str = tuple(constraints_str)
        self._rules: dict = {}          # monomial -> (replacement, its coefficient)
        self._facts: list = []          # (g, is_equality, text): `g >= 0` / `g == 0`
        self._decision_state = None     # (astjax/shape_poly_decision.py)
        self._bounds_cache: dict = {}
        for c in self._constraints_str:
            if not isinstance(c, str):
                raise JAXValueError(f"SymbolicScope constraint must be a string: got {c!r}")
            m = re.fullmatch(r"(.*?)(==|>=|<=)(.*)", c)
            if m is None:
                raise JAXValueError("Constraint parsing error: must contain one of '==' or "
                                    "'>=' or '<='")
            lhs, cmp, rhs = (parse_expr(m.group(1), self, c), m.group(2),
                             parse_expr(m.group(3), self, c))
            if cmp == "<=":
                lhs, rhs = rhs, lhs
            self._constrain(lhs, rhs, cmp == "==", c)

    def _constrain(self, lhs, rhs, eq, text):
        g = lhs - rhs    # (before this constraint's rewrite: checked as it is at a call)
        if isinstance(g, int):
            if g < 0 or (eq and g != 0):
                raise JAXValueError(f"Unsatisfiable explicit constraint: {text}")
            return
        if eq:
            if not isinstance(lhs, DimExpr) or len(lhs._terms) != 1:
                raise JAXValueError("Invalid equality constraint: {e1} == {e2}. The "
                                    "left-hand-side must be of the form `term * coefficient`.")
            [(mono, k)] = lhs._terms
            if mono in self._rules:
                raise NotImplementedError("Found multiple equality constraints with the same "
                                          f"left-hand-side: {DimExpr(((mono, 1),), self)}")
            self._rules[mono] = (rhs, k)
            if k == 1 and rhs == 0 and len(mono) == 1 and mono[0][1] == 1:
                (kind, ops), _ = mono[0]
                if kind == "mod" and isinstance(ops[1], int):
                    # mod(x, k) == 0 also rewrites k*floordiv(x, k) to x
                    fd = DimExpr._atom(("floordiv", ops), self) * ops[1]
                    self._constrain(fd, ops[0], True, f"{fd} == {ops[0]}")
        self._facts.append((g, eq, text))

    def __str__(self):
        extra = "".join(f"\n  {c}" for c in self._constraints_str)
        return f"SymbolicScope({len(self._constraints_str)} constraints){extra}"
    __repr__ = __str__

    def bounds(self, e):
        """An interval `(lo, hi)` holding every value of the dimension `e`."""
        return bounds(e)

    def geq(self, e) -> bool | None:
        """True if `e >= 0` for every value of the variables, False if `e < 0` for
        every value, None when that depends on them."""
        lo, hi = bounds(e)
        return True if lo >= 0 else (False if hi < 0 else None)


def symbolic_shape(shape_spec: str | None, *, constraints=(), scope=None, like=None) -> tuple:
    """The shape a specification string describes, its variables dimensions of
    `scope` (a new `SymbolicScope(constraints)` by default), e.g.
    `a, b = symbolic_shape("a, b", constraints=("a >= b",))`."""
    if scope is not None and constraints:
        raise JAXValueError("Cannot specify both a `scope` and `constraints`.")
    if shape_spec is None:
        shape_spec = "..."
    if not isinstance(shape_spec, str):
        raise JAXValueError("polymorphic shape spec should be None or a string. "
                            f"Found {shape_spec!r}.")
    scope = scope if scope is not None else SymbolicScope(tuple(constraints))
    return parse_spec(shape_spec, scope, like)

