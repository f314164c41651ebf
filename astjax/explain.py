"""`astjax.explain`: one self-contained HTML page that shows a function's source, its
converted control flow, its jaxpr, its derivative as Python and its StableHLO side by
side, linked by the user's line numbers.

Every view is a list of lines, and a line may carry the user's source line it came
from (`data-line`):

* the converted code: the converter copies each statement's location from the user's
  statement, so unparsing and re-parsing the converted module gives, statement by
  statement, the printed line of each original one;
* the jaxpr: every equation keeps its `SourceInfo`; the view prints one equation per
  line (sub-jaxprs nested below their equation, labelled by parameter);
* the derivative: `astjax.source` writes a `# line N: ...` comment above the code a
  user line produced; the lines below it belong to that line;
* the StableHLO: printed with MLIR locations (`codegen.stablehlo.with_locations`,
  JAX's `as_text(debug_info=True)`), every op ends in `loc(#locN)` and the aliases
  name the file and line of the equation that lowered to it; shown with XLA's cost
  and memory analysis of the compiled module.

XLA analyses the cost of a whole module only, so the figure beside each source line
is an estimate from the shapes of the StableHLO ops lowered from it (`line_costs`),
labelled as such on the page.

The page embeds its CSS and JavaScript (no network, no server): hovering a source
line highlights everything that came from it, clicking pins the highlight, and
clicking a derived line selects its source line. The page layout lives in
`templates/explain.html`; this module only fills it in.
"""
from __future__ import annotations

import ast
import html
import inspect
import math
import os
import re
import string
from dataclasses import dataclass

from . import api, ir
from .ad_api import grad
from .core import ClosedJaxpr, Jaxpr
from .errors import ArgumentTypeError
from .frontend.converter import converted_ast
from .codegen.stablehlo import with_locations
from .pretty import format_doc
from .source_api import source
from .util import Namer

__all__ = ["Line", "LineCost", "explain", "explain_views", "hlo_lines", "line_costs",
           "write_explain"]

_TEMPLATE = os.path.join(os.path.dirname(__file__), "templates", "explain.html")


@dataclass(frozen=True)
class Line:
    """One printed line of a view: its text, its indentation level and the user's
    source line it came from (None when it has none)."""
    text: str
    origin: int | None = None


# ------------------------------------------------------------------ the views


def _original(fn):
    while hasattr(fn, "__wrapped__") or hasattr(fn, "__astjax_original__"):
        fn = getattr(fn, "__astjax_original__", None) or fn.__wrapped__
    if not inspect.isfunction(fn):
        raise ArgumentTypeError(f"explain needs a Python function, got {type(fn).__name__}",
                                hint="pass the function itself (not a jitted/transformed "
                                     "wrapper of a builtin or a class)")
    return fn


def source_lines(fn) -> tuple[str, list[Line]]:
    """The user's function as written: (file name, lines tagged with their numbers)."""
    lines, first = inspect.getsourcelines(fn)
    return (inspect.getsourcefile(fn) or "<unknown>",
            [Line(t.rstrip("\n"), first + i) for i, t in enumerate(lines)])


def converted_lines(fn) -> list[Line]:
    """The converted control flow, each statement tagged with its user line.

    `ast.unparse` drops locations; parsing its output back gives a tree with the same
    shape whose line numbers are the printed ones, so walking both trees together maps
    printed line -> user line."""
    tree = converted_ast(fn)
    text = ast.unparse(tree)
    printed = ast.parse(text)
    origin = {}
    for old, new in zip(ast.walk(tree), ast.walk(printed)):
        if not isinstance(old, ast.stmt) or getattr(old, "lineno", None) is None:
            continue
        # a compound statement owns its header line; its body's statements own theirs
        last = new.lineno if hasattr(new, "body") else (new.end_lineno or new.lineno)
        for ln in range(new.lineno, last + 1):
            origin[ln] = old.lineno
    return [Line(t, origin.get(i + 1)) for i, t in enumerate(text.splitlines())]


def _eqn_head(eqn, names) -> str:
    """`outs = prim[params] ins` with the sub-jaxpr parameters left out."""
    shallow = {k: v for k, v in eqn.params.items() if not _is_jaxprs(v)}
    doc = ir.pp_eqn(_Shallow(eqn, shallow), names)
    return format_doc(doc, width=10 ** 6)


class _Shallow:
    """An equation seen with some parameters hidden (for printing only)."""
    def __init__(self, eqn, params):
        self.primitive, self.invars, self.outvars = eqn.primitive, eqn.invars, eqn.outvars
        self.params = params


def _is_jaxprs(v):
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        return True
    return type(v) is tuple and bool(v) and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v)


def _atom(v, names):
    return ir.literal_str(v) if isinstance(v, ir.Literal) else names(v)


def jaxpr_lines(closed, file) -> list[Line]:
    """The jaxpr, one equation per line, sub-jaxprs nested under their equation; an
    equation staged from `file` carries its line."""
    names = Namer("letters")
    out: list[Line] = []

    def binders(j):
        return " ".join(f"{names(v)}:{v.aval.str_short(True)}" for v in (*j.constvars, *j.invars))

    def block(j, depth):
        j = j.jaxpr if isinstance(j, ClosedJaxpr) else j
        pad = "  " * depth
        out.append(Line(f"{pad}{{ lambda {binders(j)}. let"))
        for eqn in j.eqns:
            info = eqn.source_info
            line = info.line if info is not None and info.file == file else None
            out.append(Line(f"{pad}    {_eqn_head(eqn, names)}", line))
            for key in sorted(eqn.params):
                v = eqn.params[key]
                if not _is_jaxprs(v):
                    continue
                subs = v if isinstance(v, tuple) else (v,)
                for k, sub in enumerate(subs):
                    label = f"{key}[{k}]" if isinstance(v, tuple) else key
                    out.append(Line(f"{pad}      {label}:", line))
                    block(sub, depth + 3)
        outs = ", ".join(_atom(v, names) for v in j.outvars)
        out.append(Line(f"{pad}  in ({outs}{',' if len(j.outvars) == 1 else ''}) }}"))

    block(closed, 0)
    return out


_ORIGIN = re.compile(r"^\s*# (?:line (\d+)|[^:\s]+:(\d+))(?::|$)")
_PHASE = re.compile(r"^\s*# ---- ")


def derivative_lines(text, file) -> list[Line]:
    """`astjax.source` output: the code under a `# line N: ...` comment came from user
    line N, up to the end of the block the comment opened (a dedent returns to the
    enclosing comment's line; a `# ---- phase ----` comment closes its level).
    Comments naming another file (`name.py:N`) map to nothing."""
    out, stack = [], []          # stack of (indent, user line or None)
    base = os.path.basename(file)
    for t in text.splitlines():
        if not t.strip():
            out.append(Line(t))
            continue
        indent = len(t) - len(t.lstrip())
        m = _ORIGIN.match(t)
        if m or _PHASE.match(t):
            while stack and stack[-1][0] >= indent:
                stack.pop()
        else:
            while stack and stack[-1][0] > indent:
                stack.pop()
        if m:
            same_file = m.group(1) or t.strip()[2:].startswith(base + ":")
            stack.append((indent, int(m.group(1) or m.group(2)) if same_file else None))
        phase = not m and _PHASE.match(t)
        out.append(Line(t, stack[-1][1] if stack and not phase else None))
    return out


_LOC_ALIAS = re.compile(r'^(#loc\d+) = loc\("(?:[^"\\]|\\.)*"\("((?:[^"\\]|\\.)*)":(\d+):\d+\)\)$')
_LOC_USE = re.compile(r"loc\((#loc\d+)\)$")


def hlo_lines(text, file) -> list[Line]:
    """The lowered module `text` with its per-op locations: an op (or a location
    alias) whose location is in `file` carries that line."""
    located = with_locations(text).splitlines()
    where = {}
    for t in located:
        m = _LOC_ALIAS.match(t)
        if m and re.sub(r"\\(.)", r"\1", m.group(2)) == file:
            where[m.group(1)] = int(m.group(3))
    out, opened = [], []   # opened: (indent, index) of ops whose regions are open
    for t in located:
        m = _LOC_ALIAS.match(t) or _LOC_USE.search(t)
        line = where.get(m.group(1)) if m else None
        indent = len(t) - len(t.lstrip())
        if t.endswith("({"):
            opened.append((indent, len(out)))
        elif opened and t.lstrip().startswith("})") and indent == opened[-1][0]:
            k = opened.pop()[1]     # the op's first line: its location is on its last
            out[k] = Line(out[k].text, line)
        out.append(Line(t, line))
    return out


# ------------------------------------------------------- estimated per-line cost
#
# XLA's cost analysis covers the whole module, so the per-line figures are estimated
# from each StableHLO op's shapes with XLA's counting rules: a dot or convolution costs
# two flops per multiply-add (a convolution's padded taps included, so it is an upper
# bound), an elementwise op one per element (exp, log, tanh, sin, sqrt, ... count as
# transcendentals instead), a reduction its combiner's ops once per combined element;
# data movement (reshape, slice, gather, ...) and library calls count nothing. Ops in a
# `while` body are counted once, as per-iteration figures.

_TRANSCENDENTAL = frozenset((
    "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "sine",
    "cosine", "tan", "tanh", "sqrt", "rsqrt", "cbrt", "power", "atan2", "erf"))
_ELEMENTWISE = frozenset((
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "negate",
    "abs", "sign", "compare", "select", "clamp", "floor", "ceil", "round_nearest_afz",
    "round_nearest_even", "and", "or", "xor", "not", "is_finite", "shift_left",
    "shift_right_arithmetic", "shift_right_logical", "popcnt", "count_leading_zeros"))
_COMBINERS = frozenset(("reduce", "reduce_window"))   # their region is a scalar combiner
_OP = re.compile(r'^\s*(?:%[\w#:]+(?:, %[\w#:]+)* = )?"stablehlo\.(\w+)"')
_SIGNATURE = re.compile(r" : \((.*)\) -> (.*?)(?: loc\(#loc\d+\))?$")
_TENSOR = re.compile(r"tensor<((?:\d+x)*)\w+>")


@dataclass
class LineCost:
    """The estimated cost of the ops lowered from one user line."""
    flops: int = 0
    transcendentals: int = 0
    per_iteration: bool = False   # some of its ops are in a `while` body
    library_calls: int = 0        # custom calls (LAPACK, ...): not estimated

    def __str__(self):
        parts = [f"{self.flops:,} flop{'s' * (self.flops != 1)}"] if self.flops else []
        if self.transcendentals:
            parts.append(f"{self.transcendentals:,} transc.")
        text = " + ".join(parts) + (" /iter" if self.per_iteration and parts else "")
        if self.library_calls:
            text += (" + " if text else "") + "library call (not estimated)"
        return text


def _shapes(types):
    return [tuple(int(d) for d in m.group(1).split("x") if d) for m in _TENSOR.finditer(types)]


def _op_cost(op, text, body_ops):
    """(flops, transcendentals) of one op from its printed line (the signature line
    for an op with regions); `body_ops`: the elementwise ops of its combiner."""
    sig = _SIGNATURE.search(text)
    if sig is None:
        return 0, 0
    ins, outs = _shapes(sig.group(1)), _shapes(sig.group(2))
    if not outs:
        return 0, 0
    n_out = math.prod(outs[0])
    if op in _TRANSCENDENTAL:
        return 0, n_out
    if op in _ELEMENTWISE:
        return n_out, 0
    if op == "dot_general" and ins:
        m = re.search(r"lhs_contracting_dimensions = \[([\d, ]*)\]", text)
        k = math.prod(ins[0][int(d)] for d in m.group(1).split(",") if d.strip()) if m else 1
        return 2 * n_out * k, 0
    if op == "convolution" and len(ins) > 1:
        spec = re.search(r"\]x\[([^\]]*)\]->", text)
        kernel = ins[1]
        o = [d.strip() for d in spec.group(1).split(",")].index("o") if spec else 0
        return 2 * n_out * (math.prod(kernel) // max(kernel[o], 1)), 0
    if op == "reduce" and ins:
        return (math.prod(ins[0]) - n_out) * body_ops, 0
    if op == "reduce_window":
        m = re.search(r"window_dimensions = array<i64: ([\d, ]*)>", text)
        window = math.prod(int(d) for d in m.group(1).split(",")) if m else 1
        return n_out * (window - 1) * body_ops, 0
    return 0, 0


def line_costs(hlo: list[Line]) -> dict[int, LineCost]:
    """Estimated cost per user line of the StableHLO view `hlo` (see above)."""
    costs: dict[int, LineCost] = {}
    opened = []   # (indent, op, ops counted in its region so far) of ops with regions

    def charge(op, line, text, body_ops=0):
        flops, trans = _op_cost(op, text, body_ops)
        calls = int(op == "custom_call")
        if line is None or not (flops or trans or calls):
            return
        c = costs.setdefault(line, LineCost())
        c.flops, c.transcendentals = c.flops + flops, c.transcendentals + trans
        c.library_calls += calls
        c.per_iteration |= any(o == "while" for _, o, _ in opened)

    for ln in hlo:
        body = ln.text.lstrip()
        indent = len(ln.text) - len(body)
        m = _OP.match(ln.text)
        if m and ln.text.endswith("({"):
            opened.append((indent, m.group(1), [0]))
        elif opened and body.startswith("})") and indent == opened[-1][0]:
            _, op, inner = opened.pop()
            charge(op, ln.origin, ln.text, inner[0])
        elif m:
            if opened and opened[-1][1] in _COMBINERS:
                inner = opened[-1][2]
                inner[0] += m.group(1) in _ELEMENTWISE or m.group(1) in _TRANSCENDENTAL
            else:
                charge(m.group(1), ln.origin, ln.text)
    return costs


def _cost_lines(lowered) -> list[str]:
    try:
        exe = lowered.compile()._entry.executable.exe
        costs = exe.cost_analysis()
        costs = costs[0] if isinstance(costs, list) else costs
        mem = exe.get_compiled_memory_stats()
    except Exception as e:  # the cost analysis is a courtesy: the page still renders
        return [f"cost analysis unavailable: {type(e).__name__}: {e}"]
    rows = [f"{k}: {costs[k]:g}" for k in ("flops", "transcendentals", "bytes accessed")
            if k in costs]
    rows += [f"{k.replace('_in_bytes', '').replace('_', ' ')}: {getattr(mem, k)} bytes"
             for k in ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes")]
    return rows


def explain_views(fn, *args, argnums=0, **kwargs) -> dict:
    """The views of `fn` at `args`: a dict of name -> list of `Line` (plus 'file',
    'name' and 'cost'). The derivative view is present when `fn` returns a real
    scalar (it is `grad(fn, argnums)`), otherwise it holds the reason."""
    orig = _original(fn)
    file, src = source_lines(orig)
    closed = api.make_jaxpr(fn)(*args, **kwargs)
    views = {"name": orig.__qualname__, "file": file, "source": src,
             "converted": converted_lines(orig), "jaxpr": jaxpr_lines(closed, file)}
    outs = closed.out_avals
    if len(outs) == 1 and outs[0].shape == () and outs[0].dtype.kind == "f":
        views["derivative"] = derivative_lines(
            source(grad(fn, argnums=argnums), *args, **kwargs), file)
    else:
        views["derivative"] = [Line("# no derivative view: the function does not return "
                                    "a real scalar")]
    lowered = api.jit(fn).lower(*args, **kwargs)
    views["hlo"] = hlo_lines(str(lowered), file)   # the emitted text, with its origins
    views["line_cost"] = line_costs(views["hlo"])
    total = LineCost(sum(c.flops for c in views["line_cost"].values()),
                     sum(c.transcendentals for c in views["line_cost"].values()))
    views["cost"] = _cost_lines(lowered) + [
        f"beside the source: estimates from op shapes (sum: {str(total) or '0 flops'}); "
        "above: XLA's, whole module"]
    return views


# ------------------------------------------------------------------ the page


def _render(lines, cls, costs=None):
    rows = []
    for ln in lines:
        attr = f' data-line="{ln.origin}"' if ln.origin is not None else ""
        num = f'<span class="no">{ln.origin}</span>' if cls == "src" else ""
        cost = (costs or {}).get(ln.origin) if cls == "src" else None
        if cost:  # shown by CSS (::after), so it is not part of the line's text
            attr += f' data-cost="{html.escape(str(cost))}"'
        rows.append(f'<div class="ln {cls}"{attr}>{num}{html.escape(ln.text) or " "}</div>')
    return "\n".join(rows)


def explain(fn, *args, argnums=0, **kwargs) -> str:
    """A self-contained HTML page explaining `fn` at `args` (see the module docstring);
    `argnums` picks the arguments of the derivative view."""
    v = explain_views(fn, *args, argnums=argnums, **kwargs)
    with open(_TEMPLATE, encoding="utf-8") as fh:
        template = string.Template(fh.read())
    return template.substitute(
        title=html.escape(f"astjax explain: {v['name']}"),
        name=html.escape(v["name"]), file=html.escape(v["file"]),
        source=_render(v["source"], "src", v["line_cost"]), converted=_render(v["converted"], "cv"),
        jaxpr=_render(v["jaxpr"], "eq"), derivative=_render(v["derivative"], "dv"),
        hlo=_render(v["hlo"], "hlo"),
        cost="".join(f"<li>{html.escape(c)}</li>" for c in v["cost"]))


def write_explain(path, fn, *args, argnums=0, **kwargs) -> str:
    """Write `explain(fn, *args)` to `path`; returns the path."""
    page = explain(fn, *args, argnums=argnums, **kwargs)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page)
    return path
