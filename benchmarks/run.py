"""The benchmark driver: every workload of `workloads.py`, astjax beside JAX.

    python benchmarks/run.py [--quick] [--rounds 3] [--only NAME,...] [--no-curves]
                             [--pair-rounds 7] [--pairs 15]
                             [--jax-python PATH] [--astjax-python PATH] [--out benchmarks]

Needs `jax==0.10.2` importable by `--jax-python` (default: this interpreter;
`pip install -e '.[bench]'` installs it and matplotlib). astjax and JAX never share a
process. Per-call rows (seconds per call) are measured interleaved: in each of
`--pair-rounds` rounds one worker per implementation is started and both stay alive;
per row both set it up, then the driver asks them for `--pairs` pairs of samples (one
timed loop each, ~5-20 ms), the order alternating pair by pair, so both samples of a
pair see the same machine state. Every other row (first calls, compiles, memory) is
measured in `--rounds` rounds of one worker per implementation (`--worker`), the
order alternating between rounds so machine drift hits both alike. Per row and
implementation the driver keeps the minimum and the median over all samples; the
ratio is astjax / JAX of the medians (lower is better), and for interleaved rows also
the median of the per-pair ratios, which machine noise hitting one process's samples
moves far less. It writes `results.json`, the table between the markers in
`README.md`, and `ratios.png` / `scaling.png` (matplotlib) into `--out`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
IMPLS = ("astjax", "jax")


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
            out[key] = _error_text(e)
    print("RESULT " + json.dumps(out))


def _reply(value):
    print("RESULT " + json.dumps(value), flush=True)


def _error_text(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def serve(impl):
    """A serving worker: reads one JSON command a line from stdin -- `["setup", key]`
    (set up a per-call workload), `["sample", key]` (one timed loop: seconds per
    call), `["drop", key]` -- and answers each with one RESULT line."""
    import gc

    import workloads
    workloads.SERVE[0] = True
    funcs = {w.name: w.run for w in workloads.TABLE}
    funcs.update({k: v[0] for k, v in workloads.CURVES.items()})
    jax, jnp, lax = _import(impl)
    samplers = {}
    _reply("ready")
    for line in sys.stdin:
        op, key = json.loads(line)
        if op == "sample":
            _reply(samplers[key].sample())
        elif op == "setup":
            name, param = key.split(":")
            try:
                samplers[key] = funcs[name](jax, jnp, lax, int(param))
                _reply(True)
            except Exception as e:  # a failing workload is reported, not fatal
                _reply(_error_text(e))
        else:
            samplers.pop(key, None)
            gc.collect()
            _reply(True)


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


def _per_call(job):
    """Whether `job` ([name, param]) is a per-call row (measured interleaved)."""
    import workloads
    name, param = job
    units = {(w.name, w.param): w.unit for w in workloads.TABLE}
    unit = units.get((name, param)) or workloads.CURVES[name][1]
    return unit == "s/call"


class _Server:
    """A serving worker (`serve`) of one implementation, alive for one pair round."""

    def __init__(self, python, impl):
        self.impl = impl
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [python, str(HERE / "run.py"), "--worker", impl, "--serve"], cwd=HERE,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
        self.read()

    def read(self):
        for line in self.proc.stdout:
            if line.startswith("RESULT "):
                return json.loads(line[7:])
        self.err.seek(0)
        raise RuntimeError(f"{self.impl} worker died (rc {self.proc.wait()}):\n"
                           f"{self.err.read()[-3000:]}")

    def ask(self, op, key):
        self.proc.stdin.write(json.dumps([op, key]) + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.err.close()


def _record(samples, impl, key, val):
    prev = samples[impl].setdefault(key, [])
    if isinstance(val, str):
        samples[impl][key] = val
    elif isinstance(prev, list):
        prev.extend(val)


def measure_interleaved(args, jobs, pythons, samples, pair_ratios):
    """Per-call rows: `args.pair_rounds` rounds of both workers alive at once, each
    row `args.pairs` pairs of samples, the order alternating pair by pair."""
    for r in range(args.pair_rounds):
        print(f"interleaved round {r + 1}/{args.pair_rounds}", flush=True)
        t0 = time.perf_counter()
        servers = {}
        try:
            for impl in (IMPLS if r % 2 == 0 else IMPLS[::-1]):
                servers[impl] = _Server(pythons[impl], impl)
            for name, param in jobs:
                key = f"{name}:{param}"
                ready = {impl: servers[impl].ask("setup", key) for impl in IMPLS}
                if all(v is True for v in ready.values()):
                    for i in range(args.pairs):
                        got = {impl: servers[impl].ask("sample", key)
                               for impl in (IMPLS if (i + r) % 2 == 0 else IMPLS[::-1])}
                        for impl in IMPLS:
                            _record(samples, impl, key, [got[impl]])
                        pair_ratios.setdefault(key, []).append(got["astjax"] / got["jax"])
                for impl in IMPLS:
                    if ready[impl] is not True:
                        _record(samples, impl, key, ready[impl])
                    servers[impl].ask("drop", key)
        finally:
            for server in servers.values():
                server.close()
        print(f"  {time.perf_counter() - t0:.0f} s", flush=True)


def measure(args):
    jobs = _jobs(args)
    samples = {impl: {} for impl in IMPLS}
    pair_ratios = {}
    # (workers start in this directory: a relative interpreter path is the caller's)
    pythons = {"astjax": os.path.abspath(args.astjax_python),
               "jax": os.path.abspath(args.jax_python)}
    apart = [job for job in jobs if not _per_call(job)]
    for r in range(args.rounds if apart else 0):
        order = IMPLS if r % 2 == 0 else IMPLS[::-1]
        print(f"round {r + 1}/{args.rounds}", flush=True)
        for impl in order:
            res = _run_worker(pythons[impl], impl, apart, args.timeout)
            for key, val in res.items():
                _record(samples, impl, key, val)
    measure_interleaved(args, [job for job in jobs if _per_call(job)], pythons, samples,
                        pair_ratios)
    return jobs, samples, pair_ratios


def summarize(jobs, samples, pair_ratios):
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
        if pair_ratios.get(key):
            row["ratio_pairs"] = statistics.median(pair_ratios[key])
            row["pairs"] = len(pair_ratios[key])
        rows[key] = row
    return rows


def _fmt(v, unit):
    if unit == "MB":
        return f"{v:+.1f} MB"
    for scale, suffix in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if v >= scale:
            return f"{v / scale:.3g} {suffix}"
    return f"{v * 1e9:.3g} ns"


def _pairs(row):
    """The median of an interleaved row's per-pair ratios, and how many pairs."""
    if "ratio_pairs" not in row:
        return "—"
    return f"**{row['ratio_pairs']:.2f}x** ({row['pairs']} pairs)"


def table(rows):
    import workloads
    lines = ["| workload | astjax (min / median) | JAX (min / median) | ratio (median) "
             "| median of pair ratios | goal |", "|---|---|---|---|---|---|"]
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
        lines.append(f"| {w.what} | {cells[0]} | {cells[1]} | {ratio} | {_pairs(row)} "
                     f"| {goal} |")
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
                  "| param | astjax | JAX | ratio | median of pair ratios |",
                  "|---|---|---|---|---|"]
        for p, r in pts:
            a = _fmt(r["astjax"]["median"], unit) if "median" in r["astjax"] else "error"
            j = _fmt(r["jax"]["median"], unit) if "median" in r["jax"] else "error"
            ratio = f"{r['ratio_median']:.2f}x" if "ratio_median" in r else "—"
            lines.append(f"| {p} | {a} | {j} | {ratio} | {_pairs(r)} |")
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
            ratios.append(r.get("ratio_pairs", r["ratio_median"]))
            goals.append(w.goal or 1.0)
    if names:
        fig, ax = plt.subplots(figsize=(8, 0.4 * len(names) + 1.2))
        colors = ["tab:green" if r <= g else "tab:red" for r, g in zip(ratios, goals)]
        ax.barh(names, ratios, color=colors)
        ax.axvline(1.0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("astjax / JAX (median of pair ratios, else of medians; "
                      "lower is better)")
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
    ap.add_argument("--rounds", type=int, default=None,
                    help="rounds of the rows measured apart (default 3; --quick 1)")
    ap.add_argument("--pair-rounds", type=int, default=None,
                    help="rounds of interleaved workers for per-call rows (default 7; "
                         "--quick 2)")
    ap.add_argument("--pairs", type=int, default=None,
                    help="sample pairs per per-call row and round (default 15; --quick 8)")
    ap.add_argument("--only", default="", help="comma-separated workload/curve names")
    ap.add_argument("--no-curves", action="store_true")
    ap.add_argument("--jax-python", default=sys.executable)
    ap.add_argument("--astjax-python", default=sys.executable)
    ap.add_argument("--out", default=str(HERE))
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--worker", choices=IMPLS, help=argparse.SUPPRESS)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        serve(args.worker) if args.serve else worker(args.worker, json.loads(args.jobs))
        return
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.pair_rounds = args.pair_rounds or (2 if args.quick else 7)
    args.pairs = args.pairs or (8 if args.quick else 15)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs, samples, pair_ratios = measure(args)
    rows = summarize(jobs, samples, pair_ratios)
    (out / "results.json").write_text(json.dumps(
        {"rows": rows, "samples": samples, "pair_ratios": pair_ratios}, indent=1))
    print(table(rows))
    print(curves_table(rows))
    plots(rows, out)
    write_readme(rows, args, out)


if __name__ == "__main__":
    main()
