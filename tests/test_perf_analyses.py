"""Mechanism tests for issue 14 (speed), the front end's scaling: the control-flow
converter and its analyses (liveness, reaching definitions, activity) visit each
statement and node a bounded number of times -- linear in a function's statements and
in the depth of nested functions, not quadratic; straight-line functions skip the
state analyses and convert exactly as with them. Each test pins *why* a first call is
fast, never a time."""
import ast as _pyast
import collections
import pathlib

import gast
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core
from astjax.frontend import astbridge, control_flow, converter as _converter
from perf_helpers import count_calls, long_function, straight_function


def _walked_statements(monkeypatch, n):
    walked = [0]
    orig = control_flow._first_lines

    def counted(stmts, ctx=gast.Store):
        walked[0] += len(stmts)
        return orig(stmts, ctx)
    with monkeypatch.context() as m:
        m.setattr(control_flow, "_first_lines", counted)
        fn = gast.parse(long_function(n)).body[0]
        control_flow.ControlFlowConverter("<long>").visit(fn)
    return walked[0]


def test_visit_block_walks_each_statement_a_bounded_number_of_times(monkeypatch):
    w = {n: _walked_statements(monkeypatch, n) for n in (200, 400, 800)}
    assert w[800] <= 2 * w[400] + 50 and w[400] <= 2 * w[200] + 50, w  # linear, not n^2
    assert w[800] <= 3 * 800, w


def _nested_defs(depth):
    """`depth` functions each defined inside the previous one, each with an `if`."""
    lines = []
    for d in range(depth):
        pad = "    " * d
        lines += [f"{pad}def f{d}(x):", f"{pad}    if x > {d}:", f"{pad}        x = x - 1",
                  f"{pad}    else:", f"{pad}        x = x + 1"]
    for d in range(depth - 1, -1, -1):
        lines.append("    " * d + ("    return x" if d == depth - 1 else f"    return f{d + 1}(x)"))
    return "\n".join(lines) + "\n"


def _analysis_runs(monkeypatch, depth):
    """(statements annotated by liveness and reaching definitions plus functions whose
    free names were collected, the most times one function was resolved) while
    converting `_nested_defs(depth)`."""
    from astjax.frontend.analysis import liveness, reaching_definitions
    stmts, per_fn = [0], collections.Counter()
    with monkeypatch.context() as m:
        def free_names(fn, _orig=liveness.free_names):
            stmts[0] += 1
            return _orig(fn)
        m.setattr(liveness, "free_names", free_names)
        for mod in (liveness, reaching_definitions):
            def stmt(s, *a, _orig=mod._stmt):
                stmts[0] += 1
                return _orig(s, *a)

            def resolve_fn(fn, _orig=mod._resolve_fn, _mod=mod):
                per_fn[(_mod.__name__, id(fn))] += 1
                return _orig(fn)
            m.setattr(mod, "_stmt", stmt)
            m.setattr(mod, "_resolve_fn", resolve_fn)
        fn = gast.parse(_nested_defs(depth)).body[0]
        control_flow.ControlFlowConverter("<nested>").visit(fn)
    return stmts[0], max(per_fn.values())


def test_nested_functions_are_analysed_once_each(monkeypatch):
    runs = {d: _analysis_runs(monkeypatch, d) for d in (4, 8, 16)}
    assert all(most == 1 for _, most in runs.values()), runs   # not once per enclosing level
    s = {d: n for d, (n, _) in runs.items()}
    assert s[16] - s[8] == 2 * (s[8] - s[4]), s                # linear in depth (was quadratic)


def test_scope_declarations_are_found_without_walking_expressions(monkeypatch):
    import ast
    from astjax.frontend.analysis import liveness
    big = " + ".join(f"f(x{i})" for i in range(200))
    fn = gast.parse("def f(x):\n    global g\n    def h():\n        nonlocal x\n"
                    f"        x = {big}\n    if x:\n        y = {big}\n    return y\n").body[0]
    visited = [0]

    def counted(node, _orig=ast.iter_child_nodes):
        visited[0] += 1
        return _orig(node)
    monkeypatch.setattr(ast, "iter_child_nodes", counted)
    monkeypatch.setattr(gast, "iter_child_nodes", counted)
    assert control_flow.declared_globals(fn) == {"g"}
    assert liveness.nonlocal_names(fn) == {"x"}
    assert liveness.closure_names(fn.body).keys() == {"h"}
    assert visited[0] <= 10, visited   # statements only (was every node of the body)


def test_modified_names_skip_nested_function_bodies(monkeypatch):
    from astjax.frontend import astbridge
    from astjax.frontend.analysis import activity
    big = " + ".join(f"x{i}" for i in range(200))
    fn = gast.parse(f"def f(x):\n    def h(a=x):\n        z = {big}\n        return z\n"
                    "    y = h()\n    return y\n").body[0]
    seen = []

    def counted(node, _orig=astbridge.child_nodes):
        seen.append(type(node).__name__)
        return _orig(node)
    monkeypatch.setattr(astbridge, "child_nodes", counted)
    assert activity.modified(fn.body) == {"h", "y"}
    assert len(seen) <= 5, seen   # `y = h()` and `return y`, not h's 200 reads


def _activity_node_visits(monkeypatch, depth):
    """Nodes the activity analysis expands while converting `_nested_defs(depth)`."""
    from astjax.frontend.analysis import activity
    seen = [0]
    with monkeypatch.context() as m:
        def counted(node, _orig=astbridge.child_nodes):
            seen[0] += 1
            return _orig(node)
        m.setattr(astbridge, "child_nodes", counted)
        m.setattr(activity.astbridge, "child_nodes", counted)
        fn = gast.parse(_nested_defs(depth)).body[0]
        control_flow.ControlFlowConverter("<nested>").visit(fn)
    return seen[0]


def test_free_reads_of_nested_functions_are_collected_bottom_up_once(monkeypatch):
    """A function's free reads are kept on it (`ag_free_reads`): every enclosing
    function's liveness reuses them instead of walking the nested bodies again, so
    a chain of nested functions costs node visits linear in its depth (a top-down
    collection walks level k once per enclosing level: quadratic)."""
    from astjax.frontend.analysis import activity
    v = {d: _activity_node_visits(monkeypatch, d) for d in (8, 16, 32)}
    assert v[32] - v[16] <= 2 * (v[16] - v[8]) + 8, v
    fn = gast.parse("def f(a):\n    def g(x):\n        def h():\n            return a + x\n"
                    "        return h\n    return g\n").body[0]
    g = fn.body[0]
    h = g.body[0]
    assert activity.free_reads(g) == {"a"} and g.ag_free_reads == {"a"}
    assert h.ag_free_reads == {"a", "x"}   # kept on the way up
    control_flow.ControlFlowConverter("<nested>").visit(fn)
    assert activity.FREE_READS not in g.__dict__   # dropped once it is rewritten


def _annotation_size(stmts, attr):
    """Elements held by the distinct containers (sets, dicts, views) that the
    statements' `attr` annotations reach: the analysis' work and memory."""
    seen, total, todo = set(), 0, [getattr(s, attr, None) for s in stmts]
    while todo:
        v = todo.pop()
        if isinstance(v, tuple):
            todo.extend(v)
            continue
        if id(v) in seen or v is None or isinstance(v, str):
            continue
        seen.add(id(v))
        if hasattr(v, "__slots__") and not isinstance(v, (set, frozenset, dict)):
            todo.extend(getattr(v, k) for k in v.__slots__)
        elif isinstance(v, (set, frozenset, dict, type({}.keys()))):
            total += len(v)
    return total


def test_reaching_definitions_grow_linearly_with_statements():
    """`ag_defined_in` of statement i of a block is a view of the names bound on entry
    plus the block's first i statements' (one dict per block), not a set of its own:
    statement i of a straight-line function has i names defined before it, so sets
    per statement were quadratic (the 2000-statement first call)."""
    from astjax.frontend.analysis import liveness, reaching_definitions

    def held(n):
        fn = gast.parse(long_function(n)).body[0]
        reaching_definitions.resolve(fn)
        return fn, _annotation_size(list(liveness.scope_statements(fn.body)), "ag_defined_in")
    (_, a), (fn, b) = held(400), held(800)
    assert b <= 2 * a + 50, (a, b)
    definitely, maybe = fn.body[-1].ag_defined_in
    assert {"x", "a0", "a799", "a800"} <= definitely and "a801" not in maybe
    # loops and `with`: a loop target and what a trip binds are maybe-defined after
    fn = gast.parse("def f(x, n):\n    for i in n:\n        if x:\n            y = i\n"
                    "        z = x\n    while x:\n        w = 1\n    with g() as c:\n"
                    "        v = c\n    return x\n").body[0]
    reaching_definitions.resolve(fn)
    loop_if = fn.body[0].body[0]
    assert "i" in loop_if.ag_defined_in[0] and "z" not in loop_if.ag_defined_in[0]
    assert {"y", "z"} <= loop_if.ag_defined_in[1]          # bound by an earlier trip
    definitely, maybe = fn.body[-1].ag_defined_in
    assert set(definitely) == {"x", "n", "c", "v"}
    assert set(maybe) == {"x", "n", "i", "y", "z", "w", "c", "v"}


def _all_live_function(n):
    """`n` names each assigned once and all returned at the end: all live at once."""
    return ("def f(x):\n" + "".join(f"    a{i} = x * {i}\n" for i in range(n))
            + "    if x:\n        a0 = a1\n"
            + "    return [" + ", ".join(f"a{i}" for i in range(n)) + "]\n")


def test_liveness_grows_linearly_when_many_names_stay_live():
    """Liveness annotates only what the converter asks (compound statements, first
    statements of blocks): a run of plain statements updates one set in place, so a
    function whose `n` names all stay live to its end costs O(n), not a live set per
    statement (quadratic)."""
    from astjax.frontend.analysis import liveness

    def held(n):
        fn = gast.parse(_all_live_function(n)).body[0]
        liveness.resolve(fn)
        stmts = list(liveness.scope_statements(fn.body))
        return fn, sum(_annotation_size(stmts, a) for a in ("ag_live_in", "ag_live_out"))
    (_, a), (fn, b) = held(400), held(800)
    assert b <= 2 * a + 50, (a, b)
    if_ = fn.body[-2]
    assert if_.ag_live_out == {f"a{i}" for i in range(800)}
    assert if_.ag_live_in == {f"a{i}" for i in range(800)} | {"x"}
    assert fn.body[0].ag_live_in == {"x"}
    # a nested function that stays live keeps its free names live across assignments
    fn = gast.parse("def f(x):\n    g = lambda: y\n    y = x\n    z = 1\n    y = 2\n"
                    "    if x:\n        x = g()\n    return x\n").body[0]
    liveness.resolve(fn)
    assert fn.body[0].ag_live_out == {"x", "g", "y"} and fn.body[0].ag_live_in == {"x", "y"}


def test_local_names_are_collected_only_for_side_effect_checks(monkeypatch):
    """The converter asks for a function's own names only to judge a mutating call
    (`obj.append(v)`) or an item assignment on a name: a function with neither never
    walks its scope for them."""
    calls = []

    def counted(fn, _orig=_converter._local_names):
        calls.append(getattr(fn, "name", "<lambda>"))
        return _orig(fn)
    monkeypatch.setattr(_converter, "_local_names", counted)
    plain = gast.parse("def f(x):\n    def g(y):\n        return y * 2\n"
                       "    return g(x) + (lambda z: z)(x)\n").body[0]
    _converter.Converter("<plain>").visit(plain)
    assert calls == []
    mutating = gast.parse("def f(x, out):\n    acc = []\n    acc.append(x)\n"
                          "    out.append(x)\n    return acc\n").body[0]
    text = _pyast.unparse(astbridge.to_ast(_converter.Converter("<m>").visit(mutating)))
    assert calls == ["f"]                       # once, however many questions
    assert "ag__.mutation('out'" not in text            # `out` is a parameter: owned
    assert "ag__.call(out.append, x)" in text
    assert "ag__.call(acc.append, x)" in text


def test_whole_conversion_visits_nodes_linearly_in_statements(monkeypatch):
    """The issue's front-end scaling, in visited nodes: converting `n` statements
    (with a staged `if` every 50) visits each node a bounded number of times over all
    passes -- the converters' visits, the analyses' child walks and their statements."""
    from astjax.frontend.analysis import liveness, reaching_definitions
    counts = collections.Counter()

    def counting(name, orig):
        def run(*a, **k):
            counts[name] += 1
            return orig(*a, **k)
        return run
    monkeypatch.setattr(astbridge.Transformer, "visit",
                        counting("visit", astbridge.Transformer.visit))
    monkeypatch.setattr(astbridge, "child_nodes", counting("children", astbridge.child_nodes))
    monkeypatch.setattr(liveness, "_stmt", counting("live", liveness._stmt))
    monkeypatch.setattr(reaching_definitions, "_stmt", counting("defined",
                                                                reaching_definitions._stmt))

    def visits(n):
        counts.clear()
        _converter.convert_ast(gast.parse(long_function(n)).body[0], "<long>")
        return dict(counts)
    a, b = visits(500), visits(1000)
    assert set(a) == {"visit", "children", "live", "defined"}, a
    assert all(b[k] <= 2 * a[k] + 20 for k in a), (a, b)


def test_straight_line_functions_run_no_state_analyses(monkeypatch):
    """A function of plain statements only (no block, no nested `def`, no lambda bound
    to a name) has no state for the control-flow converter to find: reaching
    definitions, liveness and the locals' walk do not run over it (they ran over every
    statement), at any size; one `if` anywhere brings them back. Expression rewrites
    (`x if c else y` here) still happen."""
    from astjax.frontend.analysis import activity, liveness, reaching_definitions
    counts = count_calls(monkeypatch, [(liveness, "_stmt", "live"),
                                        (reaching_definitions, "_stmt", "defined"),
                                        (activity, "modified", "modified")])

    def run(src):
        counts.clear()
        out = _converter.convert_ast(gast.parse(src).body[0], "<straight>")
        return dict(counts), _pyast.unparse(astbridge.to_ast(out))
    for n in (100, 400):
        seen, text = run(straight_function(n))
        assert seen == {}, seen
        assert text.count("ag__.if_exp(") == n
    seen, _ = run(straight_function(100).replace("    return", "    if x:\n        x = -x\n    return"))
    assert seen["live"] > 0 and seen["defined"] > 100 and seen["modified"] > 0, seen
    # a lambda bound to a name is a closure: its captured names need the analyses
    seen, _ = run("def f(x):\n    g = lambda: y\n    y = x\n    return g()\n")
    assert seen["live"] > 0, seen


@pytest.mark.parametrize("module", ["tests/functions.py", "astjax/frontend/control_flow.py"])
def test_straight_line_shortcut_converts_as_the_full_analysis_does(module, monkeypatch):
    """The shortcut changes no conversion: every function of a file of the repository
    converts to the same code with it and with the analyses forced (6502 functions of
    the repository compared when it was written)."""
    import copy
    root = pathlib.Path(__file__).resolve().parent.parent
    tree = _pyast.parse((root / module).read_text())
    shortcut = control_flow._straight_line
    seen = 0
    for node in _pyast.walk(tree):
        if not isinstance(node, _pyast.FunctionDef):
            continue
        outs = []
        for straight in (shortcut, lambda body: False):
            monkeypatch.setattr(control_flow, "_straight_line", straight)
            try:
                out = _converter.convert_ast(astbridge.to_gast(copy.deepcopy(node)), module)
                outs.append(_pyast.unparse(astbridge.to_ast(out)))
            except Exception as e:   # an unsupported construct: the same error both ways
                outs.append(f"{type(e).__name__}: {e}")
        seen += shortcut(astbridge.to_gast(copy.deepcopy(node)).body)
        assert outs[0] == outs[1], (module, node.name, node.lineno)
    assert seen > 5


def test_first_call_walks_each_node_a_bounded_number_of_times(monkeypatch, tmp_path):
    """The whole front end of a first call -- ast -> gast, both converters, gast ->
    ast -- and staging, counted at two sizes: node visits per source node are bounded
    (a fixed number of tree walks, none per statement), and staging locates each
    equation once."""
    from astjax import errors
    counts = count_calls(monkeypatch, [
        (astbridge, "to_gast", "to_gast"), (astbridge, "_to_ast", "to_ast"),
        (astbridge.Transformer, "visit", "visit"), (core.Builder, "add_eqn", "eqns"),
        (errors, "_frame_location", "located")])

    def first_call(n):
        path = tmp_path / f"walks_{n}.py"
        path.write_text(long_function(n))
        ns = {}
        exec(compile(path.read_text(), str(path), "exec"), ns)
        nodes = sum(1 for _ in _pyast.walk(_pyast.parse(path.read_text())))
        counts.clear()
        astjax.jit(ns["f"]).lower(jnp.ones(()))
        return dict(counts), nodes
    (a, na), (b, nb) = first_call(300), first_call(1200)
    for k in ("to_gast", "to_ast", "visit"):
        assert a[k] <= 6 * na and b[k] <= 6 * nb, (k, a, na, b, nb)
        assert b[k] <= 4 * a[k] + 50, (k, a, b)
    # (and once more per staged `if`: its branches' origin for error messages)
    assert a["located"] <= a["eqns"] + 300 // 50 and b["located"] <= b["eqns"] + 1200 // 50, \
        (a, b)
    assert b["eqns"] <= 4 * a["eqns"] + 10, (a, b)
