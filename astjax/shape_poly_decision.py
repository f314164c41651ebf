"""Bounds of symbolic dimensions: the decision procedure behind their comparisons.

`bounds(e)` is an interval `[lo, hi]` (ints, or infinities) holding every value
the dimension `e` takes for the values of its variables its scope allows
(astjax/shape_poly.py). It works on *facts* `g >= 0` and `g == 0` over monomials:

- the scope's explicit constraints, each also combined once with the facts met
  before it so that one term cancels (`a >= b + 1` and `b >= c + 1` give
  `a - c - 2 >= 0`);
- implicit facts of the monomials `e` uses: a variable is >= 1; `mod(x, k)` lies in
  `[0, k - 1]` for a positive divisor; `k*floordiv(x, k) + mod(x, k) == x`; `max`
  is at least each operand, `min` at most; a product lies among the products of its
  factors' bounds.

A single-monomial fact is kept as that monomial's interval, any other under its
leading monomial. `e`'s bounds come from eliminating its leading monomial with each
fact led by it (`e*s + c*g` has only smaller monomials; its bounds bound `e`),
recursively, and, for a leading `max` or `min`, from replacing it by its operands.
This is JAX's procedure in outline, so the same comparisons are decided and the
same ones are inconclusive. Results are cached per scope and expression.
"""
from __future__ import annotations

import math

from .shape_poly_expr import DimExpr, _inconclusive, _mono_key

__all__ = ["bounds"]

_INF = math.inf


def _sgn(x):
    return 1 if x >= 0 else -1


def _poly(x) -> dict:
    if isinstance(x, DimExpr):
        return dict(x._terms)
    return {(): x} if x else {}


def _lin(p1, k1, p2, k2) -> dict:
    """`k1*p1 + k2*p2` without zero coefficients."""
    out = {m: k * k1 for m, k in p1.items()}
    for m, k in p2.items():
        out[m] = out.get(m, 0) + k * k2
    return {m: k for m, k in out.items() if k != 0}


def _sorted(p):
    return sorted(p.items(), key=lambda t: _mono_key(t[0]), reverse=True)


def _ceil_div(a, b):
    return -((-a) // b)


def _floor_div_inf(a, b):
    """`a // b` with `a` or `b` possibly infinite (its limit)."""
    if math.isinf(b):
        if math.isinf(a):
            return -_INF if (a >= 0) != (b >= 0) else _INF
        return -1 if (a >= 0) != (b >= 0) else 0
    if math.isinf(a):
        return -_INF if (a >= 0) != (b >= 0) else _INF
    return a // b


def _mul_inf(u, v):
    return 0 if 0 in (u, v) else u * v


class _State:
    """The facts known in a scope: monomial intervals and facts by leading monomial."""

    def __init__(self, scope):
        self.scope = scope
        self.term_bounds: dict = {}
        self.by_lead: dict = {}
        self.done: set = set()

    def copy(self):
        s = _State(self.scope)
        s.term_bounds = dict(self.term_bounds)
        s.by_lead = {m: list(v) for m, v in self.by_lead.items()}
        s.done = set(self.done)
        return s

    # ------------------------------------------------------------ adding facts
    def add(self, p: dict, eq: bool, text=None):
        """Record `p >= 0` (`p == 0` when `eq`) and its combinations with the facts
        that share a monomial with it."""
        p = {m: k for m, k in p.items() if k != 0}
        if all(m == () for m in p):
            c = p.get((), 0)
            if c < 0 or (eq and c != 0):
                raise ValueError(f"Unsatisfiable constraint: {text or _text(p)}")
            return
        new = []
        for t, k in p.items():
            if t == ():
                continue
            for c_eq, c, c_s, t_s in self.candidates(t, k, only_lead=False):
                if t_s > 0 or eq:
                    comb = _lin(p, t_s, c, c_s)
                    new.append((comb, eq and c_eq))
        self._store(p, eq, text)
        for comb, ceq in new:
            if all(m == () for m in comb):
                c = comb.get((), 0)
                if c < 0 or (ceq and c != 0):
                    raise ValueError(f"Unsatisfiable constraints: {text or _text(p)}")
                continue
            self._store(comb, ceq, text)

    def _store(self, p, eq, text):
        terms = [(m, k) for m, k in p.items() if m != ()]
        if len(terms) == 1:
            (t, k), n = terms[0], p.get((), 0)
            lo, hi = self.term_bounds.get(t, (-_INF, _INF))
            if eq:
                if n % k:
                    raise ValueError(f"Unsatisfiable constraint: {text or _text(p)}")
                lo, hi = max(lo, -(n // k)), min(hi, -(n // k))
            elif k > 0:
                lo = max(lo, _ceil_div(-n, k))
            else:
                hi = min(hi, (-n) // k)
            if lo > hi:
                raise ValueError(f"Unsatisfiable constraint: {text or _text(p)}")
            self.term_bounds[t] = (lo, hi)
            return
        lead = _sorted(p)[0][0]
        facts = self.by_lead.setdefault(lead, [])
        if (eq, p) not in facts:
            facts.append((eq, p))

    def candidates(self, t, k, only_lead):
        """Facts that eliminate `k*t`: `(eq, g, g_s, e_s)` with `e_s*k*t + g_s*g`
        free of `t`, `g_s > 0`."""
        out = []
        lo, hi = self.term_bounds.get(t, (-_INF, _INF))
        if lo == hi:
            out.append((True, _lin({t: 1}, 1, {(): lo}, -1), abs(k), -_sgn(k)))
        else:
            if lo > -_INF:
                out.append((False, _lin({t: 1}, 1, {(): lo}, -1), abs(k), -_sgn(k)))
            if hi < _INF:
                out.append((False, _lin({t: -1}, 1, {(): hi}, 1), abs(k), _sgn(k)))
        groups = [self.by_lead.get(t, ())] if only_lead else list(self.by_lead.values())
        for facts in groups:
            for eq, g in facts:
                tk = g.get(t)
                if tk is not None:
                    out.append((eq, g, abs(k), -tk * _sgn(k)))
        return out

    # ------------------------------------------------------------ bounds
    def bounds(self, p: dict, depth=0):
        """An interval holding `p`'s values."""
        if not p:
            return 0, 0
        (t, k), *_ = terms = _sorted(p)
        if t == ():
            return k, k
        if depth > 40:
            return -_INF, _INF
        lo, hi = -_INF, _INF
        for c_eq, c, c_s, t_s in self.candidates(t, k, only_lead=True):
            rlo, rhi = self.bounds(_lin(p, t_s, c, c_s), depth + 1)
            if rhi < _INF:
                if t_s > 0:
                    hi = min(hi, rhi // t_s)
                else:
                    lo = max(lo, _ceil_div(rhi, t_s))
            if c_eq and rlo > -_INF:
                if t_s > 0:
                    lo = max(lo, _ceil_div(rlo, t_s))
                else:
                    hi = min(hi, rlo // t_s)
        if len(t) == 1 and t[0][1] == 1 and t[0][0][0] in ("max", "min"):
            kind, (op1, op2) = t[0][0]
            rest = {m: c for m, c in terms[1:]}
            b1 = self.bounds(_lin(rest, 1, _poly(op1), k), depth + 1)
            b2 = self.bounds(_lin(rest, 1, _poly(op2), k), depth + 1)
            pick = max if (k > 0) == (kind == "max") else min
            lo, hi = max(lo, pick(b1[0], b2[0])), min(hi, pick(b1[1], b2[1]))
        return lo, hi

    # ------------------------------------------------------------ implicit facts
    def implicit_expr(self, e):
        for t, _ in _poly(e).items():
            if t != ():
                self.implicit_term(t)

    def _range(self, te, lo, hi):
        if lo > -_INF:
            self.add(_lin(te, 1, {(): lo}, -1), False)
        if hi < _INF:
            self.add(_lin(te, -1, {(): hi}, 1), False)

    def implicit_term(self, t):
        if t in self.done:
            return
        self.done.add(t)
        te = {t: 1}
        if len(t) > 1 or t[0][1] > 1:     # a product: among its factors' bounds
            ranges = []
            for atom, power in t:
                f = ((atom, 1),)
                self.implicit_term(f)
                lo, hi = self.bounds({f: 1})
                ends = [lo ** power if lo > -_INF or power % 2 else _INF,
                        hi ** power if hi < _INF else _INF]
                if power % 2 == 0 and lo < 0 < hi:
                    ends.append(0)
                ranges.append((min(ends), max(ends)))
            prods = [1]
            for lo, hi in ranges:
                prods = [_mul_inf(p, v) for p in prods for v in (lo, hi)]
            self._range(te, min(prods), max(prods))
            return
        kind, val = t[0][0]
        if kind == "var":
            self.add(_lin(te, 1, {(): 1}, -1), False)
            return
        for op in val:
            self.implicit_expr(op)
        op1, op2 = val
        p1, p2 = _poly(op1), _poly(op2)
        if kind == "mod":
            lo2, hi2 = self.bounds(p2)
            if lo2 > 0:
                self.add(te, False)
                self.add(_lin(_lin(p2, 1, {(): 1}, -1), 1, te, -1), False)   # op2 - 1 - t
                if hi2 < _INF:
                    self.add(_lin({(): hi2 - 1}, 1, te, -1), False)
            elif hi2 < 0:
                self.add(_lin(_lin(te, 1, p2, -1), 1, {(): 1}, -1), False)
                if lo2 > -_INF:
                    self.add(_lin(te, 1, {(): lo2 + 1}, -1), False)
                self.add(_lin({}, 1, te, -1), False)
        elif kind == "floordiv":
            (lo1, hi1), (lo2, hi2) = self.bounds(p1), self.bounds(p2)
            if lo2 <= 0 <= hi2:
                raise _inconclusive(f"Possible division by 0 in division by {op2}")
            ends = [_floor_div_inf(a, b) for a in (lo1, hi1) for b in (lo2, hi2)]
            self._range(te, min(ends), max(ends))
            if lo2 >= 0:
                if lo1 >= 0:
                    self.add(te, False)
                scope = self.scope
                mod_e = DimExpr._atom(("mod", (op1, op2)), scope)
                self.implicit_expr(mod_e)
                t_e = DimExpr._atom(t[0][0], scope)
                self.add(_poly(op1 - (op2 * t_e + mod_e)), True)
        else:   # max / min
            (lo1, hi1), (lo2, hi2) = self.bounds(p1), self.bounds(p2)
            pick = max if kind == "max" else min
            self._range(te, pick(lo1, lo2), pick(hi1, hi2))
            for p in (p1, p2):
                self.add(_lin(te, 1, p, -1) if kind == "max" else _lin(p, 1, te, -1), False)


def _text(p):
    return f"{DimExpr._make(dict(p), None)} >= 0" if p else "0 >= 0"


def _initial(scope):
    """The scope's state after its explicit constraints (built once per scope)."""
    state = scope._decision_state
    if state is None:
        state = _State(scope)
        for g, eq, text in scope._facts:
            state.implicit_expr(g)
            state.add(_poly(g), eq, text)
        scope._decision_state = state
    return state


def bounds(e):
    """`(lo, hi)`: every value of the dimension `e` lies in `[lo, hi]` (ints, or
    -inf / inf when unbounded)."""
    if not isinstance(e, DimExpr):
        return e, e
    cache = e.scope._bounds_cache
    got = cache.get(e._terms)
    if got is None:
        state = _initial(e.scope).copy()
        state.implicit_expr(e)
        got = cache[e._terms] = state.bounds(_poly(e))
    return got
