"""`lax.linalg.eigh(implementation=)` and `svd(algorithm=)` on CPU against JAX 0.10.2
(tests/oracle/record_linalg_algorithms.py -> linalg_algorithms.json): the printed
primitives, the values of the choices LAPACK has (svd's QR is gesvd: JAX's signs),
and JAX's NotImplementedError with its message for the rest -- raised when the
function is lowered, so staging succeeds and the same function exports for CUDA
(tests/test_linalg_cuda_lowering.py has the kernels)."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError
from oracle import record_linalg_algorithms as rec

STORED = json.loads(Path(rec.__file__).with_name("linalg_algorithms.json").read_text())
CASES = rec.cases(jax.lax)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(STORED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_printed_as_jax(name):
    fn, arg = CASES[name]
    assert str(jax.make_jaxpr(fn)(rec.INPUTS[arg])) == STORED[name]["jaxpr"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_or_refusal_as_jax(name):
    fn, arg = CASES[name]
    want = STORED[name]
    if "error" in want:
        for run in (fn, jax.jit(fn), lambda a: jax.jit(fn).lower(a)):
            with pytest.raises(AstjaxError) as info:
                run(rec.INPUTS[arg])
            assert isinstance(info.value, NotImplementedError)
            assert want["message"] in str(info.value)
        jax.jit(fn).trace(rec.INPUTS[arg])   # staging alone does not lower: no error
        return
    got = fn(rec.INPUTS[arg])
    got = got if isinstance(got, (tuple, list)) else (got,)
    assert len(got) == len(want["values"])
    for g, w in zip(got, want["values"]):
        g = np.asarray(g)
        ref = np.array(w["re"]) + 1j * np.array(w["im"])
        np.testing.assert_allclose(g, ref if np.iscomplexobj(g) else ref.real, atol=2e-5,
                                   rtol=2e-5, err_msg=name)


def test_eigh_takes_jax_keyword():
    """JAX's keyword is `implementation`: `algorithm=` is a TypeError there too."""
    with pytest.raises(TypeError):
        jax.lax.linalg.eigh(rec.INPUTS["sym"], algorithm=jax.lax.linalg.EighImplementation.QR)


@pytest.mark.parametrize("name,kernel", [("svd_default", "lapack_sgesdd_ffi"),
                                         ("svd_divide_and_conquer", "lapack_sgesdd_ffi"),
                                         ("svd_qr", "lapack_sgesvd_ffi"),
                                         ("svd_qr_complex", "lapack_cgesvd_ffi"),
                                         ("eigh_qr", "lapack_ssyevd_ffi")])
def test_cpu_kernel_as_jax(name, kernel):
    """JAX's LAPACK kernel for the choice (the values alone may not tell gesvd from
    gesdd)."""
    fn, arg = CASES[name]
    text = jax.jit(fn).lower(rec.INPUTS[arg]).as_text()
    assert f"@{kernel}(" in text and text.count("lapack_") == 1
