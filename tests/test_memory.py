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
