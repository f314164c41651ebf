"""The remaining programs of issue 13 that JAX 0.10.2 computes (or refuses with a
given error class), run on astjax and compared with JAX's recorded outcomes
(`tests/oracle/record_refusals_remaining.py` -> refusals_remaining.json): a
`while_loop` whose condition and body use a `Ref` (JAX's discharge: a copy each),
`schur` with `select_callable` and without sorting, `lax.composite` returning None,
and more (see the record script); and Python `while` statements on a `Ref` (Python's
semantics: one copy; a test storing into one: tests/test_python_while_refs.py)."""
import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_refusals_remaining import (CASES, _counting_loop, _cond_reads_body_ref,  # noqa: E402
                                       _kept_tangent_loop, _stale_loop, run)

RECORDED = json.loads((Path(__file__).parent / "oracle" /
                       "refusals_remaining.json").read_text())["cases"]
J = types.SimpleNamespace(jax=astjax, jnp=jnp, lax=lax)
# cases where astjax knowingly differs from JAX 0.10.2 (strict: fixing one fails here)
KNOWN: dict = {}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[n])] if n in KNOWN
                 else []) for n in sorted(CASES)])
def test_as_jax(name):
    want, got = RECORDED[name], run(CASES[name], J)
    assert set(got) == set(want), (got, want)
    if "error" in want:
        assert got["error"] == want["error"]
        return
    assert len(got["ok"]) == len(want["ok"]), (got, want)
    for g, w in zip(got["ok"], want["ok"]):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=2e-6, atol=2e-6)


def test_every_case_recorded():
    assert set(RECORDED) == set(CASES)


def test_while_condition_and_body_writing_one_ref_is_located():
    with pytest.raises(NotImplementedError, match="both cond and body") as e:
        CASES["while_cond_and_body_write"](J)
    assert "record_refusals_remaining.py" in str(e.value)


@pytest.mark.parametrize("loop", [
    lambda: _counting_loop(J, 0.0, inner=True)[0], lambda: _stale_loop(J)[0],
    lambda: _cond_reads_body_ref(J)[0], lambda: _kept_tangent_loop(J)])
def test_while_ref_reverse_mode_as_forward(loop):
    """Reverse mode through these loops (which JAX refuses: a while_loop) agrees with
    forward mode, which the table checks against JAX's."""
    f = loop()
    want = astjax.jit(astjax.jacfwd(f))(1.0)
    got = astjax.jit(astjax.jacrev(f))(1.0)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64))


@pytest.mark.parametrize("name", ["while_cond_reads_body_ref_eager", "while_ref_grad_vmap",
                                  "while_ref_jvp_jvp"])
def test_eager_while_closing_one_ref_twice_is_located(name):
    with pytest.raises(ValueError, match="appeared at both args") as e:
        CASES[name](J)
    assert "record_refusals_remaining.py" in str(e.value)


def _python_loop(x):
    """A Python `while` statement on a reference, staged under jit: its test sees
    what its body stores (one copy, as Python's; a `lax.while_loop`'s cond would not)."""
    r = astjax.new_ref(jnp.float32(0.5))
    y = x
    while (r[...] < 40.0) & (y < 90.0):   # (with stale reads: ends at y == 90)
        r[...] += y
        y = y + 1.0
    return y, r[...]


@pytest.mark.parametrize("x", [3.0, 50.0])
def test_python_while_on_refs_as_python(x):
    want = _python_loop(jnp.float32(x))     # eager: Python runs the loop
    got = astjax.jit(_python_loop)(jnp.float32(x))
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64))


def test_schur_sort_is_refused_when_lowered():
    with pytest.raises(NotImplementedError, match="sort feature of LAPACK's gees") as e:
        CASES["schur_sort_jit"](J)
    assert "record_refusals_remaining.py" in str(e.value)
