"""Mechanism tests for issue 14 (speed), memory and the cyclic collector: jaxlib's
garbage queue is drained, dispatch keeps bounded memory, a dropped function takes its
staged program and executables with it, and conversion, a first call and a call with
many results run with the collector paused (leaving no cycles, the user's frozen
objects frozen). Each test pins *why* a workload is fast, never a time."""
import gc
import tracemalloc

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core
from astjax.codegen import runtime
from astjax.frontend import converter as _converter
from perf_helpers import long_function, skip_if_real_jax_loaded


def test_gc_callback_drains_jaxlib_garbage_queue(monkeypatch):
    runtime.client()
    assert runtime._xla_gc_callback in gc.callbacks
    assert gc.callbacks.count(runtime._xla_gc_callback) == 1
    drained = [0]
    monkeypatch.setattr(runtime.xc._xla, "collect_garbage",
                        lambda: drained.__setitem__(0, drained[0] + 1))
    gc.collect()
    assert drained[0] >= 1


def _pytree_step(d):
    return jnp.sin(d["x"]) * d["y"] + 1.0


def test_dispatch_with_a_pytree_argument_keeps_bounded_memory():
    jf = astjax.jit(_pytree_step)
    x, y = jnp.ones(16), jnp.ones(16)
    for _ in range(200):
        jf({"x": x, "y": y})
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(20_000):
            jf({"x": x, "y": y})
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 200_000, f"{grown} bytes kept by 2*10^4 calls"  # was ~104 B per call


def test_a_dropped_function_takes_its_staged_program_with_it(tmp_path):
    """Converted code and jit state are kept weakly on the user's code object: once
    the user drops a function, its staged program goes (every function ever staged
    was kept, and walked by each full garbage collection: a sequence of first calls
    grew superlinearly)."""
    import gc
    import weakref
    path = tmp_path / "dropped_module.py"
    path.write_text("def f(x):\n    y = x * 2\n    if x.sum() > 0:\n        y = y + 1\n"
                    "    return y\n")
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    jf = astjax.jit(ns["f"])
    x = jnp.ones(3)   # (Arrays: NumPy arguments set up jaxlib's C++ dispatch, not covered)
    np.testing.assert_allclose(np.asarray(jf(x)), 3.0)
    closed, _ = jf.stage(x)
    program = weakref.ref(closed.jaxpr)
    code = weakref.ref(ns["f"].__code__)
    del jf, closed, ns
    gc.collect()
    assert code() is None and program() is None


def test_a_function_jitted_on_numpy_arrays_is_freed(tmp_path):
    """Calls on NumPy arrays set up jaxlib's C++ dispatch, whose cache-miss callable
    holds the jitted function weakly: a bound method made a cycle through jaxlib's
    PjitFunction that the collector never freed (the function, its staged programs
    and executables were kept for the life of the process)."""
    import gc
    import weakref
    from astjax import api
    skip_if_real_jax_loaded()
    path = tmp_path / "numpy_dropped_module.py"
    path.write_text("def f(x):\n    return x * 3\n")
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    jf = astjax.jit(ns["f"])
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(jf(np.ones(3, np.float32))), 3.0)
    assert jf._fast.get(api._CPP) is not None   # the C++ dispatch is in place
    # a second wrapper shares the dispatch; it keeps working once the first is gone,
    # also on a signature jaxlib has not seen (a miss whose target died)
    jf2 = astjax.jit(ns["f"])
    assert jf2._fast is jf._fast
    jitted = weakref.ref(jf)
    del jf
    gc.collect()
    assert jitted() is None
    for n in (4, 4, 5, 5):
        np.testing.assert_allclose(np.asarray(jf2(np.ones(n, np.float32))), 3.0)
    assert jf2._fast.get(api._CPP) is not None
    jitted, code = weakref.ref(jf2), weakref.ref(ns["f"].__code__)
    del jf2, ns
    gc.collect()
    assert jitted() is None and code() is None


def test_conversion_runs_no_garbage_collection(tmp_path, monkeypatch):
    """Converting a function builds acyclic trees; a collection during it walks every
    object in the process (several full walks for a long function): none runs, and
    the collector is on again afterwards. The converted tree is not kept."""
    import gc
    path = tmp_path / "long_module.py"
    path.write_text(long_function(1500))
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    runs, seen = [], []

    def count(phase, info):
        if phase == "start" and seen and seen[-1] == "in":
            runs.append(info["generation"])

    def watched(fn, _orig=_converter._converted_module):
        seen.append("in")
        try:
            return _orig(fn)
        finally:
            seen.append(gc.isenabled())
    monkeypatch.setattr(_converter, "_converted_module", watched)
    gc.callbacks.append(count)
    try:
        _converter._factory_code(ns["f"])
    finally:
        gc.callbacks.remove(count)
    assert seen == ["in", False] and runs == [] and gc.isenabled()
    assert type(_converter._factories.get(ns["f"].__code__)) is type(watched.__code__)
    gc.disable()   # a collector the user turned off stays off
    try:
        _converter._factories.pop(ns["f"].__code__)
        _converter._factory_code(ns["f"])
        assert not gc.isenabled()
    finally:
        gc.enable()


def _collections_during(fn, *args):
    """(result, cyclic-collector runs that started while `fn(*args)` ran)."""
    runs = [0]

    def count(phase, info):
        runs[0] += phase == "start"
    gc.collect()
    gc.callbacks.insert(0, count)
    try:
        out = fn(*args)
    finally:
        gc.callbacks.remove(count)
    return out, runs[0]


@pytest.mark.parametrize("container", [dict, list])
def test_many_results_are_made_without_collector_runs(container):
    """A call with hundreds of results makes them (jaxlib's array and astjax's Array,
    two tracked objects each) with the cyclic collector paused: at most one collection
    runs inside the call (2,000 leaves: 5 or 6 without the pause), the collector is on again
    afterwards, and the values are right; a few results leave it alone."""
    n = 2000
    xs = [jnp.asarray(np.full(2, i, np.float32)) for i in range(n)]
    tree = {f"k{i}": x for i, x in enumerate(xs)} if container is dict else xs
    jf = astjax.jit(lambda t: astjax.tree_util.tree_map(lambda a: a * 2.0, t))
    jf(tree)   # (staging and compiling allocate plenty)
    for _ in range(2):
        out, runs = _collections_during(jf, tree)
        assert runs <= 1 and gc.isenabled()   # (the one after the pause)
    leaves = list(out.values()) if container is dict else out
    assert len(leaves) == n and all(type(a) is runtime.Array for a in leaves)
    np.testing.assert_array_equal(np.asarray(out[1234 if container is list else "k1234"]),
                                  [2468.0, 2468.0])
    small = astjax.jit(lambda t: [a * 2.0 for a in t])
    assert not small.lower(xs[:3]).compile()._entry.executable.many
    assert jf.lower(tree).compile()._entry.executable.many
    gc.disable()   # a collector the user turned off stays off
    try:
        jf(tree)
        assert not gc.isenabled()
    finally:
        gc.enable()


def _lower_fresh(tmp_path, n, tag):
    """`jit(f).lower(x)` of a fresh `n`-statement function `f` (conversion, staging,
    DCE and StableHLO emission), counting the collections that run: (f, x, the
    generations collected, the young generation's count right after)."""
    path = tmp_path / f"first_{tag}_{n}.py"
    path.write_text(long_function(n))
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    x = jnp.ones(())
    runs = []

    def count(phase, info):
        if phase == "start":
            runs.append(info["generation"])
    gc.collect()
    gc.callbacks.append(count)
    try:
        astjax.jit(ns["f"]).lower(x)
        young = gc.get_count()[0]
    finally:
        gc.callbacks.remove(count)
    return ns["f"], x, runs, young


def _first_call_collections(tmp_path, n, tag):
    """(collections run, cyclic garbage left) over `jit(f).lower(x)` of a fresh
    `n`-statement function."""
    f, x, runs, _ = _lower_fresh(tmp_path, n, tag)
    collections_run = len(runs)
    gc.disable()
    try:
        astjax.jit(f).lower(x + 1)   # (cached conversion, a new signature)
        path2 = tmp_path / f"first_{tag}_{n}_b.py"
        path2.write_text(long_function(n).replace("* 0.5", "* 0.25"))
        ns2 = {}
        exec(compile(path2.read_text(), str(path2), "exec"), ns2)
        astjax.jit(ns2["f"]).lower(x)
        left = gc.collect()
    finally:
        gc.enable()
    return collections_run, left


def test_first_call_runs_no_collections_and_leaves_no_cycles(tmp_path):
    """Conversion, staging (every builder) and lowering run with the cyclic collector
    paused (`core.collector_paused`): the number of collections during a first call
    does not grow with the function (2000 statements ran ~300, two of them full
    walks of the heap, before the pause), and the pause is safe because what they
    build holds no reference cycles: after a whole first call made with the
    collector off, a collection finds next to nothing, at both sizes."""
    small, left_small = _first_call_collections(tmp_path, 150, "s")
    big, left_big = _first_call_collections(tmp_path, 600, "b")
    assert big <= small + 2 and big <= 8, (small, big)
    assert left_big <= left_small + 10 and left_big < 60, (left_small, left_big)
    assert gc.isenabled()
    gc.disable()   # a collector the user turned off stays off
    try:
        with core.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_first_call_runs_no_collection_and_keeps_frozen_objects_frozen(tmp_path):
    """What a first call's conversion, staging and lowering made goes to the oldest
    generation unexamined when each pause ends (`core.collector_paused`: freeze, then
    unfreeze): no collection runs during `jit(f).lower(x)` at all (a 300-statement
    function ran three young ones, one after each pause, walking every object made),
    and the next young collection has nothing of it to walk. A user's frozen objects
    stay frozen (the pause then only pauses)."""
    f, x, runs, young = _lower_fresh(tmp_path, 300, "nocollect")
    assert runs == [] and young < 700, (runs, young)
    keep = [object() for _ in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        astjax.jit(f).lower(x + 1)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()
    del keep
