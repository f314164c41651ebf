"""Per-example gradients, astjax beside JAX (each run in its own fresh process,
alternating; JAX's column is left out when `jax` is not importable).

    python benchmarks/vmap.py [--procs 3] [--steps 20] [--quick]

Row: `jit(vmap(grad(loss), in_axes=(None, 0)))` for the seeds' MLP loss, sizes
[784, 512, 512, 10], batch 128 (the result holds 128 copies of every parameter
gradient, ~280 MB: the step is bound by memory traffic).
  - first call: stage + transform + compile + first run, inputs already on device,
    runtime initialised; one sample per process;
  - steady: median of `--steps` calls (inputs on device, block_until_ready).
Reported: median over `--procs` processes per implementation, and the ratio
astjax / JAX (lower is better). Targets: steady <= 1.1x, first call <= 1.0x.
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

def _worker(impl, steps, batch):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    if impl == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import astjax as jax
        import astjax.numpy as jnp
    jax.jit(lambda a: a - 1)(jax.device_put(np.zeros(2, np.float32))).block_until_ready()
    ns = {"jnp": jnp, "jax": jax}
    run_source(MLP_SRC, f"vmap_mlp_{impl}", ns)
    rng = np.random.RandomState(0)
    sizes = [784, 512, 512, 10]
    params = [(jax.device_put((rng.randn(m, k) / np.sqrt(m)).astype(np.float32)),
               jax.device_put(np.zeros(k, np.float32)))
              for m, k in zip(sizes[:-1], sizes[1:])]
    x = jax.device_put(rng.randn(batch, 784).astype(np.float32))
    y = jax.device_put(rng.randn(batch, 10).astype(np.float32))
    jax.block_until_ready((params, x, y))
    f = jax.jit(jax.vmap(jax.grad(ns["loss"]), in_axes=(None, 0)))
    t0 = time.perf_counter()
    g = f(params, (x, y))
    jax.block_until_ready(g)
    first = time.perf_counter() - t0
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        g = f(params, (x, y))
        jax.block_until_ready(g)
        times.append(time.perf_counter() - t0)
    checksum = float(sum(np.asarray(a, np.float64).sum() for pair in g for a in pair))
    return {"first": first, "steady": statistics.median(times), "min": min(times),
            "checksum": checksum}


def _run(impl, steps, batch, timeout=600):
    cmd = [sys.executable, HERE, "--worker", impl, str(steps), str(batch)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    if out.returncode != 0:
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _have_jax():
    return subprocess.run([sys.executable, "-c", "import jax"], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--quick", action="store_true", help="1 process x 5 steps each")
    ap.add_argument("--worker", nargs=3)
    a = ap.parse_args()
    if a.worker:
        impl, steps, batch = a.worker
        print(json.dumps(_worker(impl, int(steps), int(batch))))
        return
    if a.quick:
        a.procs, a.steps = 1, 5
    impls = ["astjax"] + (["jax"] if _have_jax() else [])
    results = {i: [] for i in impls}
    for _ in range(a.procs):  # alternate, so machine drift hits both alike
        for i in impls:
            results[i].append(_run(i, a.steps, a.batch))
    for i in impls:
        errs = [r["error"] for r in results[i] if "error" in r]
        if errs:
            print(f"{i}: error {errs[0]}")
            return 1
    agg = {i: {k: statistics.median(r[k] for r in results[i]) for k in ("first", "steady", "min")}
           for i in impls}
    if "jax" in impls:
        ca, cj = results["astjax"][0]["checksum"], results["jax"][0]["checksum"]
        assert abs(ca - cj) <= 1e-3 * max(1.0, abs(cj)), (ca, cj)
    print(f"per-example grads, MLP [784, 512, 512, 10], batch {a.batch} "
          f"({a.procs} processes x {a.steps} steps each)")
    print(f"{'row':28s}" + "".join(f"{i:>14s}" for i in impls) + "       ratio")
    for key, name in (("first", "first call"), ("steady", "steady (median)"),
                      ("min", "steady (min)")):
        line = f"{name:28s}" + "".join(f"{agg[i][key] * 1e3:11.1f} ms" for i in impls)
        if "jax" in impls:
            line += f"   {agg['astjax'][key] / agg['jax'][key]:8.3f}x"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
