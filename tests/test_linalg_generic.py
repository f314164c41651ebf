"""The LAPACK-backed `lax.linalg` primitives lowered for a platform JAX knows no kernels
for ('tpu2'), against JAX 0.10.2 (tests/oracle/record_linalg_generic.py ->
linalg_generic.json): `lu` (and `inv` on it) lowers to lax operations
whose module, compiled for this CPU, computes JAX's values; `geqrf` and
`householder_product` are JAX's custom calls, word for word; `tridiagonal_solve` and
`ormqr` lower to loops of lax operations that compute JAX's values; the primitives JAX lowers
for CPU, GPU and TPU only are its NotImplementedError, with its message."""
import builtins
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError
from astjax.primitives import householder

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
import record_linalg_generic as rec  # noqa: E402

ORACLE = json.loads(Path(rec.__file__).with_name("linalg_generic.json").read_text())["cases"]
CASES = rec.cases(jax, jnp, lax, householder)

def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(ORACLE)


@pytest.mark.parametrize("name", sorted(CASES))
def test_generic_lowering_as_jax(name):
    want = ORACLE[name]
    if "error" in want:
        with pytest.raises(getattr(builtins, want["error"])) as info:
            CASES[name]()
        assert isinstance(info.value, AstjaxError)
        assert info.value.message == want["message"]
        return
    got = CASES[name]()
    if "text" in want:
        assert got["text"] == want["text"]
        return
    assert len(got["value"]) == len(want["value"])
    for g, w in zip(got["value"], want["value"]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_refusal_is_located():
    with pytest.raises(NotImplementedError) as info:
        CASES["eigh"]()
    assert "record_linalg_generic.py" in str(info.value).splitlines()[0]
