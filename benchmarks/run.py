"""The benchmark driver: every workload of `workloads.py`, astjax beside JAX.

    python benchmarks/run.py [--quick] [--rounds 3] [--only NAME,...] [--no-curves]
                             [--jax-python PATH] [--astjax-python PATH] [--out benchmarks]

Needs `jax==0.10.2` importable by `--jax-python` (default: this interpreter;
`pip install -e '.[bench]'` installs it and matplotlib). astjax and JAX never share a
process: each round starts one worker per implementation (`--worker`), the order
alternating between rounds so machine drift hits both alike, and each worker runs
every selected workload. Per workload and implementation the driver keeps the
minimum and the median over all samples of all rounds; the ratio is astjax / JAX
(lower is better). It writes `results.json`, the table between the markers in
`README.md`, and `ratios.png` / `scaling.png` (matplotlib) into `--out`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


# ------------------------------------------------------------------ worker side

def _import(impl):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if impl == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax
    else:
        import astjax as jax
        import astjax.numpy as jnp
        from astjax import lax
    import numpy as np
    jax.block_until_ready(jax.jit(lambda a: a - 1)(np.zeros(2, np.float32)))
    return jax, jnp, lax


def worker(impl, jobs):
    """Run `jobs` ([name, param] pairs) and print one JSON object of samples."""
    import workloads
    funcs = {w.name: w.run for w in workloads.TABLE}
    funcs.update({k: v[0] for k, v in workloads.CURVES.items()})
    jax, jnp, lax = _import(impl)
    out = {}
    for name, param in jobs:
        key = f"{name}:{param}"
        try:
            out[key] = funcs[name](jax, jnp, lax, param)
        except Exception as e:  # a failing workload is reported, not fatal
            out[key] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    print("RESULT " + json.dumps(out))


# ------------------------------------------------------------------ driver side

def _jobs(args):
    import workloads
    only = set(args.only.split(",")) if args.only else None
    jobs = [(w.name, w.param) for w in workloads.TABLE
            if (w.quick or not args.quick) and (only is None or w.name in only)]
    if not args.no_curves:
        for name, (_, _, _, full, quick) in workloads.CURVES.items():
            if only is None or name in only:
                jobs += [(name, p) for p in (quick if args.quick else full)]
    return jobs


def _run_worker(python, impl, jobs, timeout):
    cmd = [python, str(HERE / "run.py"), "--worker", impl, "--jobs", json.dumps(jobs)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=HERE)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            print(f"  {impl}: {time.perf_counter() - t0:.0f} s", flush=True)
            return json.loads(line[7:])
    raise RuntimeError(f"{impl} worker failed (rc {p.returncode}):\n{p.stderr[-3000:]}")


def measure(args):
    jobs = _jobs(args)
    samples = {impl: {} for impl in ("astjax", "jax")}
    # (workers start in this directory: a relative interpreter path is the caller's)
    pythons = {"astjax": os.path.abspath(args.astjax_python),
               "jax": os.path.abspath(args.jax_python)}
    for r in range(args.rounds):
        order = ("astjax", "jax") if r % 2 == 0 else ("jax", "astjax")
        print(f"round {r + 1}/{args.rounds}", flush=True)
        for impl in order:
            res = _run_worker(pythons[impl], impl, jobs, args.timeout)
            for key, val in res.items():
                prev = samples[impl].setdefault(key, [])
                if isinstance(val, str):
                    samples[impl][key] = val
                elif isinstance(prev, list):
                    prev.extend(val)
    return jobs, samples


def summarize(jobs, samples):
    rows = {}
    for name, param in jobs:
        key = f"{name}:{param}"
        row = {}
        for impl in ("astjax", "jax"):
            s = samples[impl].get(key)
            if isinstance(s, list) and s:
                row[impl] = {"min": min(s), "median": statistics.median(s), "n": len(s)}
            else:
                row[impl] = {"error": s or "no samples"}
        a, j = row["astjax"], row["jax"]
        if "min" in a and "min" in j and j["min"] > 0 and j["median"] > 0:
            row["ratio_min"] = a["min"] / j["min"]
            row["ratio_median"] = a["median"] / j["median"]
        rows[key] = row
    return rows


def _fmt(v, unit):
    if unit == "MB":
        return f"{v:+.1f} MB"
    for scale, suffix in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if v >= scale:
            return f"{v / scale:.3g} {suffix}"
    return f"{v * 1e9:.3g} ns"


def table(rows):
    import workloads
    lines = ["| workload | astjax (min / median) | JAX (min / median) | ratio (median) | goal |",
             "|---|---|---|---|---|"]
    for w in workloads.TABLE:
        row = rows.get(f"{w.name}:{w.param}")
        if row is None:
            continue
        cells = []
        for impl in ("astjax", "jax"):
            r = row[impl]
            cells.append(f"error: {r['error']}" if "error" in r else
                         f"{_fmt(r['min'], w.unit)} / {_fmt(r['median'], w.unit)}")
        if w.unit == "MB":
            ratio = "—"
        else:
            ratio = f"**{row['ratio_median']:.2f}x**" if "ratio_median" in row else "—"
        goal = f"≤ {w.goal}x" if w.goal else "flat (< 1 MB)"
        lines.append(f"| {w.what} | {cells[0]} | {cells[1]} | {ratio} | {goal} |")
    return "\n".join(lines)


def curves_table(rows):
    import workloads
    lines = []
    for name, (_, unit, what, _, _) in workloads.CURVES.items():
        pts = sorted((int(k.split(":")[1]), r) for k, r in rows.items()
                     if k.split(":")[0] == name)
        if not pts:
            continue
        lines += ["", f"{what} (median; astjax / JAX):", "",
                  "| param | astjax | JAX | ratio |", "|---|---|---|---|"]
        for p, r in pts:
            a = _fmt(r["astjax"]["median"], unit) if "median" in r["astjax"] else "error"
            j = _fmt(r["jax"]["median"], unit) if "median" in r["jax"] else "error"
            ratio = f"{r['ratio_median']:.2f}x" if "ratio_median" in r else "—"
            lines.append(f"| {p} | {a} | {j} | {ratio} |")
    return "\n".join(lines)


def plots(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plots")
        return
    import workloads
    names, ratios, goals = [], [], []
    for w in workloads.TABLE:
        r = rows.get(f"{w.name}:{w.param}")
        if r and "ratio_median" in r and w.unit != "MB":
            names.append(w.name)
            ratios.append(r["ratio_median"])
            goals.append(w.goal or 1.0)
    if names:
        fig, ax = plt.subplots(figsize=(8, 0.4 * len(names) + 1.2))
        colors = ["tab:green" if r <= g else "tab:red" for r, g in zip(ratios, goals)]
        ax.barh(names, ratios, color=colors)
        ax.axvline(1.0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("astjax / JAX (median; lower is better)")
        ax.invert_yaxis()
        fig.tight_layout()
        fig.savefig(out / "ratios.png", dpi=110)
        plt.close(fig)
    curves = [(n, c) for n, c in workloads.CURVES.items()
              if any(k.startswith(n + ":") for k in rows)]
    if curves:
        fig, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 3.4))
        axes = [axes] if len(curves) == 1 else axes
        for ax, (name, (_, unit, what, _, _)) in zip(axes, curves):
            pts = sorted((int(k.split(":")[1]), r) for k, r in rows.items()
                         if k.split(":")[0] == name)
            for impl in ("astjax", "jax"):
                xs = [p for p, r in pts if "median" in r[impl]]
                ys = [r[impl]["median"] for p, r in pts if "median" in r[impl]]
                ax.loglog(xs, ys, "o-", label=impl)
            ax.set_title(what, fontsize=9)
            ax.set_ylabel(unit)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "scaling.png", dpi=110)
        plt.close(fig)


def write_readme(rows, args, out):
    readme = out / "README.md"
    text = readme.read_text() if readme.exists() else f"# Benchmarks\n\n{BEGIN}\n{END}\n"
    body = "\n".join([
        BEGIN,
        f"Last run: {time.strftime('%Y-%m-%d')}, `python benchmarks/run.py"
        f"{' --quick' if args.quick else ''} --rounds {args.rounds}`, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        table(rows),
        curves_table(rows),
        "",
        "![ratios](ratios.png) ![scaling](scaling.png)",
        END,
    ])
    if BEGIN in text:
        pre, rest = text.split(BEGIN, 1)
        text = pre + body + rest.split(END, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + body + "\n"
    readme.write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a two-minute subset")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--only", default="", help="comma-separated workload/curve names")
    ap.add_argument("--no-curves", action="store_true")
    ap.add_argument("--jax-python", default=sys.executable)
    ap.add_argument("--astjax-python", default=sys.executable)
    ap.add_argument("--out", default=str(HERE))
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--worker", choices=("astjax", "jax"), help=argparse.SUPPRESS)
    ap.add_argument("--jobs", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, json.loads(args.jobs))
        return
    args.rounds = args.rounds or (1 if args.quick else 3)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs, samples = measure(args)
    rows = summarize(jobs, samples)
    (out / "results.json").write_text(json.dumps({"rows": rows, "samples": samples}, indent=1))
    print(table(rows))
    print(curves_table(rows))
    plots(rows, out)
    write_readme(rows, args, out)


if __name__ == "__main__":
    main()
