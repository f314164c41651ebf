"""Custom derivative rules inside a `shard_map(..., check_vma=True)` body against JAX
0.10.2 (tests/oracle/record_vma_custom.py -> vma_custom.json): a `grad` taken inside a
`custom_jvp` / `custom_vjp` function or its rules, the typed cotangents a `bwd` gets
and gives (`vma_reverse.TypedCustomBwd`), through the shard_map boundary too, JAX's
TypeError for a `jvp` rule's tangent varying where its primal does not, and
`custom_linear_solve` / `custom_root` under `grad`, `vjp` and `linear_transpose`."""
import json

import pytest

import astjax as jax

from oracle import record_vma_custom as rec
from oracle import record_vma_reverse as rev
from oracle_compare import four_devices, same_as_jax, with_xfails

EXPECTED = json.loads(rec.PATH.read_text())
CASES = rec.cases(jax)

pytestmark = four_devices(jax)

XFAIL = {}  # case -> a strict xfail mark: what astjax still does otherwise than JAX


@pytest.mark.parametrize("case", with_xfails(sorted(k for k in EXPECTED if "/" not in k), XFAIL))
def test_inside_a_body_as_jax(case):
    same_as_jax(jax, rev.run(jax, CASES[case]), EXPECTED[case], 1e-5, 1e-6, leaves=True)


@pytest.mark.parametrize("case", with_xfails(sorted(k for k in EXPECTED
                                                 if k.startswith("boundary/")), XFAIL))
def test_through_the_boundary_as_jax(case):
    same_as_jax(jax, rec.run_boundary(rec.boundary_cases(jax)[case.split("/")[1]]),
                EXPECTED[case], 1e-5, 1e-6, leaves=True)
