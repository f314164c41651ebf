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
    # visits before (issue 14's 600-statement row), 20 per statement now
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
    assert len(seen) <= 20 * 202, len(seen)


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
