"""The seeds' MLP SGD step ([784, 512, 512, 10], batch 128), astjax and JAX timed
*interleaved in one process*: call A, call B, call A, ... so both see the same
machine noise (separate processes on a shared 2-core machine drift by +-30%).
Each library keeps its own PJRT client; astjax's column without Python dispatch
(the executable alone) is shown too. Skips JAX's column if jax is not installed.

    python benchmarks/mlp_step_ab.py [--rounds 5] [--steps 50]
"""
import argparse
import time

import numpy as np

from common import MLP_SRC, run_source

def load(lib):
    import importlib
    jax = importlib.import_module(lib)
    return run_source(MLP_SRC, f"mlp_step_ab_{lib}", {"jax": jax, "jnp": jax.numpy})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=50)
    a = ap.parse_args()
    import astjax
    try:
        import jax
    except ImportError:
        jax = None
    rng = np.random.RandomState(0)
    sizes = [784, 512, 512, 10]
    P = [((rng.randn(m, k) / np.sqrt(m)).astype(np.float32), np.zeros(k, np.float32))
         for m, k in zip(sizes[:-1], sizes[1:])]
    x = rng.randn(128, 784).astype(np.float32)
    y = rng.randn(128, 10).astype(np.float32)
    ua = astjax.jit(load("astjax")["update"])
    pa, xa, ya = astjax.device_put(P), astjax.device_put(x), astjax.device_put(y)
    astjax.block_until_ready(ua(pa, xa, ya))
    entry, leaves = ua._entry((pa, xa, ya), {})
    bufs = [c._buf for c in entry.consts] + [leaf._buf for leaf in leaves]
    if jax is not None:
        uj = jax.jit(load("jax")["update"])
        pj, xj, yj = jax.device_put(P), jax.device_put(x), jax.device_put(y)
        jax.block_until_ready(uj(pj, xj, yj))
    print(f"{'round':>5} | {'astjax':>9} | {'executable':>10} | {'jax':>9} | {'astjax/jax':>10}")
    ratios = []
    for r in range(a.rounds):
        ta, te, tj = [], [], []
        for _ in range(a.steps):
            t = time.perf_counter()
            astjax.block_until_ready(ua(pa, xa, ya))
            ta.append(time.perf_counter() - t)
            t = time.perf_counter()
            for o in entry.executable.call_buffers(bufs):
                o.block_until_ready()
            te.append(time.perf_counter() - t)
            if jax is not None:
                t = time.perf_counter()
                jax.block_until_ready(uj(pj, xj, yj))
                tj.append(time.perf_counter() - t)
        ma, me = np.median(ta) * 1e3, np.median(te) * 1e3
        if tj:
            mj = np.median(tj) * 1e3
            ratios.append(ma / mj)
            print(f"{r:>5} | {ma:7.3f}ms | {me:8.3f}ms | {mj:7.3f}ms | {ma / mj:9.2f}x")
        else:
            print(f"{r:>5} | {ma:7.3f}ms | {me:8.3f}ms | {'-':>9} | {'-':>10}")
    if ratios:
        print(f"median ratio astjax/jax over rounds: {np.median(ratios):.2f}x "
              f"(range {min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
