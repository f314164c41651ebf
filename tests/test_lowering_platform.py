"""The lowering platform: `jit` lowers for the platform its program runs on, and
`jit(f).trace(x).lower(lowering_platforms=('cuda',))` lowers for another one on this
machine, as JAX allows (platform-dependent lowerings pick by it: LAPACK custom calls
for "cpu", cuSOLVER's for "cuda")."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.codegen import stablehlo
from astjax.errors import AstjaxError

A = np.eye(3, dtype=np.float32) * 2


def test_jit_lowers_for_its_device():
    entry = astjax.jit(jnp.linalg.cholesky).trace(A)._entry
    assert entry.platform == stablehlo.platform_name(astjax.devices()[0]) == "cpu"
    assert "lapack_spotrf_ffi" in astjax.jit(jnp.linalg.cholesky).lower(A).as_text()
    with pytest.warns(DeprecationWarning):
        f = astjax.jit(jnp.linalg.cholesky, backend="cpu")
    assert f.lower(A)._entry.platform == "cpu"


def test_lowering_for_cuda_on_a_cpu_machine():
    traced = astjax.jit(jnp.linalg.cholesky).trace(A)
    cuda = traced.lower(lowering_platforms=("cuda",))
    text = cuda.as_text()
    assert cuda._entry.platform == "cuda"
    # no LAPACK kernel in a CUDA module: cuSOLVER's, as JAX (tests/test_linalg_cuda_lowering.py)
    assert "lapack_" not in text and "@cusolver_potrf_ffi" in text
    assert "lapack_spotrf_ffi" in traced.lower().as_text()
    assert "lapack_spotrf_ffi" in traced.lower(lowering_platforms=("cpu",)).as_text()
    # platform-independent programs lower alike
    plain = astjax.jit(lambda x: x + 1).trace(A)
    assert plain.lower(lowering_platforms=("cuda",)).as_text() == plain.lower().as_text()


def test_lowering_platform_errors():
    traced = astjax.jit(lambda x: x + 1).trace(A)
    # jax 0.10.2 on a CPU machine: RuntimeError "Unknown backend: 'gpu' requested, ..."
    with pytest.raises(RuntimeError, match="Unknown backend: 'gpu' requested") as e:
        traced.lower(lowering_platforms=("gpu",))
    assert isinstance(e.value, AstjaxError)
    # a name JAX does not know lowers as JAX does, with the platform-independent rules
    # (tests/test_platform_names.py)
    assert traced.lower(lowering_platforms=("tpuu",)).as_text() == traced.lower().as_text()
    # several platforms: tests/test_refusals_computed.py
