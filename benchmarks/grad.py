"""Gradients, astjax beside JAX (each in its own fresh process; JAX's column is left
out when `jax` is not importable).

    python benchmarks/grad.py [--steps 50] [--ns 10,100,1000,10000] [--jax-timeout 120]

Rows:
  - the seeds' MLP SGD step `update` (sizes [784, 512, 512, 10], batch 128, jitted,
    `grad(mse_loss)` inside): first-call latency (stage + differentiate + compile +
    run) and the steady step time (median of `--steps` steps, inputs on device);
  - first call of `jit(grad(loop_n))`, where loop_n runs
    `for i in range(n): x = jnp.sin(x) * 0.5 + x * 0.1`. astjax: written with
    `lax.fori_loop` (a `scan`: the IR has one copy of the body whatever n is). JAX:
    `jit(grad)` of the Python loop, which tracing unrolls n times. A JAX row that
    exceeds `--jax-timeout` seconds is reported as such.
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

HERE = os.path.abspath(__file__)


def _worker(impl, what, steps, n):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    if impl == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
    else:
        import astjax as jax
        import astjax.numpy as jnp
        from astjax import lax
    jax.jit(lambda a: a - 1)(jax.device_put(np.zeros(2, np.float32))).block_until_ready()
    ns = {"jnp": jnp, "lax": lax, "jax": jax}
    if what == "mlp":
        run_source(MLP_SRC, f"mlp_{impl}", ns)
        update = jax.jit(ns["update"])
        rng = np.random.RandomState(0)
        sizes = [784, 512, 512, 10]
        params = [(jax.device_put((rng.randn(m, k) / np.sqrt(m)).astype(np.float32)),
                   jax.device_put(np.zeros(k, np.float32)))
                  for m, k in zip(sizes[:-1], sizes[1:])]
        x = jax.device_put(rng.randn(128, 784).astype(np.float32))
        y = jax.device_put(rng.randn(128, 10).astype(np.float32))
        jax.block_until_ready((params, x, y))
        t0 = time.perf_counter()
        p = update(params, x, y)
        jax.block_until_ready(p)
        first = time.perf_counter() - t0
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            p = update(p, x, y)
            jax.block_until_ready(p)
            times.append(time.perf_counter() - t0)
        return {"first": first, "step": statistics.median(times), "step_min": min(times)}
    src = _LOOP_SRC_JAX if impl == "jax" else _LOOP_SRC_ASTJAX
    run_source(src.replace("NSTEPS", str(n)), f"loop{n}_{impl}", ns)
    g = jax.jit(jax.grad(ns["loop"]))
    t0 = time.perf_counter()
    out = g(np.float32(0.3))
    jax.block_until_ready(out)
    return {"first": time.perf_counter() - t0, "value": float(out)}


_LOOP_SRC_ASTJAX = '''
def step(i, x):
    return jnp.sin(x) * 0.5 + x * 0.1


def loop(x):
    return lax.fori_loop(0, NSTEPS, step, x)
'''

_LOOP_SRC_JAX = '''
def loop(x):
    for i in range(NSTEPS):
        x = jnp.sin(x) * 0.5 + x * 0.1
    return x
'''


def _run(impl, what, steps, n, timeout):
    cmd = [sys.executable, HERE, "--worker", impl, what, str(steps), str(n)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if out.returncode != 0:
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _have_jax():
    r = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True)
    return r.returncode == 0


def _fmt(r, key, scale=1e3, unit="ms"):
    if "timeout" in r:
        return f">{r['timeout']:.0f} s (timeout)"
    if "error" in r:
        return f"error: {r['error']}"
    return f"{r[key] * scale:.2f} {unit}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--ns", default="10,100,1000,10000")
    ap.add_argument("--jax-timeout", type=float, default=120)
    ap.add_argument("--worker", nargs=4)
    a = ap.parse_args()
    if a.worker:
        impl, what, steps, n = a.worker
        print(json.dumps(_worker(impl, what, int(steps), int(n))))
        return
    impls = ["astjax"] + (["jax"] if _have_jax() else [])
    print(f"{'row':44s}" + "".join(f"{i:>22s}" for i in impls) + "      ratio")
    res = {i: _run(i, "mlp", a.steps, 0, 600 if i == "astjax" else a.jax_timeout) for i in impls}

    def row(name, rs, key, scale=1e3, unit="ms"):
        line = f"{name:44s}" + "".join(f"{_fmt(rs[i], key, scale, unit):>22s}" for i in impls)
        if "jax" in rs and all(key in rs[i] for i in impls):
            line += f"   {rs['astjax'][key] / rs['jax'][key]:8.3f}x"
        print(line, flush=True)

    row("MLP SGD step: first call", res, "first")
    row("MLP SGD step: steady step (median)", res, "step")
    row("MLP SGD step: steady step (min)", res, "step_min")
    for n in [int(s) for s in a.ns.split(",")]:
        rs = {i: _run(i, "loop", 0, n, 600 if i == "astjax" else a.jax_timeout) for i in impls}
        row(f"jit(grad(loop_{n})): first call", rs, "first")


if __name__ == "__main__":
    main()
