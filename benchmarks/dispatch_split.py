"""Where a small jitted step's time goes: the jitted call against its compiled
executable run alone (jaxlib's `execute_sharded` on the same device buffers, results
as jaxlib arrays), astjax and JAX each in its own process (astjax's C++ dispatch is
off while real JAX is imported), processes alternating.

    python benchmarks/dispatch_split.py [--rounds 4] [--astjax-python P] [--jax-python P]

Per row and implementation it prints the minimum over rounds of the per-call
main-thread CPU (`thread_time`: the Python dispatch plus the launch), the process CPU
(XLA's worker threads too) and the wall time; `call - exe` is the dispatch layer.
Wall time on a loaded machine is mostly waiting: compare the CPU columns.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
ROWS = ("per_example_grads", "mlp_step")


def _problem(jax, jnp, row):
    """(jitted step, its arguments) of a row, written once against JAX's API."""
    from common import MLP_SRC, run_source
    ns = run_source(MLP_SRC, f"split_{row}", {"jax": jax, "jnp": jnp})
    rng = np.random.RandomState(0)
    sizes, batch, scale = (([8, 16, 16, 4], 32, 1.0) if row == "per_example_grads"
                           else ([784, 512, 512, 10], 128, 0.01))
    params = [(jnp.asarray(rng.randn(m, n).astype(np.float32) * scale),
               jnp.asarray(rng.randn(n).astype(np.float32)))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = jnp.asarray(rng.randn(batch, sizes[0]).astype(np.float32))
    y = jnp.asarray(rng.randn(batch, sizes[-1]).astype(np.float32))
    loss = ns["loss"]
    if row == "per_example_grads":
        f = jax.jit(jax.vmap(lambda p, a, b: jax.grad(loss)(p, (a[None], b[None])),
                             in_axes=(None, 0, 0)))
    else:
        f = jax.jit(ns["update"])
    return f, (params, x, y)


def _executable(impl, f, args):
    """`run()`: the compiled executable of the jitted `f` on `args`' device buffers,
    its results made by jaxlib's result handlers (as both libraries' fast paths do)."""
    from jaxlib import xla_client as xc
    if impl == "jax":
        import jax
        exe = f.lower(*args).compile()._executable.xla_executable
        bufs = jax.tree_util.tree_leaves(args)
    else:
        entry, leaves = f._entry(args, {})
        entry.compile()
        exe, bufs = entry.exe, [c._buf for c in entry.consts] + [a._buf for a in leaves]
    first = [o[0] for o in exe.execute_sharded(bufs).disassemble_into_single_device_arrays()]
    handlers = [xc.array_result_handler(o.aval, o.sharding, committed=True, _skip_checks=True)
                for o in first]

    def run():
        return exe.execute_sharded(bufs).consume_with_handlers(handlers)
    return run


def _block(outs):
    for o in outs:   # (jaxlib arrays: astjax's block_until_ready takes its own)
        o.block_until_ready()


def _time(fn, block, calls):
    """[thread, process, wall] microseconds per call of `fn` over `calls` calls."""
    block(fn())
    c, p, w = time.thread_time_ns(), time.process_time_ns(), time.perf_counter_ns()
    for _ in range(calls - 1):
        fn()
    block(fn())
    return [(time.thread_time_ns() - c) / calls / 1e3,
            (time.process_time_ns() - p) / calls / 1e3,
            (time.perf_counter_ns() - w) / calls / 1e3]


def worker(impl):
    """Measure every row once in this process; print one JSON line."""
    if impl == "jax":
        import jax
    else:
        import astjax as jax
    out = {}
    for row in ROWS:
        f, args = _problem(jax, jax.numpy, row)
        run = _executable(impl, f, args)
        calls = 300 if row == "per_example_grads" else 20
        out[row] = {"call": _time(lambda: f(*args), jax.block_until_ready, calls),
                    "exe": _time(run, _block, calls)}
    print("RESULT " + json.dumps(out))


def main():
    """Alternate astjax and JAX worker processes; print the per-part minima."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--astjax-python", default=sys.executable)
    ap.add_argument("--jax-python", default=sys.executable)
    ap.add_argument("--worker")
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker)
    pythons = {"astjax": os.path.abspath(a.astjax_python), "jax": os.path.abspath(a.jax_python)}
    best: dict = {}
    for r in range(a.rounds):
        for impl in (("astjax", "jax") if r % 2 == 0 else ("jax", "astjax")):
            p = subprocess.run([pythons[impl], __file__, "--worker", impl], cwd=HERE,
                               capture_output=True, text=True, check=False)
            line = [s for s in p.stdout.splitlines() if s.startswith("RESULT ")]
            if not line:
                raise RuntimeError(f"{impl} worker failed:\n{p.stderr[-2000:]}")
            for row, parts in json.loads(line[0][7:]).items():
                for part, vals in parts.items():
                    key = (row, impl, part)
                    best[key] = [min(x, y) for x, y in zip(best.get(key, vals), vals)]
    print(f"{'row':18} {'impl':6} {'part':5} | {'thread us':>9} {'process us':>10} {'wall us':>9}")
    for (row, impl, part), (th, pr, wa) in sorted(best.items()):
        print(f"{row:18} {impl:6} {part:5} | {th:9.2f} {pr:10.2f} {wa:9.2f}")
    for row in ROWS:
        d = {impl: best[(row, impl, "call")][0] - best[(row, impl, "exe")][0]
             for impl in ("astjax", "jax")}
        print(f"{row}: dispatch (call - exe, thread CPU) astjax {d['astjax']:.2f} us, "
              f"JAX {d['jax']:.2f} us")


if __name__ == "__main__":
    main()
