"""Mechanism tests for issue 14 (speed), the ast <-> gast bridge and the parser:
`astbridge` builds gast's trees (and back) in one translation each, a file is walked
once for all its functions, finding a `def` visits statements only, templates copy
nodes without `deepcopy`, the transformer looks each node class up once, and the
per-call checks (branch signatures, traced functions) avoid `inspect` and code
hashing. Each test pins *why* a first call is fast, never a time."""
import ast as _pyast
import collections
import functools
import pathlib
import sys

import gast
import numpy as np
import pytest

import astjax
from astjax import lax
from astjax.frontend import astbridge, control_flow, converter as _converter
from perf_helpers import nested_cond


def _first_of_file(x):
    return x + 1


def _second_of_file(x):
    return (lambda y: y * 2)(x)


def test_a_file_is_walked_once_for_all_its_functions():
    from astjax.frontend import parser
    parser._definitions.cache_clear()
    nodes = [parser.find_function_node(f)[0] for f in (_first_of_file, _second_of_file)]
    assert [n.name for n in nodes] == ["_first_of_file", "_second_of_file"]
    info = parser._definitions.cache_info()
    assert (info.misses, info.hits) == (1, 1), info   # was one walk of the file per function


def _bridge_files():
    root = pathlib.Path(astjax.__file__).parent
    return sorted(root.glob("frontend/*.py")) + [root / "core.py", pathlib.Path(__file__)]


@pytest.mark.parametrize("path", _bridge_files(), ids=lambda p: p.name)
def test_bridge_builds_the_trees_gast_builds(path):
    """`astbridge.to_gast` is gast's `ast_to_gast` and `to_ast` is `gast_to_ast` plus
    `fix_missing_locations`, field for field and position for position (also for
    nodes without positions, as the converter makes them)."""
    tree = _pyast.parse(path.read_text())
    g = astbridge.to_gast(tree)
    assert gast.dump(g, include_attributes=True) == \
        gast.dump(gast.ast_to_gast(tree), include_attributes=True)
    for i, node in enumerate(gast.walk(g)):   # generated nodes: no or None positions
        if i % 5 == 0 and isinstance(node, (gast.stmt, gast.expr)):
            for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                if i % 2:
                    node.__dict__.pop(a, None)
                else:
                    setattr(node, a, None)
    want = _pyast.fix_missing_locations(gast.gast_to_ast(g))
    assert _pyast.dump(astbridge.to_ast(g), include_attributes=True) == \
        _pyast.dump(want, include_attributes=True)


def test_conversion_translates_each_tree_once_without_gast_translators(monkeypatch):
    """A function is read into gast once and compiled from one `ast` translation:
    neither gast's generic translators nor a separate `fix_missing_locations` walk
    (about a quarter of converting a small function) run."""
    def refuse(*a, **k):
        raise AssertionError("gast's translator or fix_missing_locations ran")
    for mod, name in ((gast, "ast_to_gast"), (gast, "gast_to_ast"),
                      (_pyast, "fix_missing_locations")):
        monkeypatch.setattr(mod, name, refuse)
    calls, depth = collections.Counter(), [0]
    for name in ("to_gast", "to_ast"):
        def counted(node, _orig=getattr(astbridge, name), _name=name):
            calls[_name] += depth[0] == 0   # to_gast recurses through its module name
            depth[0] += 1
            try:
                return _orig(node)
            finally:
                depth[0] -= 1
        monkeypatch.setattr(astbridge, name, counted)
    f = nested_cond(4)
    _converter._factories.pop(f.__code__)
    _converter.convert(f)
    assert calls == {"to_gast": 1, "to_ast": 1}, calls


def test_finding_a_def_visits_statements_only(monkeypatch):
    """A `def` is found among the file's statements; the walk of every node (for
    lambdas, which sit inside expressions) runs only when a lambda is asked for."""
    from astjax.frontend import parser
    parser._definitions.cache_clear()
    parser._lambdas.cache_clear()
    walked = [0]

    def counted(node, _orig=_pyast.walk):
        walked[0] += 1
        return _orig(node)
    monkeypatch.setattr(_pyast, "walk", counted)
    node, _ = parser.find_function_node(_first_of_file)
    assert node.name == "_first_of_file" and walked[0] == 0
    lam = (lambda y: y + 1)
    node, _ = parser.find_function_node(lam)
    assert isinstance(node, _pyast.Lambda) and walked[0] == 1


def test_user_ag_names_are_looked_for_only_in_files_that_spell_them(monkeypatch, tmp_path):
    """No `ag__` in an ASCII file: no walk of the function for names to rename."""
    from astjax.frontend import parser
    f = _first_of_file
    assert parser.never_spells(f.__code__.co_filename, "ag__") is False   # this file does
    path = tmp_path / "plain_module.py"
    path.write_text("def g(x):\n    return x * 2\n\nlam = lambda ag: ag\n")
    ns: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    assert parser.never_spells(str(path), "ag__")
    walked = [0]

    def counted(node, _orig=gast.walk):
        walked[0] += 1
        return _orig(node)
    monkeypatch.setattr(gast, "walk", counted)
    node = parser.parse_function(ns["g"])[0]
    assert _converter._protect_user_names(node, ns["g"].__code__, str(path)) is node
    assert walked[0] == 0
    path2 = tmp_path / "spelled_module.py"
    path2.write_text("def h(ag__x):\n    return ag__x * 2\n")
    exec(compile(path2.read_text(), str(path2), "exec"), ns)
    assert not parser.never_spells(str(path2), "ag__")
    np.testing.assert_allclose(np.asarray(astjax.jit(ns["h"])(np.float32(2))), 4.0)


def test_templates_copy_nodes_without_deepcopy(monkeypatch):
    """Code put into a template (a branch body, a test) is copied node by node,
    not through `copy.deepcopy`'s pickle protocol."""
    import copy

    def refuse(*a, **k):
        raise AssertionError("copy.deepcopy ran")
    monkeypatch.setattr(copy, "deepcopy", refuse)
    fn = gast.parse("def f(x):\n    if x > 0:\n        y = x\n    else:\n        y = -x\n"
                    "    return y if y > 1 else 1 - y\n").body[0]
    out = control_flow.ControlFlowConverter("<if>").visit(fn)
    text = gast.unparse(out) if hasattr(gast, "unparse") else _pyast.unparse(astbridge.to_ast(out))
    assert "ag__.if_stmt" in text and "ag__.if_exp" in text


def _edits(base):
    """A transformer over `base` that drops, expands and replaces nodes."""
    class Edit(base):
        def visit_Pass(self, node):
            return None                                   # dropped from its list

        def visit_Expr(self, node):
            self.generic_visit(node)
            return [node, gast.Pass()] if isinstance(node.value, gast.Call) else node

        def visit_Name(self, node):
            return gast.Name(id=node.id.upper(), ctx=node.ctx, annotation=None,
                             type_comment=None) if node.id.startswith("x") else node

        def visit_Constant(self, node):
            return gast.Constant(value=node.value, kind=None) if node.value == 1 else node
    return Edit


def test_transformer_rewrites_as_gast_node_transformer_with_one_lookup_per_class(monkeypatch):
    """`astbridge.Transformer` (the converters' base) edits a tree exactly as
    `gast.NodeTransformer` does, looking each node class's method up once."""
    text = pathlib.Path(_converter.__file__).read_text() + \
        "\ndef g(x1, x2=1):\n    pass\n    print(x1)\n    return x2\n"
    want = _edits(gast.NodeTransformer)().visit(gast.parse(text))
    lookups = collections.Counter()
    orig = astbridge.Transformer._method_for.__func__

    def counted(cls, node_cls):
        lookups[node_cls] += 1
        return orig(cls, node_cls)
    monkeypatch.setattr(astbridge.Transformer, "_method_for", classmethod(counted))
    got = _edits(astbridge.Transformer)().visit(gast.parse(text))
    assert gast.dump(got, include_attributes=True) == gast.dump(want, include_attributes=True)
    assert lookups and max(lookups.values()) == 1, lookups


def test_branch_signatures_are_checked_from_the_code_object(monkeypatch):
    """`lax.cond` checks each branch takes the operands; for a plain function that
    binds, the check reads the code object (no `inspect.signature`); anything else,
    and every failure (for its message), still goes through `inspect`."""
    import inspect
    from astjax import errors
    calls = [0]

    def counted(fun, _orig=inspect.signature, **kw):
        calls[0] += sys._getframe(1).f_code is errors.check_signature.__code__
        return _orig(fun, **kw)
    monkeypatch.setattr(inspect, "signature", counted)
    x = np.float32(1.0)

    def two(a, b=1, *rest, k=2):
        return a
    for f, n in ((lambda y: y, 1), (two, 1), (two, 2), (two, 4)):
        errors.check_signature(f, (None,) * n)
    astjax.make_jaxpr(lambda v: lax.cond(v > 0, lambda y: y, lambda y: -y, v))(x)
    assert calls[0] == 0, calls
    for f, n in ((lambda y: y, 2), (two, 0), (lambda y, *, k: y, 1)):
        with pytest.raises(TypeError, match="called with"):
            errors.check_signature(f, (None,) * n)
    with pytest.raises(TypeError, match="lax.cond"):
        astjax.make_jaxpr(lambda v: lax.cond(v > 0, lambda y, z: y, lambda y: -y, v))(x)
    def one(a):
        return a
    # a wrapper's own parameters bind the call, not those along its __wrapped__ chain
    with pytest.raises(TypeError):
        errors.check_signature(functools.wraps(lambda *a: a)(one), (None, None))
    errors.check_signature(functools.wraps(two)(lambda *a: a), ())


def test_no_traced_function_means_no_code_hashing_per_staged_call(monkeypatch):
    """Every staged call asks whether its function runs traced (no source); while no
    function does, the answer needs no hash of a code object."""
    from astjax.frontend import sourceless

    def refuse(code):
        raise AssertionError("a code object was hashed")
    monkeypatch.setattr(sourceless, "_traced", {})
    monkeypatch.setattr(sourceless, "_key", refuse)
    assert not sourceless.is_traced(_first_of_file)
    monkeypatch.undo()
    code = _second_of_file.__code__
    monkeypatch.setitem(sourceless._traced, sourceless._key(code), "_second_of_file")
    assert sourceless.is_traced(_second_of_file) and not sourceless.is_traced(_first_of_file)


def test_bridge_shares_operator_nodes_and_keeps_gasts_rules_for_unparsed_nodes():
    """`to_gast` / `to_ast` share one context or operator node per class (as
    `ast.parse` does) and still build gast's trees for nodes a parser did not make:
    no positions, or None ones."""
    tree = _pyast.parse("a = b + c * d\nif not (a < b):\n    e = -a\n")
    g = astbridge.to_gast(tree)
    loads = [n for n in gast.walk(g) if isinstance(n, gast.Load)]
    assert len(loads) > 3 and all(n is loads[0] for n in loads)
    made = [_pyast.Name(id="x", ctx=_pyast.Load()),
            _pyast.Name(id="x", ctx=_pyast.Store(), lineno=None, col_offset=None, end_lineno=3,
                        end_col_offset=None),
            _pyast.BinOp(left=_pyast.Name(id="x", ctx=_pyast.Load(), lineno=2, col_offset=0,
                                          end_lineno=2, end_col_offset=1),
                         op=_pyast.Add(), right=_pyast.Constant(value=1))]
    for node in made:
        assert gast.dump(astbridge.to_gast(node), include_attributes=True) == \
            gast.dump(gast.ast_to_gast(node), include_attributes=True)
