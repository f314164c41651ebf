"""The CI tier's sampling (tests/tiers.py): only the listed tables' parametrized cases
are sampled, one in k by a stable hash, and the full tier keeps every case."""
import types
import zlib

import tiers


def _item(file, name, param=None):
    it = types.SimpleNamespace(fspath=f"/x/tests/{file}", originalname=name,
                               nodeid=f"tests/{file}::{name}" + (f"[{param}]" if param else ""))
    if param is not None:
        it.callspec = object()
    return it


def test_only_listed_parametrized_cases_are_sampled(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", False)
    assert tiers.keep_in_ci(_item("test_fuzz.py", "test_summary"))        # not parametrized
    assert all(tiers.keep_in_ci(_item("test_jit.py", "test_x", p)) for p in range(20))
    cases = [_item("test_fuzz.py", "test_fuzz_program", p) for p in range(24)]
    kept = [it for it in cases if tiers.keep_in_ci(it)]
    assert kept == [it for it in cases if zlib.crc32(it.nodeid.encode()) % 3 == 0]
    assert 0 < len(kept) < len(cases)
    assert all(tiers.keep_in_ci(_item("test_fuzz.py", "test_fuzz_regression", p))
               for p in (950034, 900638))


def test_full_tier_keeps_every_case(monkeypatch):
    monkeypatch.setattr(tiers, "FULL", True)
    assert all(tiers.keep_in_ci(_item("test_fuzz.py", "test_fuzz_program", p)) for p in range(24))
