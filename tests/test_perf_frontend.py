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
