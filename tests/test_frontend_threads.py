"""Staging from several threads at once (issue 12, R13): the front end's per-call
state (the recursion-depth guard of `ag__.call`) is per thread, so threads staging
the same helper do not see each other's calls."""
import threading

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax.frontend import operators

import tiers  # tests/tiers.py: the CI tier or the full suite

STEPS = list(range(40))


def _helper(x):
    v = x
    for _ in STEPS:               # a Python list: unrolled while staging
        v = jnp.sin(v) * 0.5 + v * 0.5
    return v


def _outer(x, k):
    return _helper(x) + k


def test_concurrent_staging_of_a_shared_helper():
    n_threads, per_thread = 8, (40 if tiers.FULL else 12)   # 320 or 96 compiles
    errors, results, leftover = [], {}, []
    expected = np.asarray(astjax.jit(_helper)(jnp.ones(2)))
    barrier = threading.Barrier(n_threads)

    def work(t):
        barrier.wait()
        try:
            for j in range(per_thread):
                k = float(t * per_thread + j)   # a new static value: staged afresh
                results[k] = np.asarray(astjax.jit(_outer, static_argnums=1)(jnp.ones(2), k))
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(repr(e))
        leftover.append(dict(operators._depth.of))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert len(results) == n_threads * per_thread
    for k, r in results.items():
        np.testing.assert_allclose(r, expected + k, rtol=1e-6)
    assert leftover == [{}] * n_threads
