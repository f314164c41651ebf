"""The bad-input corpus (issue 12, item 2): every case in `tests/bad_inputs/` gets a
clean, located, hinted error of the class JAX raises -- or JAX's answer where JAX
accepts the program. Never a silent wrong answer, never a raw exception from inside
astjax. See tests/bad_inputs/README.md for the case format."""
import builtins
import re
import runpy
import traceback
import warnings
from pathlib import Path

import pytest

from astjax import errors

CASES = sorted((Path(__file__).parent / "bad_inputs").glob("*.py"))
_EXPECT = re.compile(r"^# expect: (.*)$", re.M)
_XFAIL = re.compile(r"^# xfail: (.*)$", re.M)


def _spec(path):
    text = path.read_text()
    expect = _EXPECT.search(text).group(1).split()
    xfail = _XFAIL.search(text)
    tagged = [i for i, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# error")]
    return expect, (xfail.group(1) if xfail else None), tagged


def _classify(path):
    """None if the case behaves as its header says, else what went wrong."""
    expect, _, tagged = _spec(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            runpy.run_path(str(path), run_name="__bad_input__")
            exc = None
        except AssertionError as e:
            return f"silent wrong answer: {e}"
        except Exception as e:  # noqa: BLE001 -- classified below
            exc = e
    kind = expect[0]
    if kind == "ok":
        return None if exc is None else f"rejected a valid program: {type(exc).__name__}: {exc}"
    if kind == "warning":
        cls = getattr(errors, expect[1])
        hits = [w for w in caught if issubclass(w.category, cls)]
        if exc is not None:
            return f"raised instead of warning: {type(exc).__name__}: {exc}"
        if not hits:
            return "no warning"
        if not any(w.filename == str(path) and w.lineno in tagged for w in hits):
            return f"warning at the wrong place: {hits[0].filename}:{hits[0].lineno}"
        return None
    want, builtin = getattr(errors, kind), getattr(builtins, expect[1])
    if exc is None:
        return "no error (silent)"
    if not isinstance(exc, errors.AstjaxError):
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return f"raw {type(exc).__name__} at {where.filename}:{where.lineno}: {exc}"
    if not isinstance(exc, want):
        return f"{type(exc).__name__} instead of {want.__name__}: {exc.message}"
    if not isinstance(exc, builtin):
        return f"{type(exc).__name__} is not a {builtin.__name__}"
    if exc.loc is None or exc.loc.file != str(path) or exc.loc.line not in tagged:
        loc = exc.loc.where() if exc.loc is not None else "nowhere"
        return f"located at {loc}, expected line {tagged}"
    text = str(exc)
    if "^" not in text:
        return "no caret"
    if not exc.hint:
        return "no hint"
    return None


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_bad_input(path):
    expect, xfail, tagged = _spec(path)
    if expect[0] not in ("ok",):
        assert tagged, "a case that expects an error or warning tags its line with # error"
    problem = _classify(path)
    if xfail:
        assert problem is not None, f"fixed: delete the xfail line ({xfail})"
        pytest.xfail(f"{xfail} -- now: {problem}")
    assert problem is None, problem


def test_corpus_is_not_empty():
    assert len(CASES) >= 50
