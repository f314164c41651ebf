"""A small Wadler/Lindig pretty-printer: the layout combinators (text, concat, brk,
group, nest) and `format_doc`, which breaks a group's lines only when it does not fit
the width. The jaxpr printer built on them is in `astjax/ir.py`."""
from __future__ import annotations

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
