"""Dispatch keeps nothing per call (issue 12, R15): repeated calls of a jitted
function -- with the same input Arrays, the case that leaked -- and a fresh `jit`
object per call do not grow traced memory."""
import gc
import tracemalloc

import astjax
import astjax.numpy as jnp


def _f(x, y):
    return jnp.sin(x) * y + 1.0


def _growth(step, n, warmup=200):
    for _ in range(warmup):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(n):
            step()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_repeated_calls_same_inputs_keep_nothing():
    jf = astjax.jit(_f)
    x, y = jnp.ones(16), jnp.ones(16)
    grown = _growth(lambda: jf(x, y), 100_000)
    jf(x, y).block_until_ready()
    assert grown < 1_000_000, f"{grown} bytes kept by 10^5 calls"


def test_fresh_jit_object_per_call_keeps_nothing():
    x, y = jnp.ones(16), jnp.ones(16)
    grown = _growth(lambda: astjax.jit(_f)(x, y), 40, warmup=5)
    assert grown < 1_000_000, f"{grown} bytes kept by 40 fresh jit objects"


# ------------------------------------------------------------------ after other work
#
# The benchmark's RSS row read +0.1 to +9 MB over 10^6 calls when other workloads had
# run first in the process, +0.0 alone. The calls kept nothing: glibc's bytes in use
# stayed flat and malloc_trim(0) gave the pages back; the growth was free heap pages
# touched by the calls' transient allocations (benchmarks/README.md, "The RSS row").
# These tests pin what the calls keep -- Python memory, objects, jaxlib arrays and
# executables, C-level malloc'd bytes -- after a mix of other work.

import ctypes  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from astjax.codegen import runtime  # noqa: E402


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]


_libc = ctypes.CDLL(None) if sys.platform.startswith("linux") else None
_HAS_MALLINFO2 = _libc is not None and hasattr(_libc, "mallinfo2")
if _HAS_MALLINFO2:
    _libc.mallinfo2.restype = _Mallinfo2


def _malloc_in_use():
    """Bytes glibc's malloc has handed out and not got back, over all arenas (every
    thread's, jaxlib's C++ included; Python's small-object arenas are not malloc's)."""
    m = _libc.mallinfo2()
    return m.uordblks + m.hblkhd


def _loss(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)


def _other_work():
    """What a program does besides the measured loop: eager ops, grad, vmap, jit on
    NumPy arrays (jaxlib's C++ dispatch), on a parameter tree, fresh jit objects and a
    LAPACK-calling compile, leaving results of several sizes alive and freed."""
    rng = np.random.RandomState(0)
    w = jnp.asarray(rng.randn(64, 64).astype(np.float32))
    x = jnp.asarray(rng.randn(32, 64).astype(np.float32))
    kept = []
    for i in range(6):
        kept.append(jnp.sin(x[: 1 + i]) * 0.5 + jnp.cos(x[: 1 + i]))
        g = astjax.grad(_loss)(w, x)
        kept.append(astjax.vmap(lambda r: jnp.dot(r, w))(x) + g[:32])
        kept.append(astjax.jit(lambda a, b: a @ b + 1.0)(np.ones((8, 8 + i), np.float32),
                                                          np.ones((8 + i, 4), np.float32)))
        astjax.jit(_f)(jnp.ones(16), jnp.ones(16))
        if i % 2:
            del kept[: len(kept) // 2]
    tree = {f"k{i}": jnp.full((i + 1,), float(i)) for i in range(50)}
    astjax.block_until_ready(astjax.jit(lambda t: {k: v * 2.0 for k, v in t.items()})(tree))
    astjax.block_until_ready(astjax.jit(lambda a: jnp.linalg.qr(a @ a.T)[0].sum())(w))
    del kept
    gc.collect()


@pytest.fixture(scope="module")
def after_other_work():
    _other_work()


def _held(c):
    """(tracked Python objects, jaxlib's live arrays, live executables)."""
    return len(gc.get_objects()), len(c.live_arrays()), len(c.live_executables())


def _warm(jf, args):
    for _ in range(2000):
        jf(*args)
    astjax.block_until_ready(jf(*args))
    gc.collect()


@pytest.mark.parametrize("inputs, calls", [("arrays", 100_000), ("numpy", 20_000),
                                           ("tree", 20_000)])
def test_calls_after_other_work_keep_nothing(after_other_work, inputs, calls):
    """Calls after other work (arrays: the RSS row's loop; NumPy: jaxlib's C++
    dispatch; a dict of arrays: the tree path) keep no traced Python memory, no
    objects, no jaxlib arrays or executables."""
    c = runtime.client()
    if inputs == "arrays":
        jf, args = astjax.jit(_f), (jnp.ones(16), jnp.ones(16))
    elif inputs == "numpy":
        jf, args = astjax.jit(_f), (np.ones(16, np.float32), np.ones(16, np.float32))
    else:
        jf = astjax.jit(lambda t: _f(t["x"], t["y"]))
        args = ({"x": jnp.ones(16), "y": jnp.ones(16)},)
    _warm(jf, args)
    objects, arrays, executables = _held(c)
    grown = _growth(lambda: jf(*args), calls, warmup=0)
    assert grown < calls * 10, f"{grown} bytes kept by {calls} calls"
    now = _held(c)
    assert now[0] <= objects + 50, f"{now[0] - objects} more objects after {calls} calls"
    assert now[1:] == (arrays, executables)


@pytest.mark.skipif(not _HAS_MALLINFO2, reason="glibc's mallinfo2 reads malloc's bytes in use")
@pytest.mark.parametrize("inputs", ["arrays", "numpy"])
def test_calls_after_other_work_keep_no_malloc_memory(after_other_work, inputs):
    """The C side (jaxlib, XLA, their threads): malloc's bytes in use over 2*10^5
    calls after other work grow by less than 1 byte per call. A buffer, an execution
    record or a traceback kept per call is tens of bytes (a kept f32[16] result: 64)."""
    jf = astjax.jit(_f)
    if inputs == "arrays":
        args = (jnp.ones(16), jnp.ones(16))
    else:
        args = (np.ones(16, np.float32), np.ones(16, np.float32))
    _warm(jf, args)
    before = _malloc_in_use()
    for i in range(200_000):
        r = jf(*args)
        if i % 1000 == 0:
            r.block_until_ready()
    r.block_until_ready()
    del r
    gc.collect()
    grown = _malloc_in_use() - before
    assert grown < 200_000, f"{grown} malloc'd bytes kept by 2*10^5 calls"
