"""The key-reuse checker on loops bound outside `jit` whose body closes over an eager
key (JAX checks each eager primitive), and on jitted functions without a key argument
that consume a key they close over, called twice (issue 13): verdicts against JAX
0.10.2's stored ones (`tests/oracle/record_key_reuse_eager.py`), errors located."""
import json
import sys
import types
from pathlib import Path

import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import KeyReuseError

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_key_reuse_eager import CASES, verdict  # noqa: E402

RECORDED = json.loads((Path(__file__).parent / "oracle" / "key_reuse_eager.json").read_text())
J = types.SimpleNamespace(jax=astjax, lax=lax, jnp=jnp)


@pytest.mark.parametrize("name", sorted(CASES))
def test_verdict_as_jax(name):
    assert verdict(CASES[name], J) == RECORDED["cases"][name]


def test_every_case_recorded():
    assert set(RECORDED["cases"]) == set(CASES)


def _raised(fn):
    with astjax.debug_key_reuse(True), pytest.raises(KeyReuseError) as e:
        fn()
    return str(e.value)


def test_eager_loop_error_points_at_the_consuming_line():
    k = astjax.random.key(0)
    msg = _raised(lambda: lax.scan(lambda c, x: (c + astjax.random.normal(k), None), 0.0,
                                   None, length=1))
    assert "test_key_reuse_eager.py" in msg and "astjax.random.normal(k)" in msg
    assert "repeatedly" in msg


def test_second_call_of_a_jitted_closure_is_located():
    k = astjax.random.key(0)
    f = astjax.jit(lambda x: x + astjax.random.normal(k))
    with astjax.debug_key_reuse(True):
        f(1.0)
        with pytest.raises(KeyReuseError) as e:
            f(2.0)
    assert "test_key_reuse_eager.py" in str(e.value) and "f(2.0)" in str(e.value)
    assert "jit-compiled function at index 1" in str(e.value)


def test_checker_off_changes_nothing():
    k = astjax.random.key(0)
    f = astjax.jit(lambda x: x + astjax.random.normal(k))
    assert float(f(1.0)) == float(f(1.0))
    out, _ = lax.scan(lambda c, x: (c + astjax.random.normal(k), None), 0.0, None, length=2)
    assert abs(float(out) - 2 * float(astjax.random.normal(k))) < 1e-6
