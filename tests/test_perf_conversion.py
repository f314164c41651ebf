"""Mechanism tests for issue 14's first-call cost of source conversion (the front end:
parse, ast -> gast, converters, gast -> ast, `compile`, and the position table of the
converted code). Each pins *what work* a first call does -- tables built, trees
translated -- never a time."""
import linecache

import gast
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors
from test_perf_statements import _source as _long_source   # the benchmark's function


def _from_file(tmp_path, src, tag):
    """`f` defined in a real file (the converter reads the source through linecache)."""
    path = str(tmp_path / f"{tag}.py")
    with open(path, "w") as fh:
        fh.write(src)
    linecache.checkcache(path)
    ns = {"jnp": jnp}
    exec(compile(src, path, "exec"), ns)
    return ns["f"], path


@pytest.fixture
def tables(monkeypatch):
    """How many position tables of code objects are built while the test runs."""
    built = [0]
    orig = errors._positions

    def counted(code):
        built[0] += 1
        return orig(code)
    monkeypatch.setattr(errors, "_positions", counted)
    return built


def test_first_call_builds_no_position_table(tables, tmp_path):
    """Staging records each operation's location as (code, instruction); the converted
    code's position table (one entry per code unit) is built only when a location is
    read -- an error, a printed location -- not on a first call that raises nothing."""
    f, _ = _from_file(tmp_path, _long_source(4), "no_table")
    x = jnp.ones(3)
    astjax.jit(f)(x).block_until_ready()
    astjax.make_jaxpr(astjax.grad(lambda x: f(x).sum()))(x)
    astjax.make_jaxpr(astjax.vmap(f))(jnp.ones((2, 3)))
    assert tables[0] == 0


def _eqn_infos(closed):
    return [e.source_info for e in closed.jaxpr.eqns]


def test_deferred_locations_are_the_code_positions(tmp_path):
    """Every staged equation's line and columns, read after staging, are the
    positions of the user's expression: `jnp.sin(...)`, the products and the sum
    around it."""
    f, path = _from_file(tmp_path, _long_source(3), "positions")
    infos = _eqn_infos(astjax.make_jaxpr(f)(jnp.ones(3)))
    got = [(i.file, i.line, i.col, i.end_col) for i in infos]
    text = linecache.getlines(path)
    want = [(path, 2, 9, 16)]   # a0 = x * 1.0
    for line in (3, 4, 5):
        src = text[line - 1].rstrip()
        sin, right = src.index("jnp.sin"), src.index("+ ") + 2
        want += [(path, line, sin, src.index(")") + 1),     # jnp.sin(a_i)
                 (path, line, sin, src.index("0.5") + 3),   # ... * 0.5
                 (path, line, right, len(src)),             # a_j * 0.25
                 (path, line, sin, len(src))]               # ... + ...
    assert got == want


def test_replace_keeps_the_location_deferred_and_equal(tmp_path):
    f, path = _from_file(tmp_path, _long_source(2), "replace")
    info = _eqn_infos(astjax.make_jaxpr(f)(jnp.ones(3)))[1]
    named = info.replace(name="a1", phase="forward")
    assert named._code is not None and info._code is not None   # neither resolved
    assert (named.name, named.phase, named.file) == ("a1", "forward", path)
    assert (named.line, named.col, named.end_col) == (info.line, info.col, info.end_col) \
        == (3, 9, 20)
    moved = info.replace(line=7)
    assert (moved.line, moved.col, moved.file) == (7, 9, path)
    assert type(moved) is errors.SourceInfo


def test_errors_still_point_at_the_operation(tmp_path):
    src = "def f(x):\n    y = x * 2\n    z = y.reshape(7)\n    return z\n"
    f, path = _from_file(tmp_path, src, "located")
    with pytest.raises(astjax.errors.AstjaxError) as e:
        astjax.jit(f)(jnp.ones(3))
    assert (e.value.loc.file, e.value.loc.line, e.value.loc.col) == (path, 3, 8)
    assert f"{path}:3:9" in str(e.value)


def _visited(transformer_cls, fn):
    seen = []
    orig = transformer_cls.visit

    def visit(self, node):
        seen.append(type(node))
        return orig(self, node)
    t = type("Counted", (transformer_cls,), {"visit": visit})
    t().visit(fn)
    return seen


def test_names_are_not_visited_by_a_transformer_without_a_name_visitor():
    """A `Name`'s only possible child is a parameter's annotation: a transformer with
    no `visit_Name` leaves the plain ones unvisited (the most common node: 2,400 of
    6,000 visits of the 600-statement function), and still visits an annotation."""
    from astjax.frontend import astbridge

    class Constants(astbridge.Transformer):
        def __init__(self):
            self.values = []

        def visit_Constant(self, node):
            self.values.append(node.value)
            return node

    class Reference(gast.NodeTransformer):
        visit_Constant = Constants.visit_Constant

        def __init__(self):
            self.values = []

    src = "def f(x: 3, y=4):\n    z = x + y * 5\n    return g(z, w=6)\n"
    ours, ref = Constants(), Reference()
    ours.visit(gast.parse(src).body[0])
    ref.visit(gast.parse(src).body[0])
    assert ours.values == ref.values == [3, 4, 5, 6]
    assert _visited(Constants, gast.parse(src).body[0]).count(gast.Name) == 1   # `x: 3`


_MODULE = '''from __future__ import annotations

import functools


def scale(x: float) -> float:
    return x * 2.0 * math.cos(0.0)   # (a method of an imported module)


@functools.wraps(scale)
def shifted(x):
    def inner(y):
        return y + 1.0
    return inner(x) * 3.0


class Model:
    def apply(self, x):
        return x - 1.0


if True:
    import math
'''


@pytest.mark.parametrize("edit", [False, True])
def test_a_top_level_function_is_checked_against_its_own_text(tmp_path, monkeypatch, edit):
    """R6 (the staged text is the text Python imported) for a top-level function
    compiles its definition with the module's imports alone -- its file's `__future__`
    features on, its lines in place -- not the whole module; a method or nested code, and an edited function,
    still compile the whole file (an edited one is a located SourceChangedError)."""
    import importlib
    import sys

    from astjax.frontend import parser
    name = f"conv_r6_mod_{int(edit)}"
    path = tmp_path / f"{name}.py"
    path.write_text(_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module(name)
    whole = [0]
    orig = parser._compiled_codes

    def counted(*a):
        whole[0] += 1
        return orig(*a)
    monkeypatch.setattr(parser, "_compiled_codes", counted)
    try:
        if edit:
            path.write_text(_MODULE.replace("x * 2.0", "x * 2.5"))
            linecache.checkcache(str(path))
            with pytest.raises(astjax.errors.SourceChangedError) as e:
                astjax.jit(m.scale)(1.0)
            assert (e.value.loc.file, e.value.loc.line) == (str(path), 6) and whole[0] >= 1
            return
        assert float(astjax.jit(m.scale)(1.0)) == 2.0
        assert float(astjax.jit(m.shifted)(1.0)) == 6.0
        assert whole[0] == 0
        assert float(astjax.jit(m.Model().apply)(1.0)) == 0.0   # a method: the file
        assert whole[0] == 1
    finally:
        sys.modules.pop(name, None)
