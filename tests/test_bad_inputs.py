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

from astjax import config, errors

CASES = sorted(p for p in (Path(__file__).parent / "bad_inputs").glob("*.py")
               if not p.name.startswith("_"))  # _record_jax.py is a tool, not a case
_EXPECT = re.compile(r"^# expect: (.*)$", re.M)
_XFAIL = re.compile(r"^# xfail: (.*)$", re.M)


def _spec(path):
    text = path.read_text()
    expect = _EXPECT.search(text).group(1).split()
    xfail = _XFAIL.search(text)
    tagged = [i for i, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# error")]
    return expect, (xfail.group(1) if xfail else None), tagged


def _run(path):
    """Run one case: (exception or None, caught warnings). The x64 flag is reset
    afterwards, so a case that switches it on does not leak into the next."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            runpy.run_path(str(path), run_name="__bad_input__")
            exc = None
        except Exception as e:  # noqa: BLE001 -- classified by the caller
            exc = e
        finally:
            config.update("jax_enable_x64", False)
    return exc, caught


def _warning_class(name):
    """A warning class named in `# expect: warning <name>`: astjax's, a builtin, or
    NumPy's (ComplexWarning)."""
    import numpy as np
    for where in (errors, builtins, np.exceptions):
        if isinstance(getattr(where, name, None), type):
            return getattr(where, name)
    raise LookupError(name)


def _warning_problem(path, caught, cls, tagged):
    """None if a `cls` warning among `caught` names a tagged line of `path`, else what
    went wrong. (Judged on the run's own record: astjax warns once per source line
    per process, so a second run of the same case does not warn again.)"""
    hits = [w for w in caught if issubclass(w.category, cls)]
    if not hits:
        return "no warning"
    if not any(w.filename == str(path) and w.lineno in tagged for w in hits):
        return f"warning at the wrong place: {hits[0].filename}:{hits[0].lineno}"
    return None


def _classify(path):
    """None if the case behaves as its header says, else what went wrong."""
    expect, _, tagged = _spec(path)
    exc, caught = _run(path)
    if isinstance(exc, AssertionError):
        return f"silent wrong answer: {exc}"
    kind = expect[0]
    if kind == "ok":
        return None if exc is None else f"rejected a valid program: {type(exc).__name__}: {exc}"
    if kind == "warning":
        if exc is not None:
            return f"raised instead of warning: {type(exc).__name__}: {exc}"
        return _warning_problem(path, caught, _warning_class(expect[1]), tagged)
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
    assert len(CASES) >= 300


def test_every_case_records_jax():
    """JAX's outcome is recorded in every case (tests/bad_inputs/_record_jax.py)."""
    missing = [p.stem for p in CASES if not _JAX.search(p.read_text())]
    assert not missing, missing


_JAX = re.compile(r"^# jax: (.*)$", re.M)
_PACKAGE_DIRS = tuple(str(Path(errors.__file__).parent.parent / d) for d in
                      ("astjax", "transforms", "codegen"))


class _Hang(Exception):
    pass


def outcome_class(path):
    """The issue-12 class of a case's outcome under astjax, judged against the
    recorded JAX outcome: clean / no hint / wrong location / no location / raw
    internal / raw in user frame / ok / silent wrong / hang (plus wrong class: a
    located error that is not the builtin JAX raises, and rejects valid)."""
    import signal
    expect, _, tagged = _spec(path)
    jax_ok = _JAX.search(path.read_text()).group(1).startswith("ok")

    def alarm(*_):
        raise _Hang
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(30)
    try:
        exc, caught = _run(path)
    except _Hang:
        return "hang"
    finally:
        signal.alarm(0)
    if isinstance(exc, _Hang):
        return "hang"
    if isinstance(exc, AssertionError):
        return "silent wrong"
    if exc is None:
        if expect[0] == "warning":
            problem = _warning_problem(path, caught, _warning_class(expect[1]), tagged)
            return "clean" if problem is None else "wrong location"
        # expect ok where JAX errors: Python control flow astjax stages by design
        return "ok" if jax_ok or expect[0] == "ok" else "silent wrong"
    if jax_ok:
        return "rejects valid"
    if not isinstance(exc, errors.AstjaxError):
        where = traceback.extract_tb(exc.__traceback__)[-1].filename
        return "raw internal" if where.startswith(_PACKAGE_DIRS) else "raw in user frame"
    if len(expect) > 1 and not isinstance(exc, getattr(builtins, expect[1], Exception)):
        return "wrong class"
    if exc.loc is None or exc.loc.file is None:
        return "no location"
    if exc.loc.file != str(path) or exc.loc.line not in tagged:
        return "wrong location"
    if "^" not in str(exc) or not exc.hint:
        return "no hint"
    return "clean"


if __name__ == "__main__":  # python tests/test_bad_inputs.py: counts by class
    import collections
    import sys
    counts = collections.Counter()
    for p in CASES:
        k = outcome_class(p)
        counts[k] += 1
        if "-v" in sys.argv:
            print(f"{k:18} {p.stem}", flush=True)
    for k, n in counts.most_common():
        print(f"{n:4}  {k}")
    print(f"{sum(counts.values()):4}  total")


def test_unbound_local_says_what_python_says():
    """A local no assignment reaches (a loop that ran zero times) is read with Python's
    own UnboundLocalError message; astjax's explanation is the hint."""
    def plain():
        for i in range(0):
            pass
        return i  # noqa: F821 -- unbound on purpose
    try:
        plain()
    except UnboundLocalError as e:
        want = str(e)
    exc, _ = _run(Path(__file__).parent / "bad_inputs" / "name_loop_var_after_zero_trips.py")
    assert isinstance(exc, errors.UnboundLocalVariableError) and exc.message == want, exc
