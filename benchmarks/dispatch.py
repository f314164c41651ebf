"""Dispatch and first-call latency, astjax beside `jax.jit`.

    python benchmarks/dispatch.py [--repeats 7] [--processes 5] [--quick]

Each implementation is measured in its own fresh Python process (so astjax and JAX
never share jaxlib state); JAX's column is left out when `jax` is not importable.
Rows:
  - dispatch, device arrays in: per-call time of a jitted tiny function `x * y + 1`
    on f32[3] Arrays already on the device (result left on device);
  - dispatch, NumPy in/out: the same with NumPy arrays in and `np.asarray` of the
    result out;
  - dispatch, pytree: the MLP `predict` with tiny layers [4, 4, 4, 2] (a list of
    (W, b) tuples: 7 leaves), everything on device;
  - first call of the seeds' MLP `predict` (sizes [784, 512, 512, 10], batch 128):
    stage + lower + compile + run of a freshly jitted function, inputs on device,
    after the runtime itself is initialised. One sample per fresh process.
Per-call rows use the min and the median over `--repeats` timed loops in each of
`--processes` processes; the first-call row takes one sample per process.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from common import MLP_SRC, run_source

IMPLS = ("astjax", "jax")


# ------------------------------------------------------------------------ worker

def _worker(impl: str, repeats: int, loops: int) -> dict:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    if impl == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import astjax as jax
        import astjax.numpy as jnp

    # Initialise the runtime (client, first compile) outside every measurement.
    jax.jit(lambda a: a - 1)(jax.device_put(np.zeros(2, np.float32))).block_until_ready()

    # First call of the seeds' MLP predict: a fresh function object so no cache helps.
    ns: dict = {"jnp": jnp}
    run_source(MLP_SRC, "dispatch_mlp", ns)
    predict = ns["predict"]
    rng = np.random.RandomState(0)
    sizes = [784, 512, 512, 10]
    params = [(jax.device_put(rng.randn(m, n).astype(np.float32)),
               jax.device_put(rng.randn(n).astype(np.float32)))
              for m, n in zip(sizes[:-1], sizes[1:])]
    inputs = jax.device_put(rng.randn(128, 784).astype(np.float32))
    jax.block_until_ready((params, inputs))
    t0 = time.perf_counter()
    jax.jit(predict)(params, inputs).block_until_ready()
    first_call = time.perf_counter() - t0

    # Dispatch of a tiny jitted function.
    f = jax.jit(lambda x, y: x * y + 1)
    xd = jax.device_put(np.arange(3, dtype=np.float32))
    yd = jax.device_put(np.ones(3, np.float32))
    xn = np.arange(3, dtype=np.float32)
    yn = np.ones(3, np.float32)
    f(xd, yd).block_until_ready()
    np.asarray(f(xn, yn))

    def per_call(call, n):
        out = []
        for _ in range(repeats):
            t = time.perf_counter()
            for _ in range(n):
                r = call()
            r.block_until_ready() if hasattr(r, "block_until_ready") else None
            out.append((time.perf_counter() - t) / n)
        return out

    dev = per_call(lambda: f(xd, yd), loops)
    host = per_call(lambda: np.asarray(f(xn, yn)), max(loops // 4, 1))

    # A pytree argument: the MLP with tiny layers (7 leaves), params on device.
    small = [(jax.device_put(np.full((m, n), 0.1, np.float32)),
              jax.device_put(np.zeros(n, np.float32)))
             for m, n in zip([4, 4, 4], [4, 4, 2])]
    xs = jax.device_put(np.ones((2, 4), np.float32))
    g = jax.jit(predict)
    g(small, xs).block_until_ready()
    tree = per_call(lambda: g(small, xs), max(loops // 2, 1))
    return {"dispatch_device": dev, "dispatch_numpy": host, "dispatch_pytree": tree,
            "first_call": [first_call]}


def _jax_available() -> bool:
    r = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True)
    return r.returncode == 0


def _run_worker(impl, repeats, loops):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", impl,
           "--repeats", str(repeats), "--loops", str(loops)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{impl} worker failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _fmt(seconds):
    us = seconds * 1e6
    return f"{us / 1000:8.2f} ms" if us >= 1000 else f"{us:8.2f} us"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7, help="timed loops per process")
    ap.add_argument("--loops", type=int, default=20000, help="calls per timed loop")
    ap.add_argument("--processes", type=int, default=5, help="fresh processes per impl")
    ap.add_argument("--quick", action="store_true", help="--repeats 3 --loops 2000 "
                                                         "--processes 2")
    ap.add_argument("--worker", choices=IMPLS, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.quick:
        a.repeats, a.loops, a.processes = 3, 2000, 2
    if a.worker:
        print(json.dumps(_worker(a.worker, a.repeats, a.loops)))
        return

    impls = ["astjax"] + (["jax"] if _jax_available() else [])
    results = {impl: {} for impl in impls}
    for _ in range(a.processes):  # interleave, so drift affects both alike
        for impl in impls:
            for k, v in _run_worker(impl, a.repeats, a.loops).items():
                results[impl].setdefault(k, []).extend(v)

    rows = [("dispatch, device arrays in", "dispatch_device"),
            ("dispatch, NumPy in/out", "dispatch_numpy"),
            ("dispatch, pytree (7 leaves)", "dispatch_pytree"),
            ("first call, MLP predict", "first_call")]
    import platform
    print(f"python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cpus; {a.processes} processes x {a.repeats} repeats x "
          f"{a.loops} calls")
    if "jax" not in impls:
        print("jax is not importable: astjax only (pip install 'jax==0.10.2' to compare)")
    head = f"{'':28} {'astjax min':>11} {'median':>11}"
    if "jax" in impls:
        head += f" {'jax.jit min':>12} {'median':>11} {'ratio: min':>11} {'median':>7}"
    print(head)
    ratios = {}
    for label, key in rows:
        ours = results["astjax"][key]
        line = f"{label:28} {_fmt(min(ours)):>11} {_fmt(statistics.median(ours)):>11}"
        if "jax" in impls:
            theirs = results["jax"][key]
            ratio = statistics.median(ours) / statistics.median(theirs)
            ratios[key] = ratio
            line += (f" {_fmt(min(theirs)):>12} {_fmt(statistics.median(theirs)):>11}"
                     f" {min(ours) / min(theirs):10.2f}x {ratio:6.2f}x")
        print(line)
    if ratios:
        print("ratio = astjax / jax.jit, of the minima and of the medians (lower is "
              "better; targets: dispatch <= 1.2x, first call <= 1.0x). On a loaded machine "
              "trust the minima.")


if __name__ == "__main__":
    main()
