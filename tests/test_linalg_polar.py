"""`jax.scipy.linalg.polar` against JAX 0.10.2's values (tests/oracle/
record_linalg_polar.py -> linalg_polar.json): the default method 'qdwh' runs
`lax.linalg.qdwh` as JAX does (so the factors agree to rounding, not only up to the
decomposition's uniqueness), 'svd' the SVD; batched, under jit and jvp; the
combinations JAX does not implement raise JAX's error classes."""
import builtins
import json
import types
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.scipy.linalg  # noqa: F401
from astjax.errors import AstjaxError
from oracle import record_linalg_polar as rec

STORED = json.loads(Path(rec.__file__).with_name("linalg_polar.json").read_text())
INPUTS = rec.inputs()
NS = types.SimpleNamespace(jax=jax, jsp=jax.scipy,
                           polar_eps=lambda x, eps: jax.scipy.linalg.polar(x, eps=eps))
VALUES = [c for c in rec.CASES if "error" not in STORED[c[0]]]
ERRORS = [c for c in rec.CASES if "error" in STORED[c[0]]]
KNOWN = {"polar_eps_raises": "JAX 0.10.2's polar raises ValueError for any eps (it passes "
                             "a traced eps to qdwh's static argument); astjax honours eps"}
TOL = {np.dtype(np.float32): 2e-5, np.dtype(np.complex64): 2e-5,
       np.dtype(np.float64): 1e-12, np.dtype(np.complex128): 1e-12}


def _run(fn, args, x64):
    with jax.enable_x64(x64):
        return fn(NS, *[INPUTS[a] for a in args])


@pytest.mark.parametrize("name,fn,args,x64", VALUES, ids=[c[0] for c in VALUES])
def test_polar_values_are_jax(name, fn, args, x64):
    got = _run(fn, args, x64)
    assert len(got) == len(STORED[name])
    for g, w in zip(got, STORED[name]):
        g = np.asarray(g)
        assert (str(g.dtype), list(g.shape)) == (w["dtype"], w["shape"]), name
        tol = TOL[g.dtype]
        np.testing.assert_allclose(g, rec.decode(w), rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("name,fn,args,x64", [
    pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=KNOWN[c[0]]))
    if c[0] in KNOWN else c for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_polar_refuses_as_jax(name, fn, args, x64):
    with pytest.raises(AstjaxError) as info:
        _run(fn, args, x64)
    assert isinstance(info.value, getattr(builtins, STORED[name]["error"])), info.value
