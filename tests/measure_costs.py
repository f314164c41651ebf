"""Measure the suite's per-test CPU cost and write `tests/ci_costs.json`, the table the
CI tier samples by (tests/tiers.py).

    python tests/measure_costs.py                 # run the suite timed, then write
    python tests/measure_costs.py --from DIR      # write from an earlier timed run's DIR

A timed run is the suite with `ASTJAX_TEST_COSTS=DIR` (tests/conftest.py appends each
test's CPU-seconds there). CPU time, unlike wall time, hardly changes with the machine's
load, so a run on a busy machine still measures. Besides the file it prints the
projected CPU cost of the CI tier and of the full suite.
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tiers  # noqa: E402


def _split(nodeid):
    """'tests/f.py::test_g[case]' -> ('f.py::test_g', parametrized?)."""
    path, _, rest = nodeid.partition("::")
    name = rest.rsplit("::", 1)[-1]
    return f"{os.path.basename(path)}::{name.partition('[')[0]}", "[" in name


def read_run(directory):
    """{nodeid: CPU-seconds} from a timed run's files (a test run twice keeps its last)."""
    costs = {}
    for path in glob.glob(os.path.join(directory, "cpu_*.txt")):
        with open(path) as f:
            for line in f:
                nodeid, _, seconds = line.rstrip("\n").rpartition("\t")
                if nodeid:
                    costs[nodeid] = float(seconds)
    return costs


def full_nodeids(python):
    """The test ids of the full tier, as collected."""
    out = subprocess.run([python, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=",
                          "-p", "no:cacheprovider", HERE],
                         env={**os.environ, "ASTJAX_TESTS": "full"}, capture_output=True,
                         text=True, check=False).stdout
    return [line.strip() for line in out.splitlines() if "::" in line]


def as_item(nodeid):
    """A stand-in for a collected pytest item: what tiers.keep_in_ci reads."""
    path, _, rest = nodeid.partition("::")
    name = rest.rsplit("::", 1)[-1]
    item = types.SimpleNamespace(fspath=path, originalname=name.partition("[")[0],
                                 nodeid=nodeid)
    if "[" in name:
        item.callspec = None
    return item


def tables_and_heavy(run):
    """The costs file's content from a timed run: each parametrized table's mean
    CPU-seconds per case, and the unparametrized tests costing at least tiers.HEAVY."""
    sums, ns, heavy = collections.Counter(), collections.Counter(), {}
    for nodeid, seconds in run.items():
        key, parametrized = _split(nodeid)
        if parametrized:
            sums[key] += seconds
            ns[key] += 1
        elif seconds >= tiers.HEAVY:
            heavy[key] = round(seconds, 3)
    return {"tables": {k: round(sums[k] / ns[k], 3) for k in sorted(sums)},
            "tests": dict(sorted(heavy.items()))}


def projected(costs, run, nodeids):
    """(CI tier CPU-seconds, full tier CPU-seconds) over `nodeids`, each test costing
    what `run` measured (else its table's mean, else nothing)."""
    items = [as_item(n) for n in nodeids]
    tables = costs["tables"]
    cost = [run.get(n, tables.get(_split(n)[0], 0.0)) for n in nodeids]
    keep = tiers.keep_in_ci(items, costs)
    return sum(c for c, k in zip(cost, keep) if k), sum(cost)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--from", dest="source", help="a timed run's directory")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--out", default=tiers.COSTS_PATH)
    args = p.parse_args(argv)
    directory = args.source
    if directory is None:
        directory = tempfile.mkdtemp(prefix="astjax_costs_")
        subprocess.run([args.python, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider",
                        HERE], env={**os.environ, "ASTJAX_TEST_COSTS": directory},
                       check=False)
    run = read_run(directory)
    costs = tables_and_heavy(run)
    with open(args.out, "w") as f:
        json.dump(costs, f, indent=0, sort_keys=True)
        f.write("\n")
    ci, full = projected(costs, run, full_nodeids(args.python))
    print(f"measured {len(run)} tests, {sum(run.values()):.0f} CPU-s; wrote "
          f"{len(costs['tables'])} tables and {len(costs['tests'])} heavy tests to {args.out}")
    print(f"projected CPU-seconds: CI tier {ci:.0f}, full suite {full:.0f} "
          f"(CI's wall time on 2 cores is about half its CPU-seconds)")

if __name__ == "__main__":
    main()
