"""A `Ref` passed as an argument to a `custom_jvp` / `custom_vjp` function (issue 13)
under every transformation, against JAX 0.10.2's stored results and error classes
(`tests/oracle/record_refs_custom_args.py`). Where JAX 0.10.2 has no rule (a
`custom_jvp` under `jit` touching a reference: its NotImplementedError "No state
discharge rule", or its internal ValueError for a reference in `nondiff_argnums`),
astjax computes, and the value is JAX's for the same program without `jit`. The
`user_*` programs mix references, keys and custom derivatives as a user does."""
import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_refs_custom_args import CASES  # noqa: E402
from record_refs_custom import run  # noqa: E402

RECORDED = json.loads((Path(__file__).parent / "oracle" / "refs_custom_args.json").read_text())
J = types.SimpleNamespace(jax=astjax, jnp=jnp, lax=lax)
# case JAX refuses (no discharge rule; its internal error) -> its JAX-recorded twin
BEYOND_JAX = {"jvp_read_jit": "jvp_read_eager", "jvp_write_jit": "jvp_write_eager",
              "jvp_write_jit_grad": "jvp_write_grad",
              "jvp_symbolic_zeros_jit": "jvp_symbolic_zeros_eager",
              "jvp_read_inner_jit": "jvp_read_inner_eager",
              "jvp_write_inner_jit": "jvp_write_inner_eager",
              "jvp_nondiff_jit": "jvp_nondiff_eager", "jvp_nondiff_jit_grad": "jvp_nondiff_grad"}
KNOWN = {}   # case -> why astjax still differs (a strict xfail)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[n])] if n in KNOWN else [])
    for n in sorted(CASES)])
def test_as_jax(name):
    want = RECORDED["cases"][name]
    got = run(CASES[name], J)
    if name in BEYOND_JAX:
        assert "error" in want
        want = RECORDED["cases"][BEYOND_JAX[name]]
    assert set(got) == set(want), (got, want)
    if "error" in want:
        assert got["error"] == want["error"]
    else:
        assert len(got["ok"]) == len(want["ok"]), (got, want)
        for g, w in zip(got["ok"], want["ok"]):
            np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                       rtol=1e-6)


def test_every_case_recorded():
    assert set(RECORDED["cases"]) == set(CASES)


@pytest.mark.parametrize("name", ["vjp_nondiff_jit", "user_custom_vjp_key_nondiff_jit"])
def test_traced_nondiff_argument_is_located(name):
    """JAX's UnexpectedTracerError, at the call of the custom_vjp function."""
    with pytest.raises(astjax.errors.UnexpectedTracerError) as e:
        CASES[name](J)
    assert isinstance(e.value, TypeError) and "nondiff_argnums" in str(e.value)
    assert "record_refs_custom_args.py" in str(e.value)
