"""The CUDA lowering of the linear-algebra entry points (`lax.linalg`, `jnp.linalg`,
`jax.scipy.linalg`) against JAX 0.10.2's (tests/oracle/record_linalg_cuda.py ->
linalg_cuda.json): exported for "cuda" on this CPU-only machine, each function's
`stablehlo.custom_call` lines -- cuSOLVER / cuSPARSE / cuBLAS / jaxlib kernels, with
their attributes, layouts, aliases, batch attributes and Shardy rules -- are JAX's,
string for string; JAX's export refuses the same kernels as not stable, and what JAX
cannot lower for CUDA (schur, hessenberg) is a NotImplementedError. A ("cpu", "cuda")
export carries both platforms' kernels and runs its CPU branch here. Running the
kernels needs a GPU: benchmarks/README.md says what to run there. Lowered for "rocm"
(linalg_rocm.json, the same recorder), every case's custom calls are JAX's ROCm ones:
hipSOLVER / hipSPARSE / jaxlib's hip kernels, gesdd for the divide-and-conquer SVD, no
kernel for symmetric_product and cholesky_update."""
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax import export
from astjax.errors import AstjaxError
from astjax.export.lowering import ExportError, check_custom_calls
from astjax.primitives import cusolver

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
import record_linalg_cuda  # noqa: E402
from record_linalg_cuda import cases, custom_calls  # noqa: E402

ORACLE = json.loads(Path(__file__).with_name("oracle").joinpath("linalg_cuda.json").read_text())
ROCM = json.loads(Path(__file__).with_name("oracle").joinpath("linalg_rocm.json").read_text())
CASES = cases(jax)
ALL = [export.DisabledSafetyCheck.custom_call("ALL")]
LOWERED = sorted(n for n in ORACLE if "calls" in ORACLE[n] and "@" not in n)
GEEV = sorted(n for n in ORACLE if n.endswith("@geev"))
# the cases are exported a group at a time (one module each: a tenth of the cost)
GROUPS = {f"{LOWERED[k]}..{LOWERED[min(k + 15, len(LOWERED)) - 1]}": LOWERED[k:k + 15]
          for k in range(0, len(LOWERED), 15)}
ROCM_LOWERED = sorted(n for n in ROCM if "calls" in ROCM[n])
ROCM_GROUPS = {f"{ROCM_LOWERED[k]}..": ROCM_LOWERED[k:k + 25]
               for k in range(0, len(ROCM_LOWERED), 25)}


def _combined(names):
    """One function computing every case of `names` from their concatenated arguments."""
    fns = [CASES[n] for n in names]

    def f(*args):
        out, i = [], 0
        for fn, specs in fns:
            out.append(fn(*args[i:i + len(specs)]))
            i += len(specs)
        return out
    return f, [spec for _, specs in fns for spec in specs]


def _export(fn, specs, platforms=("cuda",)):
    args = [jax.ShapeDtypeStruct(s, d) for s, d in specs]
    return export.export(jax.jit(fn), platforms=list(platforms), disabled_checks=ALL)(*args)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(n for n in ORACLE if "@" not in n) == sorted(ROCM)
    assert GEEV == sorted(f"{n}@geev" for n in record_linalg_cuda.GEEV)


@pytest.mark.parametrize("group", list(GROUPS))
def test_cuda_custom_calls_are_jax(group, x64):
    """The group's custom_call lines are the union of JAX's for its cases (each line
    whole: target, attributes, layouts, aliases, batch attributes, sharding rule)."""
    names = GROUPS[group]
    got = Counter(custom_calls(_export(*_combined(names)).mlir_module()))
    want = Counter(line for n in names for line in ORACLE[n]["calls"])
    assert got == want, (f"astjax only: {sorted((got - want).elements())}\n"
                         f"JAX only: {sorted((want - got).elements())}")


@pytest.mark.parametrize("group", list(ROCM_GROUPS))
def test_rocm_custom_calls_are_jax(group, x64):
    """Lowered for ROCm, the group's custom_call lines are JAX's (the CUDA kernels'
    hip twins, hipSOLVER's gesdd, no kernel where JAX has none on ROCm)."""
    names = ROCM_GROUPS[group]
    got = Counter(custom_calls(_export(*_combined(names), ("rocm",)).mlir_module()))
    want = Counter(line for n in names for line in ROCM[n]["calls"])
    assert got == want, (f"astjax only: {sorted((got - want).elements())}\n"
                         f"JAX only: {sorted((want - got).elements())}")


def test_eig_takes_cusolver_geev_when_the_plugin_has_it(x64, monkeypatch):
    """With cuSOLVER 11.7.1 or newer (a recent CUDA plugin), eig without left
    eigenvectors is cuSOLVER's geev, as JAX lowers it then; with left ones the hybrid
    kernel stays."""
    monkeypatch.setattr(cusolver, "_GEEV", [True])
    names = [n.split("@")[0] for n in GEEV]
    got = Counter(custom_calls(_export(*_combined(names)).mlir_module()))
    want = Counter(line for n in GEEV for line in ORACLE[n]["calls"])
    assert got == want
    assert sum(("@cusolver_geev_ffi" in line) for line in got.elements()) == len(GEEV) - 1


def test_unpack_conjugate_pairs():
    """geev's packed real eigenvectors (columns j, j+1 = real and imaginary part of
    the pair's first vector) unpacked are the complex eigenvectors."""
    a = np.array([[0., -2., 0., 1.], [2., 0., 0., 0.], [0., 0., 3., 0.], [1., 0., 0., 1.]],
                 np.float32)
    w, v = np.linalg.eig(a)
    packed = v.real.copy()
    for j in np.flatnonzero(w.imag > 0):   # (numpy lists a pair as w_j, conj(w_j))
        packed[:, j + 1] = v[:, j].imag
    got = cusolver.unpack_conjugate_pairs(w.astype(np.complex64), packed.astype(np.float32))
    np.testing.assert_allclose(np.asarray(got), v, atol=1e-6)
    assert (w.imag != 0).sum() == 2


def _targets(line):
    return line.split("@", 1)[1].split("(", 1)[0]


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
def test_export_refuses_the_kernels_jax_refuses(platform):
    """JAX's export refuses a case's module iff one of its kernels is not on JAX's
    list of stable targets; astjax's check refuses exactly those kernels."""
    oracle = ORACLE if platform == "cuda" else ROCM
    stable = {_targets(line) for v in oracle.values() if not v.get("unstable", True)
              for line in v["calls"]}
    unstable = {_targets(line) for v in oracle.values() if v.get("unstable")
                for line in v["calls"]} - stable
    assert unstable >= ({"cuhybrid_eig_real", "cusolver_syrk_ffi", "cu_cholesky_update_ffi"}
                        if platform == "cuda" else {"hiphybrid_eig_real", "hipsparse_gtsv2_ffi"})
    for target in sorted(stable):
        check_custom_calls(f'call_target_name = "{target}"', (), "f")
    for target in sorted(unstable):
        with pytest.raises(ExportError, match="no compatibility guarantee"):
            check_custom_calls(f'call_target_name = "{target}"', (), "f")


@pytest.mark.parametrize("platform,name", [("cuda", n) for n in sorted(ORACLE)
                                           if "error" in ORACLE[n]] +
                         [("rocm", n) for n in sorted(ROCM) if "error" in ROCM[n]])
def test_what_jax_cannot_lower_for_the_gpu_raises(platform, name, x64):
    """CPU-only functions (schur, hessenberg) and the algorithms JAX has no GPU
    kernel for (eigh's QDWH; the divide-and-conquer SVD on CUDA): JAX's error and
    message."""
    want = (ORACLE if platform == "cuda" else ROCM)[name]
    assert want["error"] == "NotImplementedError"
    with pytest.raises(NotImplementedError) as e:
        _export(*CASES[name], (platform,))
    assert isinstance(e.value, AstjaxError)
    assert want["message"] in str(e.value)


def test_multi_platform_export_carries_both():
    """A ("cpu", "cuda") export: the CUDA function's custom calls are JAX's, the CPU
    function's LAPACK's, and the CPU branch runs here."""
    names = ["lu_float32", "eigh_complex64", "svd_reduced_float32", "tridiagonal_solve_float32"]
    calls = custom_calls(_export(*_combined(names), ("cpu", "cuda")).mlir_module())
    want = Counter(line for n in names for line in ORACLE[n]["calls"])
    assert Counter(c for c in calls if "@lapack_" not in c) == want
    assert {_targets(c) for c in calls if "@lapack_" in c} == {
        "lapack_sgetrf_ffi", "lapack_cheevd_ffi", "lapack_sgesdd_ffi", "lapack_sgtsv_ffi"}
    a = np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)
    lu, _, perm = _export(*CASES["lu_float32"], ("cpu", "cuda")).call(a)
    lu, perm = np.asarray(lu), np.asarray(perm)
    np.testing.assert_allclose(a[perm], (np.tril(lu, -1) + np.eye(3)) @ np.triu(lu), atol=1e-6)


@pytest.mark.parametrize("m", [1, 2])
def test_small_tridiagonal_solve_recurrence(m):
    """cuSPARSE's gtsv2 needs m >= 3: below, the CUDA lowering is the Thomas
    recurrence (JAX's generic lowering), here evaluated eagerly against NumPy."""
    rng = np.random.default_rng(m)
    dl, d, du = (rng.standard_normal((2, m)).astype(np.float32) for _ in range(3))
    d += 4
    b = rng.standard_normal((2, m, 3)).astype(np.float32)
    a = np.zeros((2, m, m), np.float32)
    for k in range(m):
        a[:, k, k] = d[:, k]
        if k:
            a[:, k, k - 1], a[:, k - 1, k] = dl[:, k], du[:, k - 1]
    np.testing.assert_allclose(np.asarray(cusolver._thomas(dl, d, du, b)),
                               np.linalg.solve(a, b), rtol=1e-5, atol=1e-6)
