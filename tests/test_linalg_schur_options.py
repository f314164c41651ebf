"""`lax.linalg.schur`'s sorting options against JAX 0.10.2 (tests/oracle/
record_linalg_schur.py -> linalg_schur.json): `select_callable` without
`sort_eig_vals` gives JAX's plain decomposition, eager and under jit;
`sort_eig_vals=True` stages with JAX's printed parameters and is JAX's
NotImplementedError (with its message) when run."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError
from oracle import record_linalg_schur as rec

STORED = json.loads(Path(rec.__file__).with_name("linalg_schur.json").read_text())
CASES = rec.cases(jax.lax)
RUNS = [(name, mode) for name in CASES for mode in ("eager", "jit")]


@pytest.mark.parametrize("name,mode", RUNS, ids=[f"{n}-{m}" for n, m in RUNS])
def test_schur_options_as_jax(name, mode):
    fn = CASES[name] if mode == "eager" else jax.jit(CASES[name])
    want = STORED[name][mode]
    if "error" in want:
        with pytest.raises(AstjaxError) as info:
            fn(rec.operand(name))
        assert isinstance(info.value, NotImplementedError) and want["error"] == (
            "NotImplementedError")
        assert want["message"] in str(info.value)
        return
    got = [np.asarray(g) for g in fn(rec.operand(name))]
    assert len(got) == len(want)
    # A Schur form is unique only up to a diagonal unitary D (T -> D^H T D, Q -> Q D), and
    # LAPACK's choice of D depends on the CPU (JAX 0.10.2 itself gives other phases of
    # T's off-diagonal entries on another machine): compare what D leaves alone -- T's
    # diagonal (the eigenvalues, in order), every entry's magnitude -- and Q T Q^H = A
    for i, (g, w) in enumerate(zip(got, want)):
        ref = np.array(w["re"]) + 1j * np.array(w["im"])
        ref = ref if np.iscomplexobj(g) else ref.real
        assert g.dtype == rec.operand(name).dtype
        np.testing.assert_allclose(np.abs(g), np.abs(ref), atol=1e-5)
        if i == 0:
            np.testing.assert_allclose(np.diag(g), np.diag(ref), atol=1e-5)
    if len(got) == 2:
        t, q = got
        np.testing.assert_allclose(q @ t @ q.conj().T, rec.operand(name), atol=1e-4)


def test_sorting_stages_with_jax_parameters():
    assert str(jax.make_jaxpr(CASES["sort"])(rec.A)) == STORED["sort"]["jaxpr"]
