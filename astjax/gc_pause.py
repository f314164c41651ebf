"""Pausing Python's cyclic garbage collector while astjax builds acyclic structures
(issue 14): `collector_paused`, which `core` re-exports for conversion, staging and
lowering."""
from __future__ import annotations

import gc
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused():
    """No automatic cyclic garbage collection inside (issue 14). Conversion, staging
    and lowering build trees, equations, tracers and module text that hold no
    reference cycles (`tests/test_perf_memory.py` checks that a whole first call
    leaves next to no cyclic garbage) and that survive the young generations, so every
    collection during them examines objects that cannot be garbage -- and the full
    ones walk the whole process: a 2000-statement first call ran two, each longer than
    staging itself. When the outermost pause ends, what was made meanwhile goes to the
    oldest generation unexamined (`gc.freeze()` then `gc.unfreeze()`: two list splices)
    instead of being walked by the next young collection and again by the middle one
    (a 600-statement first call left ~100,000 tracked objects that way, all alive;
    the walks cost ~10% of conversion, staging and lowering); the next full collection
    examines them as usual. Not while the user keeps objects frozen (`unfreeze` would
    release them). A collector that is off already (the user's `gc.disable()`, or an
    enclosing pause) is left alone."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()
