"""Python `ast` construction helpers for printed source (`astjax.source`).

Printed source is built as `ast` nodes, never strings of code; these helpers are
shared by the generator (`codegen.pysource`) and the `source` rules declared in the
primitives' own blocks. A source rule is `rule(gen, eqn) -> ast.expr`, or, marked
with `statement_rule`, `rule(gen, eqn, stmts)` appending statements.
"""
from __future__ import annotations

import ast
import math
import re

import numpy as np

from . import dtypes




def load(name):
    return ast.Name(id=name, ctx=ast.Load())


def store(name):
    return ast.Name(id=name, ctx=ast.Store())


def attr(base, *names):
    if isinstance(base, str) and "." in base:
        first, *rest = base.split(".")
        return attr(first, *rest, *names)
    node = load(base) if isinstance(base, str) else base
    for n in names:
        node = ast.Attribute(value=node, attr=n, ctx=ast.Load())
    return node


def call(func, args=(), **kwargs):
    if isinstance(func, str):
        func = attr(*func.split("."))
    return ast.Call(func=func, args=list(args),
                    keywords=[ast.keyword(arg=k, value=v) for k, v in kwargs.items()])


def assign(targets, value):
    """`name = value`, or `a, b = value` for a list/tuple of names (a one-element list
    gives `a, = value`)."""
    if isinstance(targets, str):
        target = store(targets)
    else:
        target = ast.Tuple(elts=[store(t) if isinstance(t, str) else t for t in targets],
                           ctx=ast.Store())
    return ast.Assign(targets=[target], value=value, lineno=0)


def comment(text):
    """A comment line: a Name whose id `ast.unparse` prints verbatim."""
    return ast.Expr(value=ast.Name(id="# " + text.replace("\n", " "), ctx=ast.Load()))


def pyconst(v):
    """A Python scalar as an expression (negative numbers and inf/nan spelled out)."""
    if isinstance(v, (bool, np.bool_)):
        return ast.Constant(value=bool(v))
    if isinstance(v, complex):
        if v.imag == 0:
            return pyconst(v.real)
        return call("complex", [pyconst(v.real), pyconst(v.imag)])
    if isinstance(v, float):
        if math.isnan(v):
            return attr("jnp", "nan")
        if math.isinf(v):
            node = attr("jnp", "inf")
            return ast.UnaryOp(op=ast.USub(), operand=node) if v < 0 else node
        if v < 0 or (v == 0 and math.copysign(1.0, v) < 0):
            return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-v))
        return ast.Constant(value=v)
    if isinstance(v, int):
        if v < 0:
            return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-v))
        return ast.Constant(value=v)
    return ast.Constant(value=v)


def scalar_py(val, dtype):
    """A NumPy scalar of `dtype` as the shortest Python scalar that converts back to it
    exactly (float32's `0.1`, not `0.10000000149011612`)."""
    dtype = np.dtype(dtype)
    if dtype == dtypes.bool_:
        return bool(val)
    if dtypes.is_int(dtype):
        return int(val)
    if np.issubdtype(dtype, np.complexfloating):
        return complex(val)
    if dtype in (dtypes.float32, dtypes.float16) or dtype.name == "bfloat16":
        return float(str(np.asarray(val, dtype)[()]))
    return float(val)


def dtype_expr(dt):
    dt = np.dtype(dt)
    name = "bool_" if dt == dtypes.bool_ else dt.name
    return attr("jnp", name)


def sanitize(name):
    name = re.sub(r"\W", "_", str(name))
    if not name or name[0].isdigit():
        name = "v_" + name
    if name.startswith("ag__"):
        name = name[4:] or "v"
    return name


def statement_rule(fn):
    """Mark a source rule as printing statements (`rule(gen, eqn, stmts)`)."""
    fn.statement = True
    return fn


def lax_call(fname, gen, eqn, *extra, **kw):
    """`lax.<fname>(*operands, *extra, **kw)` for one equation."""
    return call(f"lax.{fname}", [gen.arg(a) for a in eqn.invars] + list(extra), **kw)
