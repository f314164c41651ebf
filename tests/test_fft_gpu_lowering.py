"""`lax.fft` lowered for GPUs against JAX 0.10.2 (tests/oracle/record_fft_gpu.py ->
fft_gpu.json): for "cuda" and "rocm" a multi-dimensional IRFFT is a complex IFFT over
the outer axes and a one-dimensional IRFFT of the last (cuFFT's and hipFFT's
complex-to-real transforms assume Hermitian symmetry along every axis, NumPy's irfftn
along the last only), every other transform one `stablehlo.fft`, as on the CPU; the
module's `fft` / `transpose` lines are JAX's. The CUDA module's operations are
platform-independent, so it is compiled for this CPU and run on a spectrum that is not
Hermitian along the outer axes: NumPy's irfftn."""
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax.codegen import runtime
from astjax.core import ShapedArray

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
from record_fft_gpu import PLATFORMS, cases, fft_lines  # noqa: E402

ORACLE = json.loads(Path(__file__).with_name("oracle").joinpath("fft_gpu.json").read_text())
CASES = cases(jax)


def _lowered(name, platform):
    fn, (shape, dtype) = CASES[name]
    return jax.jit(fn).trace(jax.ShapeDtypeStruct(shape, dtype)).lower(
        lowering_platforms=(platform,)).as_text()


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(ORACLE)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fft_lines_are_jax(name):
    for platform in PLATFORMS:
        got = Counter(fft_lines(_lowered(name, platform)))
        assert got == Counter(ORACLE[name][platform]), platform


@pytest.mark.parametrize("name", ["irfftn_2d", "irfftn_3d", "irfftn_middle_axes"])
def test_the_split_irfft_computes_numpys_irfftn(name):
    fn, (shape, dtype) = CASES[name]
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    out = jax.eval_shape(fn, jax.ShapeDtypeStruct(shape, dtype))
    exe = runtime.Executable(_lowered(name, "cuda"), [ShapedArray(shape, np.dtype(dtype))],
                             [ShapedArray(out.shape, out.dtype)])
    got, = exe(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(fn(x)), rtol=1e-5, atol=1e-5)
    assert "IRFFT, length = [4]" in _lowered(name, "cuda")
