"""Parsing JAX's symbolic shape specifications into dimensions (astjax/shape_poly.py).

`symbolic_shape("b, 2*b + 1")` gives the dimensions a specification string describes,
`parse_spec` the same against an argument's shape (`_` and `...` taken from it);
dimension expressions are integers, variables, `+ - *`, `^` powers and the
`floordiv`, `mod`, `max`, `min` operations. A specification that does not parse
raises JAX's ValueError with the dimension it stopped at.
"""
from __future__ import annotations

import re

from .errors import AstjaxError
from .shape_poly_expr import DimExpr, _minmax

__all__ = ["parse_spec", "symbolic_shape", "parse_expr"]

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
            return {"floordiv": lambda: a // b, "mod": lambda: a % b,
                    "max": lambda: _minmax("max", a, b),
                    "min": lambda: _minmax("min", a, b)}[t]()
        if t[0].isalpha():
            return DimExpr._atom(("var", t), self.scope)
        raise self._err(self.spec, self.dim, f"unexpected {t!r}")


def parse_expr(text, scope, spec, dim=0):
    """The dimension the expression `text` denotes in `scope` (`spec` and `dim` name
    it in a syntax error)."""
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


def parse_spec(spec: str, scope, like=None) -> tuple:
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
            dims.append(parse_expr(p, scope, spec, i))
    return tuple(dims)
