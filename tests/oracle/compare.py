"""Comparing astjax with JAX 0.10.2's values stored in this folder: the one place the
oracle tests load a recorded file from, compare a value tree with JAX's (within a
tolerance the test names; dtypes, shapes and NaNs as stored), check that every case is
recorded and no recording is stale, and parametrize cases with the known remaining
differences as strict xfails (so a fixed difference fails until its entry is removed).

    from oracle import compare
    RECORDED = compare.load("optimize_remat")          # tests/oracle/optimize_remat.json
    compare.assert_close(got, RECORDED["cases"][name], rtol=2e-6, atol=1e-6)
    compare.assert_recorded(RECORDED["cases"], CASES)  # test_every_case_recorded
    @pytest.mark.parametrize("name", compare.cases(sorted(CASES), KNOWN))
"""
import json
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent

# a stored array that keeps its dtype: {"dtype": "float32", "shape": [2, 3], "v": [...]}
_ENCODED = {"dtype", "shape", "v"}


def load(name):
    """The recorded file `tests/oracle/<name>.json`, as stored."""
    return json.loads((HERE / f"{name}.json").read_text())


def plain(value):
    """`value` as the recorder stores it: through JSON (tuples become lists, NumPy
    scalars Python numbers), for exact comparisons with a stored entry."""
    return json.loads(json.dumps(value))


def _is_nested(want):
    return any(isinstance(w, (list, tuple, dict, str, np.ndarray)) for w in want)


def _decoded(want):
    """A stored leaf as an array: None (JSON has no NaN) read as NaN."""
    w = np.asarray(want)
    return np.array(want, np.float64) if w.dtype == object else w


def _leaf_close(got, want, rtol, atol, where):
    g = np.asarray(got)
    w = _decoded(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape}, JAX's {w.shape}"
    as_type = np.complex128 if np.iscomplexobj(g) or np.iscomplexobj(w) else np.float64
    np.testing.assert_allclose(g.astype(as_type), w.astype(as_type), rtol=rtol, atol=atol,
                               err_msg=where)


def assert_close(got, want, *, rtol, atol=0.0, where="value"):
    """`got` (an astjax value tree) equals the stored `want` (its JSON form): dicts
    with the same keys, lists of the same length entry by entry (a list of numbers is
    one array: same shape), strings and Python ints exactly, other numbers within
    `rtol` / `atol` with NaN where JAX's is NaN; a stored {"dtype", "shape", "v"}
    entry also checks the dtype, its flat values `v` against the array's."""
    if isinstance(want, dict) and set(want) == _ENCODED:
        g = np.asarray(got)
        assert str(g.dtype) == want["dtype"], f"{where}: dtype {g.dtype}, JAX's {want['dtype']}"
        assert list(g.shape) == list(want["shape"]), \
            f"{where}: shape {g.shape}, JAX's {tuple(want['shape'])}"
        _leaf_close(g.ravel(), want["v"], rtol, atol, where)
    elif isinstance(want, dict):
        assert set(got) == set(want), f"{where}: keys {sorted(got)}, JAX's {sorted(want)}"
        for k in want:
            assert_close(got[k], want[k], rtol=rtol, atol=atol, where=f"{where}[{k!r}]")
    elif isinstance(want, (list, tuple)) and _is_nested(want):
        assert len(got) == len(want), f"{where}: {len(got)} entries, JAX's {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, rtol=rtol, atol=atol, where=f"{where}[{i}]")
    elif isinstance(want, (str, bool, int)):
        assert got == want, f"{where}: {got!r}, JAX's {want!r}"
    else:
        _leaf_close(got, want, rtol, atol, where)


def assert_outcome(got, want, *, rtol, atol=0.0):
    """A case's outcome as the recorders store it, {"ok": value} or {"error": class
    name}: the same kind, the same error class, or values `assert_close`."""
    assert set(got) == set(want), (got, want)
    if "error" in want:
        assert got["error"] == want["error"]
    else:
        assert_close(got["ok"], want["ok"], rtol=rtol, atol=atol)


def assert_recorded(recorded, cases):
    """Every case has a recording and every recording a case (a stale one means the
    recorder was not re-run after a case was renamed or removed)."""
    missing, stale = sorted(set(cases) - set(recorded)), sorted(set(recorded) - set(cases))
    assert not missing and not stale, \
        f"not recorded: {missing}; recorded but no longer a case: {stale}"


def cases(names, known):
    """`names` as pytest parameters, each of `known` (name -> why it still differs from
    JAX) a strict xfail; a known name that is not a case is an error here."""
    names = list(names)
    stray = sorted(set(known) - set(names))
    assert not stray, f"known differences that are no case: {stray}"
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=known[n]))
            if n in known else n for n in names]
