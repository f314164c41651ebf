"""Symbolic dimensions: the shape sizes of `jax.export`'s shape polymorphism.

A `DimExpr` is a polynomial with integer coefficients over *atoms*: dimension
variables (`b`) and the operations polynomials are not closed under
(`floordiv(e, k)`, `mod(e, k)`, `max(e1, e2)`, `min(e1, e2)`). It supports the
integer arithmetic shape rules do (`+ - * // % **`; division is polynomial long
division, exact or else a `floordiv` / `mod` atom), so that an aval's shape may hold
one and every rule computing sizes works unchanged; a result that is a constant is a
plain `int`. Comparisons are decided over all values the variables may take by the
scope (astjax/shape_poly.py's `SymbolicScope`, through astjax/shape_poly_decision.py);
an undecidable one raises JAX's `InconclusiveDimensionOperation`, as does `int(d)`.
`==` is structural (it must not raise: dimensions are hashed), as in JAX. True
division, a float operand or `2 ** d` use the dimension as an array value, as JAX
does (`set_value_hook`: a staged value inside an exported function, else JAX's error).

`evaluate(e, env, ops)` computes an expression from the variables' values with the
arithmetic `ops` gives: Python ints at call time (`DimExpr.evaluate`), StableHLO
values when a module computes a dynamic shape (astjax/export/polymorphic.py).
"""
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .errors import InconclusiveDimensionOperation, JAXValueError

__all__ = ["DimExpr", "is_symbolic_dim", "evaluate", "variables", "INT_OPS",
           "canonical_shape", "canonical_dim", "symbolic_quotient", "symbolic_slice_indices",
           "set_value_hook", "max_dim", "min_dim", "as_value"]

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


class DimExpr:
    """A symbolic dimension: `sum(coefficient * monomial)`, the monomials products
    of atoms raised to positive powers. A constant result is returned as an `int`."""
    __slots__ = ("_terms", "scope", "_hash")

    def __init__(self, terms, scope):
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
        if scope is not None and scope._rules:
            rewritten = _rewrite(items, scope)
            if rewritten is not None:
                return DimExpr._make(rewritten, scope)
        return DimExpr(tuple(items), scope)

    @staticmethod
    def _atom(atom, scope):
        return DimExpr._make({((atom, 1),): 1}, scope)

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

    def _as_value(self, op, other):
        """`op` applied to the dimension as an array value (JAX's `__jax_array__`
        path for a float or array operand), or NotImplemented for other operands."""
        if isinstance(other, (float, complex, np.ndarray, np.generic)):
            return getattr(_value(self), op)(other)
        return NotImplemented

    # ------------------------------------------------------------ arithmetic
    def __add__(self, other):
        q = self._coerce(other, "linear combination")
        if q is None:
            return self._as_value("__add__", other)
        p = self._poly()
        for m, k in q.items():
            p[m] = p.get(m, 0) + k
        return DimExpr._make(p, self.scope)

    def __radd__(self, other):
        return self._as_value("__radd__", other) if self._coerce(other, "") is None \
            else self + other

    def __neg__(self):
        return DimExpr._make({m: -k for m, k in self._terms}, self.scope)

    def __sub__(self, other):
        q = self._coerce(other, "linear combination")
        if q is None:
            return self._as_value("__sub__", other)
        return self + DimExpr._make({m: -k for m, k in q.items()}, self.scope)

    def __rsub__(self, other):
        if self._coerce(other, "") is None:
            return self._as_value("__rsub__", other)
        return (-self) + other

    def __mul__(self, other):
        q = self._coerce(other, "multiplication")
        if q is None:
            return self._as_value("__mul__", other)
        p: dict = {}
        for m1, k1 in self._terms:
            for m2, k2 in q.items():
                m = _mono_mul(m1, m2)
                p[m] = p.get(m, 0) + k1 * k2
        return DimExpr._make(p, self.scope)

    def __rmul__(self, other):
        return self._as_value("__rmul__", other) if self._coerce(other, "") is None \
            else self * other

    def __truediv__(self, other):
        return _value(self) / other

    def __rtruediv__(self, other):
        return other / _value(self)

    def __pow__(self, power, modulo=None):
        if modulo is not None or not isinstance(power, int):
            raise JAXValueError(f"Symbolic dimension cannot be raised to non-integer "
                                f"powers: '{self}' ** '{power}'")
        if power < 0:
            raise JAXValueError(f"Symbolic dimension cannot be raised to negative powers: "
                                f"'{self}' ** '{power}'")
        return math.prod([self] * power, start=1)

    def __rpow__(self, other):
        return other ** _value(self)

    def _divmod(self, divisor):
        """(quotient, remainder) as integer floor division: polynomial long division
        by leading terms when it is exact (up to a constant remainder for a constant
        divisor), else the `floordiv` / `mod` atoms."""
        q = self._coerce(divisor, "division")
        if q is None:
            return None
        if q == {(): 0}:
            raise ZeroDivisionError(f"Symbolic dimension division by zero: '{self}' // 0")
        d = divisor if isinstance(divisor, DimExpr) else int(_index(divisor))
        rest: Any = DimExpr._make(self._poly(), self.scope)
        quot: Any = 0
        for _ in range(64):   # (each step removes `rest`'s leading term)
            if not isinstance(rest, DimExpr):
                break
            mono, k = rest._terms[0]
            dmono, dk = d._terms[0] if isinstance(d, DimExpr) else ((), d)
            qmono = _mono_div(mono, dmono)
            if qmono is None or k % dk:
                break
            step = DimExpr._make({qmono: k // dk}, self.scope)
            quot, rest = quot + step, rest - step * d
        if not isinstance(rest, DimExpr):
            if not isinstance(d, DimExpr):
                qc, r = divmod(rest, d)
                return quot + qc, r
            if rest == 0:
                return quot, 0
        return (DimExpr._atom(("floordiv", (self, d)), self.scope),
                DimExpr._atom(("mod", (self, d)), self.scope))

    def _div_or_value(self, divisor, op, pick):
        r = self._divmod(divisor)
        return self._as_value(op, divisor) if r is None else (r if pick is None else r[pick])

    def __floordiv__(self, divisor):
        return self._div_or_value(divisor, "__floordiv__", 0)

    def __mod__(self, divisor):
        return self._div_or_value(divisor, "__mod__", 1)

    def __divmod__(self, divisor):
        return self._div_or_value(divisor, "__divmod__", None)

    def __rfloordiv__(self, other):
        if self._coerce(other, "") is None:
            return self._as_value("__rfloordiv__", other)
        return _as_dim(other, self.scope)._divmod(self)[0]

    def __rmod__(self, other):
        if self._coerce(other, "") is None:
            return self._as_value("__rmod__", other)
        return _as_dim(other, self.scope)._divmod(self)[1]

    def max(self, other):
        """`max(self, other)`, decided when the comparison is, else a `max` atom."""
        return _minmax("max", self, other)

    def min(self, other):
        """`min(self, other)`, decided when the comparison is, else a `min` atom."""
        return _minmax("min", self, other)

    # ------------------------------------------------------------ comparisons
    def __eq__(self, other):
        if isinstance(other, DimExpr):    # (dimensions of different scopes differ)
            return self._terms == other._terms and self.scope is other.scope
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
        return _value(self)

    def __jax_array__(self):
        return _value(self)


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
    return val if kind == "var" else f"{kind}({', '.join(map(_operand_str, val))})"


def _operand_str(v):
    return f"- {-v}" if isinstance(v, int) and v < 0 else str(v)


def _minmax(kind, a, b):
    scope = a.scope if isinstance(a, DimExpr) else b.scope
    lo, hi = scope.bounds(a - b)
    if lo >= 0:
        return a if kind == "max" else b
    if hi <= 0:
        return b if kind == "max" else a
    return DimExpr._atom((kind, (a, b)), scope)


def _rewrite(items, scope):
    """The polynomial `items` with the first monomial a scope's equality constraint
    rewrites (`k*t -> e`, applied to `c*t` when `k` divides `c`, or to one factor
    of a product) replaced, or None when none applies."""
    for mono, c in items:
        if mono == ():
            continue
        cands = [(mono, ())]
        if len(mono) > 1:
            cands += [(((a, p),), tuple(ap for ap in mono if ap != (a, p))) for a, p in mono]
        for key, other in cands:
            rule = scope._rules.get(key)
            if rule is not None and c % rule[1] == 0:
                after, k = rule
                poly = dict(items)
                del poly[mono]
                for m2, c2 in (after._terms if isinstance(after, DimExpr) else (((), after),)):
                    m = _mono_mul(m2, other)
                    poly[m] = poly.get(m, 0) + c2 * (c // k)
                return poly
    return None


def _mono_div(m1, m2):
    """The monomial `m1 / m2`, or None when `m2` does not divide it."""
    powers = dict(m1)
    for a, p in m2:
        if powers.get(a, 0) < p:
            return None
        powers[a] -= p
    return tuple(sorted(((a, p) for a, p in powers.items() if p), key=lambda ap: _atom_key(ap[0])))


# how a dimension becomes an array value: (function, whether a function is being
# staged); astjax/export/polymorphic.py sets the staged `dim_as_value`
_VALUE_HOOK: list = [None, lambda: False]


def set_value_hook(fn, staging):
    """Make `fn(dimension)` the way a dimension becomes an array value (`b / 2`,
    `b * 1.5`, `2 ** b`, `dimension_as_value()`) while `staging()` is true."""
    _VALUE_HOOK[:] = [fn, staging]


def _value(d):
    fn, staging = _VALUE_HOOK
    if fn is None or not staging():
        raise NotImplementedError("Evaluation rule for 'dim_as_value' is not implemented. "
                                  "It seems that you are using shape polymorphism outside "
                                  "jax.export.")
    return fn(d)


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
        # (JAX divides by the product of `new_shape`, the -1 included)
        r = _as_dim(size, _scope_of(size, known)) % -known
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
        if v < 0:     # (decided for a symbolic bound, else inconclusive)
            v = n + v
        return min_dim(n, max_dim(0, v))
    return clamp(start, 0), clamp(stop, n), step


def max_dim(a, b):
    """`max(a, b)` of dimensions, constant or symbolic (JAX's `core.max_dim`)."""
    return max(a, b) if not (is_symbolic_dim(a) or is_symbolic_dim(b)) else _minmax("max", a, b)


def min_dim(a, b):
    """`min(a, b)` of dimensions, constant or symbolic (JAX's `core.min_dim`)."""
    return min(a, b) if not (is_symbolic_dim(a) or is_symbolic_dim(b)) else _minmax("min", a, b)


def as_value(d):
    """A dimension as an array value: a symbolic one as the staged `dim_as_value` (JAX's
    error outside a staged function), a constant as itself."""
    return _value(d) if isinstance(d, DimExpr) else d


def _scope_of(*dims):
    return next(d.scope for d in dims if isinstance(d, DimExpr))


def canonical_dim(d):
    """A dimension: a symbolic one as it is, anything else through `__index__`."""
    return d if isinstance(d, DimExpr) else operator.index(d)


def shape_entries(shape):
    """A shape argument's dimensions, unchecked: a 0-d value (an int, a symbolic
    dimension, a 0-d array) is one dimension; anything else is iterated (a tuple, a
    list, a 1-D integer array, whose entries `canonical_dim` then reads), as JAX's
    `canonicalize_shape`."""
    if isinstance(shape, (tuple, list)):
        return shape
    if isinstance(shape, DimExpr) or np.ndim(shape) == 0:
        return (shape,)
    return shape


def canonical_shape(shape) -> tuple:
    """A shape with int dimensions as Python ints and symbolic ones kept."""
    return tuple(d if isinstance(d, DimExpr) else int(d) for d in shape)
