"""The suite's two tiers: what CI runs on every change, and the full suite.

CI runs `python -m pytest -n 2 tests` on 2 cores and must finish its tests within 15
minutes. Most of the suite's time is XLA compiling the table-driven tests' programs
(a second or more per program on a 2-core machine). So in the CI tier the costliest
tests are sampled, in groups: a parametrized test function is a group of its cases,
and a file's unparametrized tests costing at least `HEAVY` CPU-seconds are a group.
A group keeps the tests whose ids hash lowest (crc32: the same tests on every run and
machine, spread over the table) while they fit `BUDGET` CPU-seconds, and at least
`MIN_KEPT`. Every other test, and every function in `ALWAYS`, always runs.
`ASTJAX_TESTS=full` runs everything (`tests/run_full.sh`: run it before a session
closes and after changing the rules the sampled tables cover).

The costs are measured, not guessed: `tests/ci_costs.json`, written by
`tests/measure_costs.py` from a timed run. A test missing from it (new, or cheap when
measured) always runs until it is measured.
"""
import collections
import json
import os
import zlib

FULL = os.environ.get("ASTJAX_TESTS") == "full"

BUDGET = 1.0      # CPU-seconds per sampled group in the CI tier (tests 888 s at 2.0, 854 s at 1.5 beside two fuzzers)
MIN_KEPT = 1      # a sampled group keeps at least this many tests
HEAVY = 3.0       # an unparametrized test costing this much is sampled with its file's
COSTS_PATH = os.path.join(os.path.dirname(__file__), "ci_costs.json")

# never sampled: the fuzzers' regression seeds (each a bug once found) and the bad-input
# corpus (each a located error; cheap)
ALWAYS = {"test_fuzz.py::test_fuzz_regression", "test_bad_inputs.py::test_bad_input"}


def function_key(item) -> str:
    """'file.py::test_function', the key of `item`'s table in the costs file."""
    return f"{os.path.basename(str(item.fspath))}::{item.originalname}"


def load_costs(path=COSTS_PATH) -> dict:
    """{'tables': {'file.py::test_function': CPU-seconds per case},
    'tests': {'file.py::test_name': CPU-seconds}} (the unparametrized tests costing at
    least HEAVY); empty if never measured."""
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {"tables": {}, "tests": {}}


def _groups(items, costs):
    """{group: [(index, cost)]}: a measured parametrized table is a group, and so are
    a file's heavy unparametrized tests."""
    tables, heavy = costs.get("tables", {}), costs.get("tests", {})
    groups = collections.defaultdict(list)
    for i, it in enumerate(items):
        key = function_key(it)
        if key in ALWAYS:
            continue
        if hasattr(it, "callspec"):
            if key in tables:
                groups[key].append((i, tables[key]))
        elif key in heavy:
            groups[key.split("::")[0] + "::(heavy)"].append((i, heavy[key]))
    return groups


def keep_in_ci(items, costs=None, budget=BUDGET) -> list:
    """For each collected test in `items`, whether it runs in the CI tier: in each
    group, the tests whose ids hash lowest, while they fit `budget` (at least
    MIN_KEPT)."""
    keep = [True] * len(items)
    if FULL:
        return keep
    costs = load_costs() if costs is None else costs
    for members in _groups(items, costs).values():
        members.sort(key=lambda m: zlib.crc32(items[m[0]].nodeid.encode()))
        spent = 0.0
        for n, (i, cost) in enumerate(members):
            if n >= MIN_KEPT and spent + cost > budget:
                keep[i] = False
            else:
                spent += cost
    return keep
