"""Mechanism tests for issue 14's front-end rows (first calls of fresh functions: the
600-statement function, small nested-cond depths): how often the converters walk a
function, counted, never timed."""
import textwrap

import gast
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax.frontend import canonicalize, converter


def _nested_defs_source(n):
    lines = ["def outer(x):"]
    for i in range(n):
        lines += [f"    def h{i}(y):", f"        return jnp.sin(y) * {i}.0 + y"]
    lines.append("    return " + " + ".join(f"h{i}(x)" for i in range(n)))
    return "\n".join(lines) + "\n"


def _load(tmp_path, name, src, ns):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(src))
    exec(compile(path.read_text(), str(path), "exec"), ns)
    return ns


def test_each_nested_def_is_checked_for_yield_once(monkeypatch, tmp_path):
    # the canonicalizer and both converters ask `converted_method` of every nested
    # `def`; the walk that answers it (looking for `yield`) runs once per def
    walks = []
    orig = canonicalize._contains

    def counted(stmts, kinds, *a, **k):
        if kinds == (gast.Yield, gast.YieldFrom):
            walks.append(len(stmts))
        return orig(stmts, kinds, *a, **k)
    monkeypatch.setattr(canonicalize, "_contains", counted)
    ns = _load(tmp_path, "nested_defs", _nested_defs_source(6), {"jnp": jnp})
    x = jnp.arange(3.0)
    out = astjax.jit(ns["outer"])(x)
    assert len(walks) == 6, walks
    want = sum(np.sin(np.arange(3.0)) * i + np.arange(3.0) for i in range(6))
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)


def test_a_nested_generator_stays_plain_python(tmp_path):
    ns = _load(tmp_path, "nested_gen", '''
        def outer(x):
            def gen(n):
                for i in range(n):
                    yield i
            total = x * 0.0
            for i in gen(3):
                total = total + x * i
            return total
        ''', {})
    np.testing.assert_allclose(np.asarray(astjax.jit(ns["outer"])(jnp.ones(2))), [3.0, 3.0])
    assert converter.converted_source(ns["outer"]).count("yield i") == 1


def test_the_converters_do_not_visit_leaf_nodes(monkeypatch, tmp_path):
    # contexts, operators and constants have no child nodes and no visitor of their
    # own in either converter: `generic_visit` skips them. 600 statements: 24,024
    # visits before (issue 14's 600-statement row), 20 per statement then, and 10 now
    # that a function of plain statements is converted in one walk
    from astjax.frontend import astbridge
    seen = []
    orig = astbridge.Transformer.visit

    def counted(self, node):
        seen.append(type(node))
        return orig(self, node)
    monkeypatch.setattr(astbridge.Transformer, "visit", counted)
    from test_perf_statements import _source
    ns = _load(tmp_path, "straight", _source(200), {"jnp": jnp})
    converter.converted_ast(ns["f"])
    assert not set(seen) & astbridge._LEAF_CLASSES
    assert len(seen) <= 10 * 202, len(seen)   # one walk (`converter._OneWalk`)


def test_skipping_leaves_converts_every_shared_function_alike(monkeypatch):
    # the same converted code with and without the skip, over the shared collection
    import ast

    from astjax.frontend import astbridge
    from functions import CASES
    fast = {c.name: ast.dump(converter.converted_ast(c.fn), include_attributes=True)
            for c in CASES}
    monkeypatch.setattr(astbridge.Transformer, "_leaves", classmethod(lambda cls: frozenset()))
    for c in CASES:
        assert ast.dump(converter.converted_ast(c.fn), include_attributes=True) == fast[c.name], c.name


def _converted_gast(fn, monkeypatch):
    """The converted gast module of `fn`, as `converter._converted_module` hands it to
    `astbridge.to_ast`."""
    from astjax.frontend import astbridge
    box = []
    with monkeypatch.context() as m:
        m.setattr(astbridge, "to_ast", lambda module: box.append(module) or module)
        converter._converted_module(fn)
    return box[0]


def test_to_ast_is_gasts_translation_made_of_the_same_objects(monkeypatch):
    # issue 14 (600 statements: a quarter of the translation was a second tree):
    # `to_ast` turns the converted tree into ast in place -- every node of the result
    # but the shared contexts and operators is an object of the gast tree -- and gives
    # gast's translation plus `fix_missing_locations`, field for field and position for
    # position, over the shared collection (generated nodes without positions included)
    import ast

    from astjax.frontend import astbridge
    from functions import CASES
    for c in CASES:
        g = _converted_gast(c.fn, monkeypatch)
        want = ast.dump(ast.fix_missing_locations(gast.gast_to_ast(g)), include_attributes=True)
        before = {id(n) for n in gast.walk(g)}
        got = astbridge.to_ast(g)
        assert ast.dump(got, include_attributes=True) == want, c.name
        nodes = [n for n in ast.walk(got) if n._fields or n._attributes]
        assert all(id(n) in before for n in nodes), c.name
        assert not any(isinstance(n, gast.AST) and type(n).__module__.startswith("gast")
                       for n in nodes), c.name


def test_parsed_files_are_kept_within_a_text_budget(tmp_path, monkeypatch):
    # the parsed trees of files whose functions were staged are kept by total text,
    # not by a count of files (256 trees were kept: 290,000 objects after the
    # benchmark's long functions, which every older-generation collection walked)
    from astjax.frontend import parser
    from test_perf_statements import _source
    text = _source(40)
    monkeypatch.setattr(parser, "_TEXT_BUDGET", 3 * len(text) + 1)
    parser._parse_file.cache_clear()
    for i in range(8):
        ns = _load(tmp_path, f"budget_{i}", text, {"jnp": jnp})
        assert parser.find_function_node(ns["f"])[0].name == "f"
    info = parser._parse_file.cache_info()
    assert (info.misses, info.currsize, info.chars) == (8, 3, 3 * len(text)), info
    # the newest file stays whatever its size: its other functions parse it once
    parser._definitions.cache_clear()
    big = _source(200)
    ns = _load(tmp_path, "budget_big", big + big.replace("def f(", "def g("), {"jnp": jnp})
    assert [parser.find_function_node(ns[n])[0].name for n in "fg"] == ["f", "g"]
    assert parser._parse_file.cache_info().currsize == 1
    info = parser._definitions.cache_info()
    assert (info.misses, info.hits, info.currsize) == (1, 1, 1), info


_EXPRESSIONS_SOURCE = """
import numpy as np


def conditional(x, c):
    return x * 2.0 if c > 0 else -x


def boolean(x, a, b):
    y = a and b or not a
    z = 0 < a < 3 < b
    w = (lambda v: v if v > 0 else -v)(x)
    u = not (a if b else not b)
    return y, z, w, u


def bound_in_branches(x, xs):
    # `i` and `j` are bound where Python evaluates them first (a conditional
    # expression's test, the first operand of `and`): this function's own names (`:=`
    # in an operand evaluated only sometimes is a located error: test_fuzz_constructs)
    y = [i for i in xs] if (i := x) else xs
    i.append(y)
    t = (j := 1) and x > 0
    j.append(t)
    return y


def mixed(x, lst):
    lst.append(x)
    lst[0] = x if x else lst
    return -x, +x, np.sin(x) if x is not None else None
"""


def test_one_walk_converts_as_the_two_walks(tmp_path, monkeypatch):
    # a function of plain statements is converted in one walk (`converter._OneWalk`):
    # the same code as the control-flow converter's walk followed by the converter's,
    # over the shared collection and expressions the first walk rewrites
    import ast

    from astjax.frontend import control_flow
    from functions import CASES
    ns = _load(tmp_path, "expressions", _EXPRESSIONS_SOURCE, {})
    fns = [c.fn for c in CASES] + [ns[n] for n in ("conditional", "boolean",
                                                   "bound_in_branches", "mixed")]
    one = {f: ast.dump(converter.converted_ast(f), include_attributes=True) for f in fns}
    walks = []
    monkeypatch.setattr(converter._OneWalk, "__init__",
                        lambda self, *a: walks.append(a) or converter.Converter.__init__(
                            self, a[0]) or setattr(self, "control", a[1]))
    for f in fns[len(CASES):]:
        converter.converted_ast(f)
    assert len(walks) == 4
    for f in fns[:len(CASES)]:
        converter.converted_ast(f)
    assert len(walks) > 4 + 10   # (and the shared collection's straight-line functions)
    monkeypatch.setattr(control_flow, "expressions_only", lambda node: False)
    for f in fns:
        assert ast.dump(converter.converted_ast(f), include_attributes=True) == one[f], f
    assert "ag__.call(i.append, y)" in ast.unparse(
        converter.converted_ast(ns["bound_in_branches"]))
