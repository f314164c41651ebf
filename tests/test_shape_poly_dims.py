"""Symbolic dimension arithmetic and decisions against JAX 0.10.2's stored answers
(tests/oracle/record_shape_poly_dims.py -> shape_poly_dims.json): exact and
non-exact polynomial division, `max` / `min` atoms, comparisons JAX's decision
procedure proves from constraints and the atoms' implicit bounds, equality
constraints as rewrites, true division and float operands (a dimension used as an
array value: JAX's error outside a staged function, a value inside one), and
exports called under constraints with JAX's shape-assertion errors."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import export

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
from record_shape_poly_dims import CALLS, TABLE, evaluate_all, run_calls  # noqa: E402
from oracle import compare  # noqa: E402

ORACLE = compare.load("shape_poly_dims")


@pytest.fixture(scope="module")
def dims():
    return evaluate_all(export)


def _same(got, want):
    assert got == want


@pytest.mark.parametrize("scope,text", [(k, e) for k, es in TABLE.items() for e in es])
def test_dimension_expressions_as_jax(dims, scope, text):
    _same(dims[scope][text], ORACLE["dims"][scope][text])


def test_the_table_is_large_and_decides_both_ways():
    values = [w.get("value") for es in ORACLE["dims"].values() for w in es.values()]
    assert len(values) >= 150
    assert values.count("True") >= 30 and values.count("False") >= 5
    assert sum(v is None for v in values) >= 20     # errors, inconclusive ones among them


@pytest.fixture(scope="module")
def calls():
    return run_calls(jax, jnp, export)


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_exports_under_constraints_called_as_jax(calls, i):
    got, want = calls[i], ORACLE["calls"][i]
    assert got["out_avals"] == want["out_avals"]
    for g, w in zip(got["calls"], want["calls"], strict=True):
        if "value" in w:
            np.testing.assert_allclose(g["value"], w["value"], rtol=1e-6)
        else:
            _same(g, w)


def test_a_dimension_as_a_value_inside_an_export():
    b, = export.symbolic_shape("b")
    cases = [(lambda x: x * (x.shape[0] / 2), lambda x, n: x * (n / 2)),
             (lambda x: x * (x.shape[0] * 1.5), lambda x, n: x * (n * 1.5)),
             (lambda x: x + 2 ** x.shape[0], lambda x, n: x + 2 ** n),
             (lambda x: x / (x.shape[0] // 2.0), lambda x, n: x / (n // 2.0)),
             (lambda x: x * x.shape[0].dimension_as_value(), lambda x, n: x * n)]
    for f, want in cases:
        exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct((b,), np.float32))
        for n in (2, 5):
            x = np.arange(n, dtype=np.float32)
            np.testing.assert_allclose(exp.call(x), want(x, n), rtol=1e-6)
