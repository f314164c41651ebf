"""First-call latency and steady-state time of a Python loop under jit:
astjax (the loop becomes one scan) beside JAX (jit of the same Python loop, which
unrolls it, and `lax.fori_loop`), JAX in its own process.

    python benchmarks/loops.py [--ns 10,100,1000,10000] [--repeat 200]

Prints ratios; absolute times on shared machines are noisy.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

LOOP_SRC = '''
def loop_{n}(x):
    for i in range({n}):
        x = jnp.sin(x) * 0.5 + x * 0.1
    return x
'''


def measure(lib: str, ns, repeat, jax_unrolled_max):
    """Runs in a fresh process: returns {n: {variant: (first_s, steady_s)}}."""
    import numpy as np
    if lib == "astjax":
        import astjax as jx
        import astjax.numpy as jnp
        from astjax import lax
    else:
        import jax as jx
        import jax.numpy as jnp
        from jax import lax
    import tempfile
    import importlib.util
    src = "import jax.numpy as jnp\n" if lib == "jax" else "import astjax.numpy as jnp\n"
    for n in ns:
        src += LOOP_SRC.format(n=n)
    # the loops must live in a file: astjax stages from source
    d = tempfile.mkdtemp()
    path = os.path.join(d, f"loops_{lib}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"loops_{lib}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = np.ones((16,), np.float32)
    out = {}
    for n in ns:
        res = {}
        variants = {"python loop": getattr(mod, f"loop_{n}")}
        variants["fori_loop"] = (lambda n: lambda x: lax.fori_loop(
            0, n, lambda i, x: jnp.sin(x) * 0.5 + x * 0.1, x))(n)
        for name, fn in variants.items():
            if lib == "jax" and name == "python loop" and n > jax_unrolled_max:
                res[name] = None
                continue
            f = jx.jit(fn)
            t0 = time.perf_counter()
            f(x).block_until_ready()
            first = time.perf_counter() - t0
            xd = f(x)
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                f(xd).block_until_ready()
                times.append(time.perf_counter() - t0)
            times.sort()
            res[name] = (first, times[len(times) // 2])
        out[n] = res
    return out


def run_in_subprocess(lib, ns, repeat, jax_unrolled_max):
    code = (f"import sys, json; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r});"
            f"import loops; print(json.dumps(loops.measure({lib!r}, {list(ns)!r}, {repeat}, "
            f"{jax_unrolled_max})))")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", JAX_PLATFORMS="cpu")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    return {int(k): v for k, v in json.loads(r.stdout.strip().splitlines()[-1]).items()}


def have_jax():
    r = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True)
    return r.returncode == 0


def fmt(t):
    return "-" if t is None else (f"{t * 1e3:8.1f} ms" if t >= 1e-3 else f"{t * 1e6:8.1f} us")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ns", default="10,100,1000,10000")
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--jax-unrolled-max", type=int, default=1000,
                    help="largest n for JAX's unrolled jit (10000 takes minutes)")
    a = ap.parse_args()
    ns = [int(s) for s in a.ns.split(",")]
    ours = run_in_subprocess("astjax", ns, a.repeat, a.jax_unrolled_max)
    theirs = run_in_subprocess("jax", ns, a.repeat, a.jax_unrolled_max) if have_jax() else None
    print("first call (stage + compile + run), x: f32[16]")
    print(f"{'n':>6} | {'astjax loop':>11} | {'jax unrolled':>12} | {'jax fori':>11} | "
          f"{'jax unrolled / astjax':>21} | {'astjax n / astjax 10':>20}")
    base = ours[ns[0]]["python loop"][0]
    for n in ns:
        a_first = ours[n]["python loop"][0]
        ju = theirs[n]["python loop"] if theirs else None
        jf = theirs[n]["fori_loop"] if theirs else None
        ratio = f"{ju[0] / a_first:20.1f}x" if ju else "-"
        print(f"{n:>6} | {fmt(a_first):>11} | {fmt(ju[0] if ju else None):>12} | "
              f"{fmt(jf[0] if jf else None):>11} | {ratio:>21} | {a_first / base:19.2f}x")
    print("\nsteady state per call (median)")
    print(f"{'n':>6} | {'astjax loop':>11} | {'astjax fori':>11} | {'jax unrolled':>12} | "
          f"{'jax fori':>11} | {'astjax / jax fori':>17}")
    for n in ns:
        a_s = ours[n]["python loop"][1]
        af = ours[n]["fori_loop"][1]
        ju = theirs[n]["python loop"] if theirs else None
        jf = theirs[n]["fori_loop"] if theirs else None
        print(f"{n:>6} | {fmt(a_s):>11} | {fmt(af):>11} | {fmt(ju[1] if ju else None):>12} | "
              f"{fmt(jf[1] if jf else None):>11} | "
              f"{(f'{a_s / jf[1]:16.2f}x' if jf else '-'):>17}")


if __name__ == "__main__":
    main()
