"""The jaxpr printer, producing JAX's syntax exactly.

A small Wadler/Lindig pretty-printer (text, concat, brk, group, nest) drives the
layout, with the same document structure as JAX's printer, so line breaking at
width 80 matches character for character."""
from __future__ import annotations

import numpy as np

from . import core

# ---------------------------------------------------------- the document algebra


class Doc:
    def __add__(self, other):
        return Concat([self, other])


class Text(Doc):
    def __init__(self, s):
        self.s = s


class Concat(Doc):
    def __init__(self, docs):
        self.docs = list(docs)


class Brk(Doc):
    def __init__(self, s=" "):
        self.s = s


class Group(Doc):
    def __init__(self, doc):
        self.doc = doc


class Nest(Doc):
    def __init__(self, n, doc):
        self.n, self.doc = n, doc


def join(sep, docs):
    docs = list(docs)
    out = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return Concat(out)


def _fits(items, width):
    # items: list of (indent, flat, doc), processed as a stack (last = next)
    stack = list(items)
    while width >= 0 and stack:
        indent, flat, doc = stack.pop()
        if isinstance(doc, Text):
            width -= len(doc.s)
        elif isinstance(doc, Concat):
            stack.extend((indent, flat, d) for d in reversed(doc.docs))
        elif isinstance(doc, Brk):
            if not flat:
                return True
            width -= len(doc.s)
        elif isinstance(doc, Group):
            stack.append((indent, True, doc.doc))
        elif isinstance(doc, Nest):
            stack.append((indent + doc.n, flat, doc.doc))
    return width >= 0


def format_doc(doc, width=80) -> str:
    out, col = [], 0
    stack = [(0, False, doc)]
    while stack:
        indent, flat, d = stack.pop()
        if isinstance(d, Text):
            out.append(d.s)
            col += len(d.s)
        elif isinstance(d, Concat):
            stack.extend((indent, flat, x) for x in reversed(d.docs))
        elif isinstance(d, Brk):
            if flat:
                out.append(d.s)
                col += len(d.s)
            else:
                out.append("\n" + " " * indent)
                col = indent
        elif isinstance(d, Group):
            stack.append((indent, flat or _fits([(indent, True, d.doc)], width - col), d.doc))
        elif isinstance(d, Nest):
            stack.append((indent + d.n, flat, d.doc))
    return "".join(out)

# ------------------------------------------------------------------ jaxpr printing


def _alpha(n):
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


class Names:
    def __init__(self):
        self.names: dict = {}

    def __call__(self, v):
        if v not in self.names:
            self.names[v] = _alpha(len(self.names))
        return self.names[v]


def literal_str(lit) -> str:
    val = np.asarray(lit.val)
    s = str(val.item()) if val.ndim == 0 else "[...]"
    return f"{s}:{lit.aval.str_short()}"


def _var(a, names, binder=False):
    if isinstance(a, core.Literal):
        return literal_str(a)
    if binder and getattr(a, "dropped", False):
        return "_"
    return names(a)


def pp_vars(vs, names, sep="", shapes=False, binder=False):
    items = [Text(_var(v, names, binder) + (":" + v.aval.str_short() if shapes else ""))
             for v in vs]
    return Nest(2, Group(join(Concat([Text(sep), Group(Brk())]), items)))


def param_str(v) -> str:
    if isinstance(v, np.dtype):
        return str(v)
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    if callable(v) and hasattr(v, "__name__") and not isinstance(v, type):
        return v.__name__
    return str(v)


def pp_kv(k, v, names):
    if type(v) is tuple and v and all(isinstance(j, (core.Jaxpr, core.ClosedJaxpr)) for j in v):
        pv = Group(Concat([Nest(2, Concat([Text("("), Brk(""),
                                           join(Brk(), [_pp_jaxpr(j, names) for j in v])])),
                           Brk(""), Text(")")]))
    elif isinstance(v, (core.Jaxpr, core.ClosedJaxpr)):
        pv = _pp_jaxpr(v, names)
    else:
        pv = Text(param_str(v))
    return Text(f"{k}=") + pv


def pp_params(params, names):
    if not params:
        return Concat([])
    kvs = [pp_kv(k, params[k], names) for k in sorted(params)]
    return Group(Concat([Nest(2, Concat([Text("["), Brk(""), join(Brk(), kvs)])),
                         Brk(""), Text("]")]))


def pp_eqn(eqn, names):
    lhs = pp_vars(eqn.outvars, names, shapes=True, binder=True) if eqn.outvars else None
    rhs = [Text(eqn.primitive.name), pp_params(eqn.params, names),
           Text(" ") + pp_vars(eqn.invars, names)]
    if lhs is not None:
        return Concat([lhs, Text(" = ")] + rhs)
    return Concat(rhs)


def _pp_jaxpr(jaxpr, names):
    if isinstance(jaxpr, core.ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    consts = pp_vars(jaxpr.constvars, names, shapes=True, binder=True)
    ins = pp_vars(jaxpr.invars, names, shapes=True, binder=True)
    eqns = join(Brk("; "), [pp_eqn(e, names) for e in jaxpr.eqns])
    outs = Concat([Text("("), pp_vars(jaxpr.outvars, names, sep=","),
                   Text(")" if len(jaxpr.outvars) != 1 else ",)")])
    return Group(Nest(2, Concat([
        Text("{ lambda "), consts, Text("; "), ins, Text(". let"),
        Nest(2, Brk() + eqns), Brk(), Text("in "), outs])) + Text(" }"))


def pp_jaxpr(jaxpr, width=80) -> str:
    return format_doc(_pp_jaxpr(jaxpr, Names()), width)


def pp_eqn_str(eqn) -> str:
    return format_doc(pp_eqn(eqn, Names()))
