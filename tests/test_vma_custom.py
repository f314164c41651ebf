"""Custom derivative rules inside a `shard_map(..., check_vma=True)` body against JAX
0.10.2 (tests/oracle/record_vma_custom.py -> vma_custom.json): a `grad` taken inside a
`custom_jvp` / `custom_vjp` function or its rules, the typed cotangents a `bwd` gets
and gives (`primitives/vma_reverse.TypedCustomBwd`), through the shard_map boundary too, and
`custom_linear_solve` / `custom_root` under `grad`, `vjp` and `linear_transpose`."""
import json

import numpy as np
import pytest

import astjax as jax

from oracle import record_vma_custom as rec
from oracle import record_vma_reverse as rev

EXPECTED = json.loads(rec.PATH.read_text())
CASES = rec.cases(jax)

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

XFAIL = {   # case -> a strict xfail mark: what astjax still does otherwise than JAX
    "err_custom_root_untyped_tangent_solve": pytest.mark.xfail(strict=True, reason=(
        "JAX refuses a linearized function called on a tangent typed otherwise than its "
        "primal (ValueError: `gf(1.0)` for a varying root); astjax does not check tangents' "
        "varying axes in linearize")),
    "grad_of_custom_jvp_grad_primal": pytest.mark.xfail(strict=True, reason=(
        "JAX 0.10.2 types the result of a grad taken inside a custom_jvp's primal, called "
        "from its own rule, {V:y} (the psum's transposed pvary lost) and refuses the rule's "
        "tangent typed {V:(x,y)} (TypeError); astjax types it as the input and computes "
        "the value")),
}


def _params(names):
    return [pytest.param(n, marks=XFAIL[n]) if n in XFAIL else n for n in names]


def _same(got, want):
    if "error" in want:
        assert "error" in got, got
        assert want["error"] in [c.__name__ for c in getattr(
            jax.errors, got["error"], Exception).__mro__] + [got["error"]], got
        assert got["message"] == want["message"]
        return
    assert "error" not in got, got
    assert len(got["value"]) == len(want["value"])
    for g, w in zip(got["value"], want["value"]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", _params(sorted(k for k in EXPECTED if "/" not in k)))
def test_inside_a_body_as_jax(case):
    _same(rev.run(jax, CASES[case]), EXPECTED[case])


@pytest.mark.parametrize("case", _params(sorted(k for k in EXPECTED if k.startswith("boundary/"))))
def test_through_the_boundary_as_jax(case):
    _same(rec.run_boundary(rec.boundary_cases(jax)[case.split("/")[1]]), EXPECTED[case])
