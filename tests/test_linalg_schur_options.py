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
    got = fn(rec.operand(name))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        ref = np.array(w["re"]) + 1j * np.array(w["im"])
        g = np.asarray(g)
        np.testing.assert_allclose(g, ref if np.iscomplexobj(g) else ref.real, atol=1e-5)


def test_sorting_stages_with_jax_parameters():
    assert str(jax.make_jaxpr(CASES["sort"])(rec.A)) == STORED["sort"]["jaxpr"]
