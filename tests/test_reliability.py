"""Minimal repros of what the differential fuzzer (tests/fuzz) found, one per root
cause (issue 12, R1...), and the converter's invariant: converted code never reads a
local of a generated function before assigning it."""
import ast
import symtable

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.frontend.converter import converted_source


# ---------------------------------------------------------------- R1
def _r1_dead_store(x, s):
    if s > 0:
        s = s * 2.0               # s is not used after the if
    return x


def _r1_two_returns(x):
    if x.shape[0] > 5:
        return x
    if x.shape[0] > 1:
        return 2.0 * x
    return -x


def _r1_continue_and_return(x):
    for i in range(3):
        if jnp.sum(x) > 100.0:
            return x
        if i == 1:
            continue
        x = x * 2.0
    return x


def _r1_dead_store_static(x):
    y = x
    if x.shape[0] > 1:
        y = y + 1.0               # y dead after the if, read before assigned
    return x * 3.0


def test_r1_branch_reads_name_it_assigns_dead_after_if():
    x = jnp.ones(3)
    np.testing.assert_allclose(astjax.jit(_r1_dead_store)(x, 0.5), np.ones(3))
    np.testing.assert_allclose(astjax.jit(_r1_dead_store)(x, -0.5), np.ones(3))


def test_r1_two_early_returns():
    np.testing.assert_allclose(astjax.jit(_r1_two_returns)(jnp.ones(3)), 2.0 * np.ones(3))
    np.testing.assert_allclose(astjax.jit(_r1_two_returns)(jnp.ones(1)), -np.ones(1))


def test_r1_continue_and_return_in_one_loop():
    np.testing.assert_allclose(astjax.jit(_r1_continue_and_return)(jnp.ones(2)), 4.0 * np.ones(2))


def test_r1_static_test_dead_store():
    np.testing.assert_allclose(astjax.jit(_r1_dead_store_static)(jnp.ones(2)), 3.0 * np.ones(2))


# ---------------------------------------------------------------- invariant
def _reads_before_assign(text):
    """(function, name) pairs where a generated function reads one of its locals
    before any assignment to it, in source order (converted bodies are straight-line:
    every branch and loop inside them is a call of another generated function)."""
    tree = ast.parse(text)
    fns = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            fns.setdefault((node.name, node.lineno), node)
    bad = []

    def visit(table):
        for child in table.get_children():
            visit(child)
        if table.get_type() != "function" or not table.get_name().startswith("ag__fn_"):
            return
        local = {s.get_name() for s in table.get_symbols()
                 if s.is_local() and not s.is_parameter() and s.is_assigned()
                 and s.is_referenced()}
        node = fns[(table.get_name(), table.get_lineno())]
        seen = set()

        def walk(n):
            if isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not node:
                if isinstance(n, ast.FunctionDef):
                    seen.add(n.name)
                return
            if isinstance(n, ast.Assign):   # value first, then targets
                walk(n.value)
                for t in n.targets:
                    walk(t)
                return
            if isinstance(n, ast.Name) and n.id in local:
                if isinstance(n.ctx, ast.Load) and n.id not in seen:
                    bad.append((table.get_name(), n.id))
                seen.add(n.id)
            for c in ast.iter_child_nodes(n):
                walk(c)
        for stmt in node.body:
            walk(stmt)
    visit(symtable.symtable(text, "<converted>", "exec"))
    return bad


@pytest.mark.parametrize("fn", [_r1_dead_store, _r1_two_returns, _r1_continue_and_return,
                                _r1_dead_store_static])
def test_converted_code_reads_no_local_before_assigning(fn):
    assert _reads_before_assign(converted_source(fn)) == []


def test_fuzz_programs_convert_without_reads_before_assign():
    from fuzz.checks import load
    from fuzz.gen import generate
    for seed in range(40):
        mod = load(generate(seed).render("jax"), "inv")
        assert _reads_before_assign(converted_source(mod.f)) == [], seed
