"""First-call latency with the persistent compile cache: cold (compile and write)
against warm (a later process deserializes), astjax beside JAX's own persistent
cache (`jax_compilation_cache_dir`) when `jax` is importable.

    python benchmarks/compile_cache.py [--processes 3]

Each sample is one fresh Python process: the runtime is initialised first (a tiny
eager op), then the timed first call of a freshly jitted seeds' MLP `predict`
(sizes [784, 512, 512, 10], batch 128, inputs on device): stage + lower + compile
(or cache load) + run. `cold` uses an empty cache directory, `warm` the directory a
previous process filled, `off` no cache.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = [784, 512, 512, 10]
BATCH = 128


def _worker(impl: str, cache_dir: str | None) -> dict:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    rng = np.random.RandomState(0)
    params = [(rng.randn(m, n).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
              for m, n in zip(SIZES[:-1], SIZES[1:])]
    x = rng.randn(BATCH, SIZES[0]).astype(np.float32)
    if impl == "jax":
        import jax
        import jax.numpy as jnp
        if cache_dir:
            jax.config.update("jax_compilation_cache_dir", cache_dir)
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
            jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        put = jax.device_put
    else:
        import astjax as jax
        import astjax.numpy as jnp
        if cache_dir:
            jax.config.update("astjax_compile_cache_dir", cache_dir)
        put = jax.device_put
    (jnp.ones(3) + 1).block_until_ready()   # runtime up, outside the timing
    params = put(params)
    x = put(x)

    def predict(params, inputs):
        for W, b in params:
            outputs = jnp.dot(inputs, W) + b
            inputs = jnp.tanh(outputs)
        return outputs

    if impl == "astjax":
        from astjax.codegen import compile_cache
        before = dict(compile_cache.stats)
    t = time.perf_counter()
    jax.jit(predict)(params, x).block_until_ready()
    first = time.perf_counter() - t
    out = {"first_call_ms": first * 1e3}
    if impl == "astjax":   # the timed call's share of the cache statistics
        out["stats"] = {k: v - before[k] for k, v in compile_cache.stats.items()}
    return out


def _sample(impl, cache_dir):
    env = dict(os.environ)
    env.pop("ASTJAX_COMPILE_CACHE_DIR", None)
    args = [sys.executable, __file__, "--worker", impl] + (
        ["--cache-dir", cache_dir] if cache_dir else [])
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--worker")
    ap.add_argument("--cache-dir")
    a = ap.parse_args()
    if a.worker:
        print(json.dumps(_worker(a.worker, a.cache_dir)))
        return
    impls = ["astjax"]
    try:
        import importlib.util
        if importlib.util.find_spec("jax") is not None:
            impls.append("jax")
    except ImportError:
        pass
    rows = {}
    for impl in impls:
        off, cold, warm, stats, cold_stats = [], [], [], None, None
        for _ in range(a.processes):
            off.append(_sample(impl, None)["first_call_ms"])
            d = tempfile.mkdtemp(prefix=f"{impl}-cache-")
            try:
                c = _sample(impl, d)
                cold.append(c["first_call_ms"])
                cold_stats = c.get("stats", cold_stats)
                w = _sample(impl, d)
                warm.append(w["first_call_ms"])
                stats = w.get("stats", stats)
            finally:
                shutil.rmtree(d, ignore_errors=True)
        rows[impl] = (statistics.median(off), statistics.median(cold),
                      statistics.median(warm), stats, cold_stats)
    print(f"first call of jit(predict), MLP {SIZES}, batch {BATCH}; median of "
          f"{a.processes} fresh processes (ms)")
    print(f"{'':10s}{'no cache':>10s}{'cold':>10s}{'warm':>10s}")
    for impl, (o, c, w, *_) in rows.items():
        print(f"{impl:10s}{o:10.1f}{c:10.1f}{w:10.1f}")
    _, _, _, s, cs = rows["astjax"]
    if s and cs:
        print(f"astjax, the timed call only: cold {cs['misses']} miss(es), "
              f"{cs['compile_s'] * 1e3:.1f} ms in XLA compile; warm {s['hits']} hit(s), "
              f"{s['misses']} misses, {s['load_s'] * 1e3:.1f} ms deserializing (the rest "
              f"is staging from source, lowering, transfers and the run)")


if __name__ == "__main__":
    main()
