"""jnp.packbits, unpackbits, roots, histogram2d and histogramdd against JAX 0.10.2's
values and errors (tests/oracle/more_jnp_names.json, recorded by
tests/oracle/record_more_jnp_names.py), eagerly, under jit and under vmap."""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError, ConcretizationError

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_more_jnp_names import build  # noqa: E402
from oracle import compare  # noqa: E402

RECORDS = compare.load("more_jnp_names")


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


# JAX 0.10.2 (recorded): histogram's counts take the inexact type of the data and the
# weights together; a weights array of another shape is a ValueError.
_HISTOGRAM_DTYPES = [  # (a dtype, weights dtype or None, x64) -> counts dtype
    ("float32", None, False, "float32"), ("int32", None, False, "float32"),
    ("float32", "int32", False, "float32"), ("float64", None, True, "float64"),
    ("float32", None, True, "float32"),
]


@pytest.mark.parametrize("a_dtype,w_dtype,x64,want", _HISTOGRAM_DTYPES)
def test_histogram_counts_dtype_matches_jax(a_dtype, w_dtype, x64, want):
    with astjax.enable_x64(x64):
        a = jnp.arange(10, dtype=a_dtype)
        w = None if w_dtype is None else jnp.ones(10, dtype=w_dtype)
        counts, edges = jnp.histogram(a, bins=10, weights=w)
        assert str(counts.dtype) == want
        np.testing.assert_array_equal(np.asarray(counts), np.ones(10))
    jc, _ = astjax.jit(lambda a: jnp.histogram(a, bins=3))(jnp.arange(6.0))
    assert str(jc.dtype) == "float32" and np.asarray(jc).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match="weights should have the same shape as a"):
        jnp.histogram(jnp.arange(4.0), weights=jnp.ones(3))
