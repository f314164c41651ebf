"""The CI tier's sampling (tests/tiers.py): a measured parametrized table, and a file's
heavy unparametrized tests, keep the tests whose ids hash lowest while they fit the
budget (at least MIN_KEPT); other tests, ALWAYS tables and the full tier keep all."""
import types
import zlib

import measure_costs
import tiers


def _item(file, name, param=None):
    it = types.SimpleNamespace(fspath=f"/x/tests/{file}", originalname=name,
                               nodeid=f"tests/{file}::{name}" + (f"[{param}]" if param else ""))
    if param is not None:
        it.callspec = object()
    return it


COSTS = {"tables": {"test_a.py::test_t": 2.0, "test_a.py::test_cheap": 0.01,
                    "test_fuzz.py::test_fuzz_regression": 50.0},
         "tests": {"test_a.py::test_slow": 5.0, "test_a.py::test_slower": 6.0,
                   "test_b.py::test_slow": 5.0}}


def test_a_costly_table_keeps_its_lowest_hashing_cases(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", False)
    table = [_item("test_a.py", "test_t", p) for p in range(24)]
    items = [_item("test_a.py", "test_plain")] + table + [
        _item("test_a.py", "test_cheap", p) for p in range(50)] + [
        _item("test_b.py", "test_new", p) for p in range(30)]
    keep = tiers.keep_in_ci(items, COSTS, budget=8.0)
    kept = [it for it, k in zip(items, keep) if k]
    lowest = sorted(table, key=lambda it: zlib.crc32(it.nodeid.encode()))[:4]
    assert [it for it in kept if it in table] == [it for it in table if it in lowest]
    assert len(kept) == 1 + 4 + 50 + 30      # 8 s / 2 s per case; the rest all kept


def test_heavy_unparametrized_tests_are_sampled_per_file(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", False)
    items = [_item("test_a.py", "test_slow"), _item("test_a.py", "test_slower"),
             _item("test_a.py", "test_light"), _item("test_b.py", "test_slow")]
    keep = tiers.keep_in_ci(items, COSTS, budget=8.0)
    assert keep[2:] == [True, True] and sum(keep[:2]) == 1     # 5 + 6 > 8: one of them
    first = min(items[:2], key=lambda it: zlib.crc32(it.nodeid.encode()))
    assert keep[items.index(first)]
    assert all(tiers.keep_in_ci(items, COSTS, budget=11.0))


def test_at_least_min_kept_and_always_tables(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", False)
    table = [_item("test_a.py", "test_t", p) for p in range(10)]
    assert sum(tiers.keep_in_ci(table, COSTS, budget=0.5)) == tiers.MIN_KEPT
    seeds = [_item("test_fuzz.py", "test_fuzz_regression", p) for p in range(10)]
    assert all(tiers.keep_in_ci(seeds, COSTS, budget=0.5))


def test_a_single_case_chosen_by_id_always_runs(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", False)
    assert tiers.keep_in_ci([_item("test_a.py", "test_t", 17)], COSTS, budget=0.5) == [True]


def test_full_tier_keeps_every_case(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", True)
    table = [_item("test_a.py", "test_t", p) for p in range(24)]
    assert all(tiers.keep_in_ci(table, COSTS, budget=1.0))


def test_measured_costs_and_projection(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", False)     # the projection is of the CI tier
    assert measure_costs._split("tests/test_a.py::Cls::test_t[x-1]") == ("test_a.py::test_t", True)
    assert measure_costs._split("tests/test_a.py::test_plain") == ("test_a.py::test_plain", False)
    run = {"tests/test_a.py::test_t[1]": 1.0, "tests/test_a.py::test_t[2]": 3.0,
           "tests/test_a.py::test_plain": 9.0, "tests/test_a.py::test_quick": 0.5}
    costs = measure_costs.tables_and_heavy(run)
    assert costs == {"tables": {"test_a.py::test_t": 2.0},
                     "tests": {"test_a.py::test_plain": 9.0}}
    ids = sorted(run) + ["tests/test_a.py::test_t[3]"]       # collected, not measured
    ci, full = measure_costs.projected(costs, run, ids)
    assert full == 1.0 + 3.0 + 2.0 + 9.0 + 0.5
    assert ci == 9.0 + 0.5 + 2.0 * 1       # budget 3 keeps one case of test_t (2 s each)


def test_the_committed_costs_file_is_well_formed():
    costs = tiers.load_costs()
    assert sorted(costs) == ["tables", "tests"] and costs["tables"]
    for part in costs.values():
        assert all(isinstance(v, (int, float)) and v >= 0 for v in part.values())
        assert all(k.count("::") == 1 and k.split("::")[0].startswith("test_") for k in part)
