"""Partitioned programs beside JAX on 4 CPU devices: a data-parallel MLP training
step under sharded `jit`, a `shard_map` with collectives (psum, all_gather,
ppermute), and the compile time of the sharded MNIST-sized step.

    python benchmarks/sharded.py [--rounds 3] [--steps 200] [--jax-python PATH]

Each round runs one astjax worker process and one JAX worker process (alternating,
JAX from `--jax-python`, default: this interpreter), each timing `--steps` calls
after a warm-up; the table reports the median over rounds of each worker's median
step time and the ratio astjax / JAX (lower is better).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SIZES = [784, 512, 512, 10]
BATCH = 256


def _worker(impl: str, steps: int) -> dict:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    if impl == "jax":
        import jax
    else:
        import astjax as jax
    jnp = jax.numpy
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("batch",))
    rep, dat = NamedSharding(mesh, P()), NamedSharding(mesh, P("batch"))
    rng = np.random.RandomState(0)
    params = [(rng.randn(m, n).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
              for m, n in zip(SIZES[:-1], SIZES[1:])]
    x = rng.randn(BATCH, SIZES[0]).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.randint(0, 10, BATCH)]

    def loss(ps, x, y):
        for w, b in ps[:-1]:
            x = jnp.tanh(x @ w + b)
        w, b = ps[-1]
        logits = x @ w + b
        logp = logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)
        return -jnp.mean(jnp.sum(logp * y, axis=1))

    @jax.jit
    def step(ps, x, y):
        g = jax.grad(loss)(ps, x, y)
        return [(w - 0.01 * dw, b - 0.01 * db) for (w, b), (dw, db) in zip(ps, g)]

    out = {}
    ps = jax.device_put(params, rep)
    xs, ys = jax.device_put(x, dat), jax.device_put(y, dat)
    t = time.perf_counter()
    ps = step(ps, xs, ys)
    jax.block_until_ready(ps)
    out["compile_step_s"] = time.perf_counter() - t

    def timed(fn):
        ts = []
        for _ in range(steps):
            t = time.perf_counter()
            jax.block_until_ready(fn())
            ts.append(time.perf_counter() - t)
        return statistics.median(ts) * 1e6

    state = [ps]

    def one_step():
        state[0] = step(state[0], xs, ys)
        return state[0]
    out["dp_step_us"] = timed(one_step)

    def body(v):
        s = jax.lax.psum(v, "batch")
        g = jax.lax.all_gather(v, "batch", tiled=True)
        r = jax.lax.ppermute(v, "batch", [(i, (i + 1) % 4) for i in range(4)])
        return s + r + g[:v.shape[0]]
    sm = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("batch"), out_specs=P("batch"),
                               check_vma=False))
    v = jax.device_put(rng.randn(4096, 64).astype(np.float32), dat)
    sm(v).block_until_ready()
    out["shard_map_collectives_us"] = timed(lambda: sm(v))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--jax-python", default=sys.executable)
    ap.add_argument("--worker", choices=["astjax", "jax"])
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(_worker(args.worker, args.steps)))
        return
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="4",
               XLA_FLAGS="--xla_force_host_platform_device_count=4")
    results = {"astjax": [], "jax": []}
    for _ in range(args.rounds):
        for impl, py in (("astjax", sys.executable), ("jax", args.jax_python)):
            r = subprocess.run([py, __file__, "--worker", impl, "--steps", str(args.steps)],
                               capture_output=True, text=True, env=env, timeout=900)
            if r.returncode:
                sys.exit(f"{impl} worker failed:\n{r.stderr}")
            results[impl].append(json.loads(r.stdout.strip().splitlines()[-1]))
    print(f"{'workload':28s} {'astjax':>10s} {'JAX':>10s} {'ratio':>7s}")
    for k in results["astjax"][0]:
        a = statistics.median(r[k] for r in results["astjax"])
        j = statistics.median(r[k] for r in results["jax"])
        unit = "s" if k.endswith("_s") else "us"
        print(f"{k:28s} {a:8.3g}{unit:>2s} {j:8.3g}{unit:>2s} {a / j:6.2f}x")


if __name__ == "__main__":
    main()
