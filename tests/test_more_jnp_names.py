"""jnp.packbits, unpackbits, roots, histogram2d and histogramdd against JAX 0.10.2's
values and errors (tests/oracle/more_jnp_names.json, recorded by
tests/oracle/record_more_jnp_names.py), eagerly, under jit and under vmap."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError, ConcretizationError

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_more_jnp_names import build  # noqa: E402

RECORDS = json.loads((Path(__file__).parent / "oracle" / "more_jnp_names.json").read_text())


def _id(rec):
    return f"{rec['fn']}({','.join(rec['args'])},{rec['kwargs']})-{rec['mode']}"


def _run(rec):
    return build(jnp, rec["fn"], rec["args"], rec["kwargs"], rec["mode"], astjax.jit,
                 astjax.vmap)


@pytest.mark.parametrize("rec", [r for r in RECORDS if "out" in r], ids=_id)
def test_value_as_jax(rec):
    got = _run(rec)
    flat = [got] if not isinstance(got, (tuple, list)) else [
        g for o in got for g in (o if isinstance(o, list) else [o])]
    assert len(flat) == len(rec["out"])
    for g, want in zip(flat, rec["out"]):
        g = np.asarray(g)
        assert str(g.dtype) == want["dtype"] and list(g.shape) == want["shape"]
        w = np.asarray(want["re"]) + 1j * np.asarray(want["im"])
        gv = g.ravel().astype(np.complex128)
        if rec["fn"] == "roots":  # eigenvalue order is LAPACK's; compare as multisets
            gv, w = np.sort_complex(gv), np.sort_complex(w)
        np.testing.assert_allclose(gv, w, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("rec", [r for r in RECORDS if "raises" in r], ids=_id)
def test_error_as_jax(rec):
    builtin = ConcretizationError if rec["raises"] == "ConcretizationTypeError" else {
        "TypeError": TypeError, "ValueError": ValueError}[rec["raises"]]
    with pytest.raises(builtin) as info:
        _run(rec)
    assert isinstance(info.value, AstjaxError)
    if builtin is not ConcretizationError:
        assert info.value.message == rec["message"]


def test_every_mode_recorded():
    modes = {(r["fn"], r["mode"]) for r in RECORDS if "out" in r}
    for fn in ("packbits", "unpackbits", "roots", "histogram2d", "histogramdd"):
        assert (fn, "eager") in modes and (fn, "jit") in modes
    assert {fn for fn, m in modes if m == "vmap"} >= {"packbits", "unpackbits", "roots",
                                                     "histogram2d"}


def test_unpackbits_refuses_lists_as_jax():
    with pytest.raises(TypeError, match="unpackbits requires ndarray or scalar arguments"):
        jnp.unpackbits([1, 2])


def test_roots_zero_padding_gives_nan_last():
    r = np.asarray(astjax.jit(lambda p: jnp.roots(p, strip_zeros=False))(
        jnp.array([0.0, 1.0, -3.0, 2.0])))
    assert np.isnan(r[-1]) and np.allclose(np.sort_complex(r[:2]), [1, 2])
