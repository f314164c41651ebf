"""The CUDA lowering of the linear-algebra entry points (`lax.linalg`, `jnp.linalg`,
`jax.scipy.linalg`) against JAX 0.10.2's (tests/oracle/record_linalg_cuda.py ->
linalg_cuda.json): exported for "cuda" on this CPU-only machine, each function's
`stablehlo.custom_call` lines -- cuSOLVER / cuSPARSE / cuBLAS / jaxlib kernels, with
their attributes, layouts, aliases, batch attributes and Shardy rules -- are JAX's,
string for string; JAX's export refuses the same kernels as not stable, and what JAX
cannot lower for CUDA (schur, hessenberg) is a NotImplementedError. A ("cpu", "cuda")
export carries both platforms' kernels and runs its CPU branch here. Running the
kernels needs a GPU: benchmarks/README.md says what to run there."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax import export
from astjax.errors import AstjaxError
from astjax.export.lowering import ExportError, check_custom_calls

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
from record_linalg_cuda import cases, custom_calls  # noqa: E402

ORACLE = json.loads(Path(__file__).with_name("oracle").joinpath("linalg_cuda.json").read_text())
CASES = cases(jax)
ALL = [export.DisabledSafetyCheck.custom_call("ALL")]


def _export(name, platforms=("cuda",), disabled=ALL):
    fn, specs = CASES[name]
    args = [jax.ShapeDtypeStruct(s, d) for s, d in specs]
    return export.export(jax.jit(fn), platforms=list(platforms), disabled_checks=disabled)(*args)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(ORACLE)


@pytest.mark.parametrize("name", sorted(n for n in ORACLE if "calls" in ORACLE[n]))
def test_cuda_custom_calls_are_jax(name, x64):
    want = ORACLE[name]
    text = _export(name).mlir_module()
    assert custom_calls(text) == want["calls"]
    if want["unstable"]:
        with pytest.raises(ExportError, match="no compatibility guarantee"):
            check_custom_calls(text, (), name)
    else:
        check_custom_calls(text, (), name)


@pytest.mark.parametrize("name", sorted(n for n in ORACLE if "error" in ORACLE[n]))
def test_cpu_only_functions_raise_for_cuda(name, x64):
    assert ORACLE[name]["error"] == "NotImplementedError"
    with pytest.raises(NotImplementedError, match="not found for platform cuda") as e:
        _export(name)
    assert isinstance(e.value, AstjaxError)


@pytest.mark.parametrize("name", ["lu_float32", "eigh_complex64", "svd_reduced_float32",
                                  "tridiagonal_solve_float32"])
def test_multi_platform_export_carries_both(name):
    exp = _export(name, ("cpu", "cuda"))
    calls = custom_calls(exp.mlir_module())
    cuda = ORACLE[name]["calls"]
    assert [c for c in calls if "@lapack_" not in c] == cuda
    assert any("@lapack_" in c for c in calls)
    # the CPU branch runs here, as the CPU-only export of the same function
    fn, specs = CASES[name]
    rng = np.random.default_rng(0)
    args = [np.asarray(rng.standard_normal(s) + 4 * np.eye(*s[-2:]) if len(s) == 2 and
                       s[-1] == s[-2] else rng.standard_normal(s), d) for s, d in specs]
    want = jax.tree_util.tree_leaves(_export(name, ("cpu",)).call(*args))
    got = jax.tree_util.tree_leaves(exp.call(*args))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
