"""Mechanism tests for issue 14 (speed), the benchmark driver: per-call rows are
measured interleaved -- both libraries' workers alive at once, their samples taken in
pairs whose order alternates -- and the driver reports the median of the per-pair
ratios beside the medians. Checked with stand-in workers: what is asked of whom, in
which order, never a time."""
import importlib
import statistics
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def run_module(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    for name in ("run", "workloads", "common"):
        sys.modules.pop(name, None)
    yield importlib.import_module("run")
    for name in ("run", "workloads", "common"):
        sys.modules.pop(name, None)


def _fake_servers(log, samples, fail=()):
    class Server:
        def __init__(self, python, impl):
            self.impl, self.n = impl, 0
            log.append(("start", impl))

        def ask(self, op, key):
            log.append((op, self.impl, key))
            if op == "setup":
                return f"ValueError: {key}" if (self.impl, key) in fail else True
            if op == "sample":
                self.n += 1
                return samples[self.impl](self.n)
            return True

        def close(self):
            log.append(("close", self.impl))
    return Server


def test_per_call_rows_alternate_sample_by_sample_with_both_workers_alive(run_module,
                                                                          monkeypatch):
    run, log = run_module, []
    # astjax's samples 2, 4, 6, ... and JAX's 1, 2, 3, ...: every pair's ratio is 2
    monkeypatch.setattr(run, "_Server", _fake_servers(
        log, {"astjax": lambda n: 2.0 * n, "jax": lambda n: 1.0 * n}))
    args = SimpleNamespace(pair_rounds=2, pairs=3)
    samples, ratios = {"astjax": {}, "jax": {}}, {}
    run.measure_interleaved(args, [("jit_numpy_io", 0)], {"astjax": "a", "jax": "j"},
                            samples, ratios)
    starts = [i for i, e in enumerate(log) if e[0] == "start"]
    first_sample = next(i for i, e in enumerate(log) if e[0] == "sample")
    assert len(starts) == 4 and starts[1] < first_sample   # both alive before sampling
    # round 1 starts astjax first, round 2 JAX first; within a round the pair order
    # alternates, and the second round starts where the first did not
    order = [e[1] for e in log if e[0] == "sample"]
    assert order == ["astjax", "jax", "jax", "astjax", "astjax", "jax",
                     "jax", "astjax", "astjax", "jax", "jax", "astjax"], order
    assert [e[1] for e in log if e[0] == "start"] == ["astjax", "jax", "jax", "astjax"]
    assert ratios["jit_numpy_io:0"] == [2.0] * 6
    assert len(samples["astjax"]["jit_numpy_io:0"]) == len(samples["jax"]["jit_numpy_io:0"]) == 6
    assert log.count(("close", "astjax")) == log.count(("close", "jax")) == 2
    rows = run.summarize([("jit_numpy_io", 0)], samples, ratios)
    row = rows["jit_numpy_io:0"]
    assert row["ratio_pairs"] == 2.0 and row["pairs"] == 6
    assert row["ratio_median"] == pytest.approx(
        statistics.median(samples["astjax"]["jit_numpy_io:0"])
        / statistics.median(samples["jax"]["jit_numpy_io:0"]))
    assert "**2.00x** (6 pairs)" in run.table(rows)


def test_a_workload_failing_to_set_up_is_reported_and_takes_no_samples(run_module,
                                                                       monkeypatch):
    run, log = run_module, []
    monkeypatch.setattr(run, "_Server", _fake_servers(
        log, {"astjax": float, "jax": float}, fail={("jax", "eager_op:0")}))
    samples, ratios = {"astjax": {}, "jax": {}}, {}
    run.measure_interleaved(SimpleNamespace(pair_rounds=1, pairs=2),
                            [("eager_op", 0), ("jit_pytree", 900)],
                            {"astjax": "a", "jax": "j"}, samples, ratios)
    assert samples["jax"]["eager_op:0"] == "ValueError: eager_op:0"
    assert "eager_op:0" not in ratios and len(ratios["jit_pytree:900"]) == 2
    assert not [e for e in log if e[0] == "sample" and e[2] == "eager_op:0"]
    row = run.summarize([("eager_op", 0)], samples, ratios)["eager_op:0"]
    assert "ratio_pairs" not in row and row["jax"] == {"error": "ValueError: eager_op:0"}


def test_only_per_call_rows_are_interleaved(run_module):
    import workloads
    per_call = {(w.name, w.param) for w in workloads.TABLE if w.unit == "s/call"}
    assert ("jit_numpy_io", 0) in per_call and ("statements_600", 600) not in per_call
    for w in workloads.TABLE:
        assert run_module._per_call((w.name, w.param)) == ((w.name, w.param) in per_call)
    assert run_module._per_call(("leaves", 10)) and not run_module._per_call(("nesting", 2))
    # a serving worker's per-call workload hands back its sampler instead of samples
    workloads.SERVE[0] = True
    try:
        sampler = workloads._per_call(lambda: 1, 3, 5, lambda r: r)
    finally:
        workloads.SERVE[0] = False
    assert isinstance(sampler, workloads.Sampler) and sampler.sample() >= 0.0
    assert len(workloads._per_call(lambda: 1, 3, 5, lambda r: r)) == 5


def test_the_numpy_row_places_its_inputs_at_one_offset_from_64_bytes(run_module):
    """jaxlib's CPU transfer adopts a 64-byte-aligned NumPy buffer and copies any
    other, so the NumPy in / out row gives both libraries inputs at the same offset
    (16: copied, as malloc's usual placement) instead of wherever malloc put them in
    each process (one of JAX's inputs fell on a boundary under callgrind)."""
    import numpy as np
    workloads = importlib.import_module("workloads")
    seen = []

    class Jit:
        def __init__(self, f):
            self.f = f

        def __call__(self, x, y):
            seen.append((x.ctypes.data % 64, y.ctypes.data % 64, x.dtype, y.dtype))
            return self.f(x, y)
    for _ in range(3):   # (fresh allocations each time: the offset is not luck)
        workloads.jit_numpy_io(SimpleNamespace(jit=Jit), None, None, 0)
    f32 = np.dtype(np.float32)
    assert set(seen) == {(16, 16, f32, f32)}, set(seen)
    v = workloads._placed([1.0, 2.0], np.float32, 48)
    assert v.ctypes.data % 64 == 48 and v.tolist() == [1.0, 2.0] and v.flags.c_contiguous
