"""Sharding in types through control flow and transformations under `set_mesh` of
an Explicit mesh, as JAX 0.10.2 (tests/oracle/record_explicit_control.py ->
explicit_control.json): `jax.typeof` inside `while_loop` / `fori_loop` / `cond` /
`scan` bodies, inner `jit`s, `vmap`, `grad`, `checkpoint` and `custom_jvp`
functions, the results' types and values, the laid-out `sdy.sharding_constraint`s
of the lowered module (a scan's slices and updates, a gradient's cotangents after
its dead forward code is removed), and JAX's errors (a carry whose layout changes,
branches that disagree, `xs` sharded along the scanned axis, a contraction inside a
body, `dynamic_slice` / `dynamic_update_slice` layouts, an error in dead code)."""
import json
import warnings

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_control as rec

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

@pytest.fixture(scope="module")
def results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (`show` appends to a list while staging)
        return {name: rec.run_case(jax, jnp, name) for name in EXPECTED}


_BUILTIN = {"TypeError": TypeError, "ValueError": ValueError}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_types_and_errors_as_jax(results, name):
    got, want = results[name], EXPECTED[name]
    if "error" in want:
        cls = getattr(jax.errors, got.get("error", ""), None) or getattr(
            jax.sharding, got.get("error", ""), type(None))
        assert issubclass(cls, _BUILTIN.get(want["error"], jax.sharding.ShardingTypeError)
                          ), got
        assert got["message"] == want["message"]
        return
    assert (got["inner"], got["out"]) == (want["inner"], want["out"])
    for g, w in zip(got["value"], want["value"]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", [n for n in sorted(EXPECTED) if "constraints" in EXPECTED[n]])
def test_laid_out_constraints_as_jax(results, name):
    assert results[name]["constraints"] == EXPECTED[name]["constraints"]
