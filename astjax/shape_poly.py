"""Symbolic dimensions: the shape sizes of `jax.export`'s shape polymorphism.

A `DimExpr` is a polynomial with integer coefficients over *atoms*: dimension
variables (`b`) and the operations polynomials are not closed under
(`floordiv(e, k)`, `mod(e, k)`, `max(e1, e2)`, `min(e1, e2)`). It supports the
integer arithmetic shape rules do (`+ - * // % **`), so that an aval's shape may hold
one and every rule computing sizes works unchanged; a result that is a constant is a
plain `int`. Comparisons are decided over all values the variables may take (each
variable is >= 1, tightened by a `SymbolicScope`'s constraints); an undecidable one
raises JAX's `InconclusiveDimensionOperation`, as does `int(d)`. `==` is structural
(it must not raise: dimensions are hashed), as in JAX.

`evaluate(e, env, ops)` computes an expression from the variables' values with the
arithmetic `ops` gives: Python ints at call time (`DimExpr.evaluate`), StableHLO
values when a module computes a dynamic shape (astjax/export/polymorphic.py).
`symbolic_shape` and `symbolic_args_specs` parse JAX's shape specifications.
"""
from __future__ import annotations

import math
import operator
import re
from typing import Any

from .errors import AstjaxError, InconclusiveDimensionOperation, JAXValueError

__all__ = ["DimExpr", "SymbolicScope", "symbolic_shape", "is_symbolic_dim", "evaluate",
           "variables", "parse_spec", "INT_OPS", "canonical_shape", "canonical_dim",
           "symbolic_quotient", "symbolic_slice_indices", "solution_plan",
           "solve", "constraint_texts"]

_HELP = ("\nThis error arises for comparison operations with shapes that are non-constant, "
         "and the result of the operation cannot be represented as a boolean value for "
         "all values of the symbolic dimensions involved.\n\nPlease see "
         "https://docs.jax.dev/en/latest/export/shape_poly.html#comparison-of-symbolic-"
         "dimensions-is-partially-supported for more details.")


def _inconclusive(message):
    return InconclusiveDimensionOperation(message + _HELP, hint="")


def is_symbolic_dim(d: Any) -> bool:
    """Whether `d` is a symbolic dimension (not a constant)."""
    return isinstance(d, DimExpr)


class SymbolicScope:
    """The constraints dimension variables obey, e.g.
    `SymbolicScope(("a >= b", "b <= 16"))`; dimensions of different scopes never mix.
    Every variable is >= 1 in every scope."""

    def __init__(self, constraints_str: tuple[str, ...] | list[str] = ()):
        if isinstance(constraints_str, str):
            raise JAXValueError("The symbolic constraints should be a sequence of strings. "
                                f"Got {constraints_str!r}")
        self._constraints_str = tuple(constraints_str)
        self._geq: list[DimExpr | int] = []   # each constraint as `g >= 0`
        for c in self._constraints_str:
            m = re.fullmatch(r"(.*?)(>=|<=|==)(.*)", c)
            if m is None:
                raise JAXValueError(f"Constraint parsing error: must contain one of '==' or "
                                    f"'>=' or '<=': {c!r}")
            lhs, cmp, rhs = (_parse_expr(m.group(1), self, c), m.group(2),
                             _parse_expr(m.group(3), self, c))
            diffs = {">=": [lhs - rhs], "<=": [rhs - lhs], "==": [lhs - rhs, rhs - lhs]}[cmp]
            for g in diffs:
                if isinstance(g, int):
                    if g < 0:
                        raise JAXValueError(f"Unsatisfiable explicit constraint: {c}")
                    continue
                self._geq.append(g)

    def __str__(self):
        extra = "".join(f"\n  {c}" for c in self._constraints_str)
        return f"SymbolicScope({len(self._constraints_str)} constraints){extra}"
    __repr__ = __str__

    def _var_bounds(self, name):
        """The interval a variable lies in: [1, inf) tightened by the constraints
        that involve it alone (`b <= 16`, `b >= 3`)."""
        lo, hi = 1, math.inf
        for g in self._geq:
            terms = dict(g._terms)
            c = terms.pop((), 0)
            if len(terms) == 1:
                [(mono, k)] = terms.items()
                if mono == ((("var", name), 1),):   # k*b + c >= 0
                    if k > 0:
                        lo = max(lo, -(c // k))
                    else:
                        hi = min(hi, c // -k)
        return lo, hi

    def geq(self, e) -> bool | None:
        """True if `e >= 0` for every value of the variables, False if `e < 0` for
        every value, None when that depends on them."""
        if self._nonneg(e):
            return True
        if self._nonneg(-e - 1):
            return False
        return None

    def _nonneg(self, e, depth=0) -> bool:
        """Whether `e >= 0` is proved: by interval bounds, by a constraint `g >= 0`
        with `e - g` bounded below by 0, or by replacing a `min` with a negative
        coefficient (a `max` with a positive one) by one of its operands, which
        makes `e` no larger (`a - min(a, b) >= a - a`)."""
        if isinstance(e, int):
            return e >= 0
        if _bounds(e)[0] >= 0:
            return True
        for g in self._geq:
            d = e - g
            if (d >= 0) if isinstance(d, int) else _bounds(d)[0] >= 0:
                return True
        if depth < 3:
            for mono, k in e._terms:
                if len(mono) == 1 and mono[0][1] == 1 and mono[0][0][0] in ("min", "max"):
                    kind, args = mono[0][0]
                    if (kind == "min") == (k < 0):
                        atom = DimExpr._atom(mono[0][0], self)
                        if any(self._nonneg(e - k * atom + k * a, depth + 1) for a in args):
                            return True
        return False


class DimExpr:
    """A symbolic dimension: `sum(coefficient * monomial)`, the monomials products
    of atoms raised to positive powers. A constant result is returned as an `int`."""
    __slots__ = ("_terms", "scope", "_hash")

    def __init__(self, terms, scope: SymbolicScope):
        # terms: tuple of (monomial, coefficient), monomial a sorted tuple of
        # (atom, power); an atom is ("var", name) or (op, (operands...))
        self._terms = terms
        self.scope = scope
        self._hash = None

    # ------------------------------------------------------------ construction
    @staticmethod
    def _make(poly: dict, scope):
        items = [(m, k) for m, k in poly.items() if k != 0]
        if not items:
            return 0
        if len(items) == 1 and items[0][0] == ():
            return items[0][1]
        items.sort(key=lambda t: _mono_key(t[0]), reverse=True)
        return DimExpr(tuple(items), scope)

    @staticmethod
    def _atom(atom, scope):
        return DimExpr((((((atom, 1),), 1)),), scope)

    def _poly(self) -> dict:
        return dict(self._terms)

    def _coerce(self, other, what):
        if isinstance(other, DimExpr):
            if other.scope is not self.scope:
                raise JAXValueError(f"Invalid mixing of symbolic scopes for {what}.")
            return other._poly()
        try:
            return {(): int(_index(other))}
        except TypeError:
            return None

    # ------------------------------------------------------------ arithmetic
    def __add__(self, other):
        q = self._coerce(other, "linear combination")
        if q is None:
            return NotImplemented
        p = self._poly()
        for m, k in q.items():
            p[m] = p.get(m, 0) + k
        return DimExpr._make(p, self.scope)
    __radd__ = __add__

    def __neg__(self):
        return DimExpr._make({m: -k for m, k in self._terms}, self.scope)

    def __sub__(self, other):
        q = self._coerce(other, "linear combination")
        if q is None:
            return NotImplemented
        return self + DimExpr._make({m: -k for m, k in q.items()}, self.scope)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, other):
        q = self._coerce(other, "multiplication")
        if q is None:
            return NotImplemented
        p: dict = {}
        for m1, k1 in self._terms:
            for m2, k2 in q.items():
                m = _mono_mul(m1, m2)
                p[m] = p.get(m, 0) + k1 * k2
        return DimExpr._make(p, self.scope)
    __rmul__ = __mul__

    def __pow__(self, power, modulo=None):
        if modulo is not None or not isinstance(power, int):
            raise JAXValueError(f"Symbolic dimension cannot be raised to non-integer "
                                f"powers: '{self}' ** '{power}'")
        if power < 0:
            raise JAXValueError(f"Symbolic dimension cannot be raised to negative powers: "
                                f"'{self}' ** '{power}'")
        return math.prod([self] * power, start=1)

    def _divmod(self, divisor):
        """(quotient, remainder) as integer floor division: exact polynomial division
        when it exists, else the `floordiv` / `mod` atoms."""
        q = self._coerce(divisor, "division")
        if q is None:
            return NotImplemented
        if q == {(): 0}:
            raise ZeroDivisionError(f"Symbolic dimension division by zero: '{self}' // 0")
        if len(q) == 1 and () in q:          # by a constant: term by term
            k = q[()]
            const = self._poly().get((), 0)
            if all(c % k == 0 for m, c in self._terms if m != ()):
                quot = {m: c // k for m, c in self._terms if m != ()}
                qc, r = divmod(const, k)
                quot[()] = qc
                return DimExpr._make(quot, self.scope), r
        elif self._poly() == q:
            return 1, 0
        d = divisor
        return (DimExpr._atom(("floordiv", (self, d)), self.scope),
                DimExpr._atom(("mod", (self, d)), self.scope))

    def __floordiv__(self, divisor):
        r = self._divmod(divisor)
        return r if r is NotImplemented else r[0]

    def __mod__(self, divisor):
        r = self._divmod(divisor)
        return r if r is NotImplemented else r[1]

    def __divmod__(self, divisor):
        return self._divmod(divisor)

    def __rfloordiv__(self, other):
        return _as_dim(other, self.scope)._divmod(self)[0]

    def __rmod__(self, other):
        return _as_dim(other, self.scope)._divmod(self)[1]

    def max(self, other):
        """`max(self, other)`, decided when the comparison is, else a `max` atom."""
        return _minmax("max", self, other)

    def min(self, other):
        """`min(self, other)`, decided when the comparison is, else a `min` atom."""
        return _minmax("min", self, other)

    # ------------------------------------------------------------ comparisons
    def __eq__(self, other):
        if isinstance(other, DimExpr):
            return self._terms == other._terms
        try:
            _index(other)
        except TypeError:
            return NotImplemented
        return False   # (a constant is normalized to an int)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._terms)
        return self._hash

    def _geq(self, other, text):
        q = self._coerce(other, "comparison")
        if q is None:
            raise TypeError(f"Symbolic dimension comparison not supported for {other!r}")
        diff = self - DimExpr._make(q, self.scope)
        ans = self.scope.geq(diff)
        if ans is None:
            cons = (f"\nUsing symbolic scope {self.scope}"
                    if self.scope._constraints_str else "")
            raise _inconclusive(f"Symbolic dimension comparison {text} is inconclusive."
                                + cons)
        return ans

    def __ge__(self, other):
        return self._geq(other, f"'{self}' >= '{other}'")

    def __le__(self, other):
        return _as_dim(other, self.scope)._geq(self, f"'{self}' <= '{other}'")

    def __gt__(self, other):
        return not _as_dim(other, self.scope)._geq(self, f"'{self}' > '{other}'")

    def __lt__(self, other):
        return not self._geq(other, f"'{self}' < '{other}'")

    # ------------------------------------------------------------ conversions
    def __int__(self):
        raise _inconclusive(f"Symbolic dimension '{self}' used in a context that requires "
                            "a constant")
    __index__ = __int__

    def __bool__(self):
        return True   # (a dimension is >= 1)

    def __str__(self):
        out = []
        for i, (m, k) in enumerate(self._terms):
            if m == ():
                body, k = str(abs(k)), (1 if k > 0 else -1)
            else:
                body = "*".join(_atom_str(a) + (f"^{p}" if p > 1 else "")
                                for a, p in sorted(m, key=lambda ap: _atom_key(ap[0])))
                if abs(k) != 1:
                    body = f"{abs(k)}*{body}"
            sign = "- " if k < 0 else ("" if i == 0 else "+ ")
            out.append(sign + body)
        return " ".join(out)
    __repr__ = __str__

    def evaluate(self, env: dict):
        """The dimension's value for the variables' values in `env` (name -> int)."""
        return evaluate(self, env, INT_OPS)

    def dimension_as_value(self):
        """(JAX's method) the dimension as a value: only inside a staged function."""
        raise NotImplementedError("Evaluation rule for 'dim_as_value' is not implemented. "
                                  "It seems that you are using shape polymorphism outside "
                                  "jax.export.")


# ---------------------------------------------------------------- helpers


_index = operator.index


def _as_dim(x, scope):
    if isinstance(x, DimExpr):
        return x
    return DimExpr(((((), _index(x)),)), scope)


def _mono_mul(m1, m2):
    powers = dict(m1)
    for a, p in m2:
        powers[a] = powers.get(a, 0) + p
    return tuple(sorted(powers.items(), key=lambda ap: _atom_key(ap[0])))


def _atom_key(atom):
    kind, val = atom
    return (0, val) if kind == "var" else (1, kind, tuple(str(v) for v in val))


def _mono_key(mono):
    # terms print by decreasing degree, then by their atoms (JAX's `b + a`, `a*b + b`)
    return (sum(p for _, p in mono), [(_atom_key(a), p) for a, p in reversed(mono)])


def _atom_str(atom):
    kind, val = atom
    return val if kind == "var" else f"{kind}({', '.join(map(str, val))})"


def _minmax(kind, a, b):
    scope = a.scope if isinstance(a, DimExpr) else b.scope
    ge = scope.geq(a - b)
    if ge is True:
        return a if kind == "max" else b
    if scope.geq(b - a) is True:
        return b if kind == "max" else a
    return DimExpr._atom((kind, (a, b)), scope)


def _interval_mul(x, y):
    prods = [0 if 0 in (u, v) else u * v for u in x for v in y]
    return min(prods), max(prods)


def _bounds(e):
    """An interval holding every value of `e` (variables >= 1 and their scope's
    single-variable constraints)."""
    if isinstance(e, int):
        return e, e
    lo = hi = 0
    for mono, k in e._terms:
        b = (1, 1)
        for atom, p in mono:
            ab = _atom_bounds(atom, e.scope)
            for _ in range(p):
                b = _interval_mul(b, ab)
        b = _interval_mul(b, (k, k))
        lo, hi = lo + b[0], hi + b[1]
    return lo, hi


def _atom_bounds(atom, scope):
    kind, val = atom
    if kind == "var":
        return scope._var_bounds(val)
    (alo, ahi), (blo, bhi) = _bounds(val[0]), _bounds(val[1])
    if kind == "max":
        return max(alo, blo), max(ahi, bhi)
    if kind == "min":
        return min(alo, blo), min(ahi, bhi)
    if blo > 0 and blo == bhi:     # floordiv / mod by a positive constant
        if kind == "mod":
            return 0, blo - 1
        return (math.floor(alo / blo) if alo > -math.inf else alo,
                math.floor(ahi / blo) if ahi < math.inf else ahi)
    if kind == "mod" and blo > 0:
        return 0, bhi - 1
    if kind == "floordiv" and alo >= 0 and blo > 0:
        return 0, ahi
    return -math.inf, math.inf


def variables(e) -> list[str]:
    """The names of the dimension variables `e` (a dimension, or a shape) uses."""
    if isinstance(e, (tuple, list)):
        out = []
        for d in e:
            out += [v for v in variables(d) if v not in out]
        return out
    if not isinstance(e, DimExpr):
        return []
    out: list[str] = []
    for mono, _ in e._terms:
        for (kind, val), _p in mono:
            names = [val] if kind == "var" else variables(list(val))
            out += [v for v in names if v not in out]
    return out


class _IntOps:
    """Integer arithmetic for `evaluate`."""
    const = staticmethod(int)
    add = staticmethod(lambda a, b: a + b)
    mul = staticmethod(lambda a, b: a * b)
    floordiv = staticmethod(lambda a, b: a // b)
    mod = staticmethod(lambda a, b: a % b)
    max = staticmethod(max)
    min = staticmethod(min)


INT_OPS = _IntOps()


def evaluate(e, env: dict, ops=INT_OPS):
    """`e` (a dimension or an int) computed from `env` (variable name -> value) with
    the arithmetic of `ops` (`const`, `add`, `mul`, `floordiv`, `mod`, `max`, `min`)."""
    if not isinstance(e, DimExpr):
        return ops.const(e)
    total = None
    for mono, k in e._terms:
        term = ops.const(k) if (k != 1 or mono == ()) else None
        for (kind, val), p in mono:
            if kind == "var":
                if val not in env:
                    raise JAXValueError(f"Unknown dimension variable '{val}' when "
                                        f"evaluating '{e}'")
                a = env[val]
            else:
                a = getattr(ops, kind)(evaluate(val[0], env, ops), evaluate(val[1], env, ops))
            for _ in range(p):
                term = a if term is None else ops.mul(term, a)
        total = term if total is None else ops.add(total, term)
    return total


def symbolic_quotient(shape, new_shape, size, known):
    """The `-1` entry of `new_shape` reshaping an array of `shape` (`size` elements;
    `known` the product of the other entries): JAX's InconclusiveDimensionOperation
    when it does not divide evenly for every value of the variables."""
    q, r = divmod(_as_dim(size, _scope_of(size, known)), known)
    if not isinstance(r, int) or r != 0:
        raise _inconclusive(f"Cannot divide evenly the sizes of shapes {tuple(shape)} and "
                            f"{tuple(new_shape)}. The remainder {r} should be 0.")
    return q


def symbolic_slice_indices(start, stop, step, n):
    """`slice(start, stop, step).indices(n)` where `n` or a bound is symbolic: a
    bound is clamped into `[0, n]` (decided for every value of the variables, else
    JAX's InconclusiveDimensionOperation); a negative step is not supported."""
    step = 1 if step is None else step
    if is_symbolic_dim(step) or step < 0:
        raise _inconclusive(f"Slicing a dimension of symbolic size '{n}' with step {step} "
                            "is not supported")

    def clamp(v, default):
        if v is None:
            return default
        if not is_symbolic_dim(v) and v < 0:
            v = n + v
        return _dmin(_dmax(v, 0), n)
    return clamp(start, 0), clamp(stop, n), step


def _dmax(a, b):
    return max(a, b) if not (is_symbolic_dim(a) or is_symbolic_dim(b)) else _minmax("max", a, b)


def _dmin(a, b):
    return min(a, b) if not (is_symbolic_dim(a) or is_symbolic_dim(b)) else _minmax("min", a, b)


def _scope_of(*dims):
    return next(d.scope for d in dims if isinstance(d, DimExpr))


def canonical_dim(d):
    """A dimension: a symbolic one as it is, anything else through `__index__`."""
    return d if isinstance(d, DimExpr) else operator.index(d)


def canonical_shape(shape) -> tuple:
    """A shape with int dimensions as Python ints and symbolic ones kept."""
    return tuple(d if isinstance(d, DimExpr) else int(d) for d in shape)


# ---------------------------------------------------------------- parsing

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z][A-Za-z0-9_]*)|(\.\.\.)|(//|[-+*(),^_]))")


class _SpecError(AstjaxError, ValueError):
    """A symbolic shape specification that does not parse (JAX's ValueError)."""


class _Parser:
    def __init__(self, text, scope, spec, dim):
        self.toks, pos = [], 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise self._err(spec, dim, f"unexpected character {text[pos:].strip()[0]!r}")
            self.toks.append(next(g for g in m.groups() if g is not None))
            pos = m.end()
        self.i, self.scope, self.spec, self.dim = 0, scope, spec, dim

    def _err(self, spec, dim, msg):
        return _SpecError(f"syntax error in symbolic shape '{spec}' in dimension {dim}: {msg}",
                          hint="dimensions are integers, variables, e1 + e2, e1 - e2, "
                               "e1 * e2, floordiv(e1, e2), mod(e1, e2), max(e1, e2), "
                               "min(e1, e2)")

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want=None):
        t = self.peek()
        if t is None or (want is not None and t != want):
            raise self._err(self.spec, self.dim, f"expecting {want or 'more'}, found "
                            f"{t or 'end of string'}")
        self.i += 1
        return t

    def expr(self):
        e = self.term()
        while self.peek() in ("+", "-"):
            e = e + self.term() if self.take() == "+" else e - self.term()
        return e

    def term(self):
        e = self.power()
        while self.peek() == "*":
            self.take()
            e = e * self.power()
        return e

    def power(self):
        e = self.atom()
        if self.peek() == "^":
            self.take()
            e = e ** int(self.take())
        return e

    def atom(self):
        t = self.take()
        if t == "-":
            return -self.atom()
        if t == "(":
            e = self.expr()
            self.take(")")
            return e
        if t.isdigit():
            if self.peek() not in (None, "+", "-", "*", ")", ",", "^"):
                raise self._err(self.spec, self.dim, f"expecting one of {{STAR}} but found "
                                f"{self.peek()}")
            return int(t)
        if t in ("floordiv", "mod", "max", "min") and self.peek() == "(":
            self.take("(")
            a = self.expr()
            self.take(",")
            b = self.expr()
            self.take(")")
            a, b = _as_dim(a, self.scope), b
            return {"floordiv": lambda: a // b, "mod": lambda: a % b,
                    "max": lambda: _minmax("max", a, b),
                    "min": lambda: _minmax("min", a, b)}[t]()
        if t[0].isalpha():
            return DimExpr._atom(("var", t), self.scope)
        raise self._err(self.spec, self.dim, f"unexpected {t!r}")


def _parse_expr(text, scope, spec, dim=0):
    p = _Parser(text, scope, spec, dim)
    e = p.expr()
    if p.peek() is not None:
        raise p._err(spec, dim, f"unexpected {p.peek()!r} after {e}")
    return e


def _split_dims(spec):
    """The top-level comma-separated pieces of a shape specification."""
    s = spec.strip()
    if s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, c in enumerate(s):
            depth += (c == "(") - (c == ")")
            if depth == 0 and i < len(s) - 1:
                break
        else:
            s = s[1:-1]
    parts, depth, cur = [], 0, ""
    for c in s:
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += (c == "(") - (c == ")")
        cur += c
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_spec(spec: str, scope: SymbolicScope, like=None) -> tuple:
    """The shape `spec` describes: `"b, 4"`, `"(2*b, b + 1)"`; `...` stands for the
    remaining dimensions of `like` and `_` for the one at its position."""
    parts = _split_dims(spec)
    if parts and parts[-1] == "...":
        if like is None:
            raise _SpecError(f"syntax error in symbolic shape '{spec}' in dimension "
                             f"{len(parts) - 1}: spec contains ... but no 'like' shape "
                             "was given")
        parts = parts[:-1] + ["_"] * (len(like) - len(parts) + 1)
    if like is not None and len(like) != len(parts):
        raise _SpecError(f"shape spec '{spec}' has {len(parts)} dimensions but the "
                         f"argument has shape {tuple(like)}")
    dims = []
    for i, p in enumerate(parts):
        if p == "_":
            if like is None or like[i] is None:
                raise _SpecError(f"syntax error in symbolic shape '{spec}' in dimension "
                                 f"{i}: spec contains _ but no 'like' shape was given")
            dims.append(like[i])
        elif p == "":
            raise _SpecError(f"syntax error in symbolic shape '{spec}' in dimension {i}: "
                             "empty dimension")
        else:
            dims.append(_parse_expr(p, scope, spec, i))
    return tuple(dims)


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


# ---------------------------------------------------------------- solving at a call


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
    specs = ", ".join(f"{n}.shape = ({', '.join(map(str, s))}{',' if len(s) == 1 else ''})"
                      for n, s in zip(arg_names, shapes))

    def fail(what, head="Input shapes do not match the polymorphic shapes specification."):
        raise JAXValueError(
            f"{head} {what}. "
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
    if scope is not None:
        for c, g in zip(constraint_texts(scope), scope._geq):
            val = evaluate(g, env)
            if isinstance(val, int) and val < 0:
                fail(f"Expected '{g}' to be greater or equal to 0, but found {val}",
                     head=f"Input shapes do not match the symbolic shape constraint {c}.")
    return env


def constraint_texts(scope):
    """Each `g >= 0` of `scope._geq` with the constraint text it came from."""
    out = []
    for c in scope._constraints_str:
        n = 2 if "==" in c else 1
        lhs, rhs = re.split(r">=|<=|==", c)
        if isinstance(_parse_expr(lhs, scope, c) - _parse_expr(rhs, scope, c), int):
            continue
        out += [c] * n
    return out
