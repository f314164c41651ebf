"""tests/oracle/compare.py, the oracle tests' comparison with JAX's stored values: each
check it makes fails on the difference it is there for."""
import numpy as np
import pytest

from oracle import compare


def test_load_reads_the_recorded_file():
    assert compare.load("trace_order") == compare.plain(compare.load("trace_order"))
    assert "cases" in compare.load("trace_order")


@pytest.mark.parametrize("got,want", [
    ({"a": [1.0, 2.0], "n": 3, "s": "x"}, {"a": [1.0, 2.0000001], "n": 3, "s": "x"}),
    ((np.float32(1.5), [np.ones(2), np.nan]), [1.5, [[1.0, 1.0], None]]),
    (np.arange(3, dtype=np.float32), {"dtype": "float32", "shape": [3], "v": [0.0, 1.0, 2.0]}),
    (np.array([1 + 2j]), [1 + 2j]),
])
def test_close_values_pass(got, want):
    compare.assert_close(got, want, rtol=1e-6)


@pytest.mark.parametrize("got,want,what", [
    ({"a": 1.0}, {"b": 1.0}, "keys"),
    ([1.0, [2.0]], [1.0, [2.0], [3.0]], "entries"),
    (np.ones(3), [1.0, 1.0], "shape"),
    (np.ones(()), [1.0], "shape"),
    (3, 4, "JAX's 4"),
    ("a", "b", "JAX's 'b'"),
    (np.float32(1.0), 1.001, "Not equal to tolerance"),
    (np.float32(1.0), None, "nan"),
    (np.arange(3, dtype=np.int32), {"dtype": "float32", "shape": [3], "v": [0, 1, 2]}, "dtype"),
    (np.zeros((1, 3), np.float32), {"dtype": "float32", "shape": [3], "v": [0, 0, 0]},
     "shape"),
])
def test_differences_fail(got, want, what):
    with pytest.raises(AssertionError, match=what):
        compare.assert_close(got, want, rtol=1e-6)


def test_outcome_compares_the_kind_and_the_error_class():
    compare.assert_outcome({"error": "TypeError"}, {"error": "TypeError"}, rtol=0)
    for got in ({"error": "ValueError"}, {"ok": [1.0]}):
        with pytest.raises(AssertionError):
            compare.assert_outcome(got, {"error": "TypeError"}, rtol=0)


def test_recorded_names_missing_and_stale_cases():
    compare.assert_recorded({"a": 1, "b": 2}, ["b", "a"])
    with pytest.raises(AssertionError, match=r"not recorded: \['c'\]; .* \['b'\]"):
        compare.assert_recorded({"a": 1, "b": 2}, ["a", "c"])


def test_cases_mark_known_differences_strict():
    a, b = compare.cases(["a", "b"], {"b": "why"})
    assert a == "a" and b.values == ("b",)
    [mark] = b.marks
    assert mark.name == "xfail" and mark.kwargs == {"strict": True, "reason": "why"}
    with pytest.raises(AssertionError, match="no case"):
        compare.cases(["a"], {"z": "stale"})
