"""The order in which Python code of control-flow branches, loop bodies and custom
rules runs while staging is JAX's (issue 12: `lax.cond` staged its false branch first,
`lax.while_loop` its body before its test). Each case of
`tests/oracle/record_trace_order.py` prints a tag from every function it hands over;
the printed sequence is compared with JAX 0.10.2's stored one (`trace_order.json`).
Converted Python `if`/`elif`/`else` and conditional expressions are compared with
their `lax.cond` spelling in JAX."""
import sys
import types
from pathlib import Path

import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_trace_order import CASES, _tag, printed  # noqa: E402
from oracle import compare  # noqa: E402

RECORDED = compare.load("trace_order")
J = types.SimpleNamespace(jax=astjax, lax=lax, jnp=jnp)


@pytest.mark.parametrize("name", sorted(CASES))
def test_trace_order_as_jax(name):
    assert printed(CASES[name], J) == RECORDED["cases"][name]


def test_every_case_recorded():
    compare.assert_recorded(RECORDED["cases"], CASES)


def python_if_chain(x):
    if x > 0:
        y = _tag("if", x + 1.0)
    elif x < -1:
        y = _tag("elif", x - 1.0)
    else:
        y = _tag("else", x)
    return y


def python_if_in_else(x):
    if x > 0:
        y = _tag("if", x + 1.0)
    else:
        if x < -1:
            y = _tag("elif", x - 1.0)
        else:
            y = _tag("else", x)
    return y


def python_conditional_expression(x):
    return _tag("if", x + 1.0) if x > 0 else (
        _tag("elif", x - 1.0) if x < -1 else _tag("else", x))


@pytest.mark.parametrize("fn", [python_if_chain, python_if_in_else,
                                python_conditional_expression])
def test_converted_if_stages_in_source_order(fn):
    """A staged `if`/`elif`/`else` prints as its `lax.cond` spelling does in JAX."""
    lines = printed(lambda J: astjax.jit(fn)(1.0), J)
    assert lines == RECORDED["cases"]["cond_chain"]
    assert float(astjax.jit(fn)(-3.0)) == -4.0


def python_while(x):
    while _tag("test", x < 10.0):
        x = _tag("body", x + 1.0)
    return x


def test_converted_while_stages_test_then_body():
    """A staged Python `while`: its test runs on the initial values (it decides whether
    the loop is staged), then the body and the test are staged, as Python's first trip
    reads them. (JAX cannot run this program under `jit`.)"""
    assert printed(lambda J: astjax.jit(python_while)(1.0), J) == ["test", "body", "test"]
    assert float(astjax.jit(python_while)(1.0)) == 10.0
