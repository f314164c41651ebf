"""jnp's parameter names, order, kinds and defaults against JAX's (issue 13): the
signatures recorded from jax 0.10.2 in tests/oracle/jnp_signatures.json (and those of
jax.lax, jax.random, jax.nn, jax.scipy.special in api_signatures.json;
tests/oracle/record_jnp_signatures.py), and calls by keyword against NumPy."""
import json
import os
import sys

import numpy as np
import pytest

import astjax.numpy as jnp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "oracle"))
import record_jnp_signatures as sigs  # noqa: E402

# Differences left, each one a line of `record_jnp_signatures.py --check` (none).
ALLOWED: set = set()


@pytest.fixture(scope="module")
def differences():
    return set(sigs.check())


def test_signatures_match_jax(differences):
    assert sorted(differences - ALLOWED) == []


def test_allow_list_is_current(differences):
    assert sorted(ALLOWED - differences) == []


# jax.lax / jax.random / jax.nn / jax.scipy.special (api_signatures.json): the
# differences left per namespace, each a line of `record_jnp_signatures.check_api`
API_ALLOWED: dict = {"jax.lax": set(), "jax.random": set(), "jax.nn": set(),
                     "jax.scipy.special": set()}


@pytest.mark.parametrize("namespace", sorted(sigs.NAMESPACES))
def test_api_signatures_match_jax(namespace):
    differences = set(sigs.check_api(namespace))
    assert sorted(differences - API_ALLOWED[namespace]) == []
    assert sorted(API_ALLOWED[namespace] - differences) == []


def test_recorded_signatures_cover_the_fixed_names():
    with open(sigs.PATH) as f:
        recorded = json.load(f)
    assert [p[0] for p in recorded["divide"]] == ["x1", "x2"]
    assert [p[0] for p in recorded["clip"]] == ["arr", "min", "max"]


X = np.array([-2.5, -1.0, 0.0, 1.5, 3.0, 7.0], np.float32)
Y = np.array([2.0, -3.0, 1.0, np.nan, 2.0, -1.0], np.float32)
I1, I2 = np.array([12, 18, 7, 0], np.int32), np.array([8, 12, 21, 5], np.int32)

KEYWORD_CALLS = [  # (astjax call, NumPy's value)
    (lambda: jnp.clip(X, min=-1.0, max=2.0), np.clip(X, -1.0, 2.0)),
    (lambda: jnp.clip(X, -1.0, max=2.0), np.clip(X, -1.0, 2.0)),
    (lambda: jnp.clip(X, max=2.0), np.minimum(X, 2.0)),
    (lambda: jnp.clip(X, min=0.5), np.maximum(X, 0.5)),
    (lambda: jnp.clip(X, 3.0, 1.0), np.clip(X, 3.0, 1.0)),
    (lambda: jnp.fmax(x1=X, x2=Y), np.fmax(X, Y)),
    (lambda: jnp.fmin(X, x2=Y), np.fmin(X, Y)),
    (lambda: jnp.gcd(x1=I1, x2=I2), np.gcd(I1, I2)),
    (lambda: jnp.lcm(I1, x2=I2), np.lcm(I1, I2)),
    (lambda: jnp.trunc(x=X), np.trunc(X)),
    (lambda: jnp.round(X, 0, None), np.round(X)),
    (lambda: jnp.stack([I1, I2], 1, None, np.float32), np.stack([I1, I2], 1).astype(np.float32)),
    (lambda: jnp.outer(I1, I2, None), np.outer(I1, I2)),
    (lambda: jnp.trace(np.eye(3), 0, 0, 1, np.int32, None), np.trace(np.eye(3), dtype=np.int32)),
    (lambda: jnp.isneginf(X, out=None), np.isneginf(X)),
    (lambda: jnp.einsum("i,i", X, X, optimize="auto"), np.einsum("i,i", X, X)),
]


@pytest.mark.parametrize("i", range(len(KEYWORD_CALLS)))
def test_keyword_calls(i):
    call, expected = KEYWORD_CALLS[i]
    got = np.asarray(call())
    assert got.dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("call, exc", [
    (lambda: jnp.clip(), ValueError),              # JAX: "No input was provided"
    (lambda: jnp.clip(arr=X), TypeError),          # positional-only, as JAX's
    (lambda: jnp.clip(X, a_min=0.0), TypeError),   # NumPy's names: not JAX's
    (lambda: jnp.divide(x1=X, x2=Y), TypeError),   # positional-only, as JAX's
    (lambda: jnp.einsum("i,i", X, X, out=X), NotImplementedError),
    (lambda: jnp.round(X, 1, X), NotImplementedError),
    (lambda: jnp.isposinf(X, out=X), NotImplementedError),
    (lambda: jnp.stack([X, X], 0, X), NotImplementedError),
    (lambda: jnp.outer(X, X, X), NotImplementedError),
    (lambda: jnp.trace(np.eye(2), out=X), NotImplementedError),
])
def test_rejected_calls(call, exc):
    with pytest.raises(exc):
        call()


@pytest.fixture(scope="module")
def keyword_values():
    with open(sigs.VALUES_PATH) as f:
        expected = json.load(f)
    return expected, sigs.values(jnp)


@pytest.mark.parametrize("i, case", list(enumerate(sigs.VALUE_CASES)))
def test_keyword_values_as_jax(keyword_values, i, case):
    expected, got = keyword_values
    (ev, edt), (gv, gdt) = expected[i], got[i]
    assert gdt == edt, case
    np.testing.assert_allclose(np.asarray(gv), np.asarray(ev), rtol=1e-6, err_msg=case)
