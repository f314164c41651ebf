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

import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle import record_explicit_control as rec
from oracle_compare import four_devices

EXPECTED = json.loads(rec.PATH.read_text())

pytestmark = four_devices(jax)

@pytest.fixture(scope="module")
def results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (`show` appends to a list while staging)
        return {name: rec.run_case(jax, jnp, name) for name in EXPECTED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_types_and_errors_as_jax(results, name):
    rec.assert_as_recorded(jax, results[name], EXPECTED[name])


@pytest.mark.parametrize("name", [n for n in sorted(EXPECTED) if "constraints" in EXPECTED[n]])
def test_laid_out_constraints_as_jax(results, name):
    assert results[name]["constraints"] == EXPECTED[name]["constraints"]
