"""Run public JAX programs (written by others) under real JAX and under astjax; compare stdout.

    python tests/wild/run.py [--src /tmp/wild18/src] [--out /tmp/wild18/out] [NAME ...]

The programs' text is not in this repository (see README.md): `programs.json` names each
one (source repository and path, the environment it needs) and the directory `--src`
holds the fetched files. Each runs twice from that directory, `nice -n 10`, capped at
300 s: `ENV/bin/python PROG` (real JAX 0.10.2) and `ENV/bin/python -m astjax run PROG`
(`import jax` is astjax), ENV being `.ecoenv` (optax, flax, equinox, haiku and real
jax; astjax editable) unless `--env` says otherwise.

Two stdouts agree when, line by line, the text around the numbers is identical (but for
whitespace; a line without numbers must match exactly) and every
number matches to `--rtol` (1e-5, float32 programs) or `--atol` (1e-6). A line matching
one of the program's `ignore` regexes is skipped, and the text matching one of its
`mask` regexes (timings, object addresses) is blanked. Prints one
row per program (agree / DIFFER / FAIL, the largest relative difference, both wall
times) and writes both outputs and `results.json` to `--out`. Not part of the CI
suite: it needs the fetched programs and the oracle environment."""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?%?|[-+]?\b(?:nan|inf)\b")


def _run(cmd: list[str], cwd: Path, timeout: float) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", JAX_PLATFORMS="cpu")
    t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run(["nice", "-n", "10", *cmd], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or ""), f"timed out after {timeout} s"
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
    return {"rc": rc, "stdout": out, "stderr": err, "seconds": time.perf_counter() - t0,
            "cpu": cpu}


def _skeleton(line: str) -> str:
    """The text around a line's numbers, without whitespace (NumPy pads a printed array's
    columns to its longest number, so one more digit moves the others)."""
    return "".join(NUMBER.sub("#", line).split())


def _number(tok: str) -> float:
    return float(tok.rstrip("%"))


def compare(want: str, got: str, rtol: float, atol: float, ignore: list[str],
            mask: list[str] = ()) -> tuple:
    """(problems, largest relative difference) between two stdouts."""
    pats, masks = [re.compile(p) for p in ignore], [re.compile(p) for p in mask]

    def keep(text):
        lines = [ln for ln in text.splitlines() if not any(p.search(ln) for p in pats)]
        for m in masks:
            lines = [m.sub("<masked>", ln) for ln in lines]
        return lines

    w_lines, g_lines = keep(want), keep(got)
    problems, worst = [], 0.0
    if len(w_lines) != len(g_lines):
        problems.append(f"{len(g_lines)} lines, JAX printed {len(w_lines)}")
    for i, (w, g) in enumerate(zip(w_lines, g_lines)):
        if not NUMBER.search(w) and not NUMBER.search(g):
            # no number to pad a column: the spacing is the text (a printed Rule 30 board)
            if w.rstrip() != g.rstrip():
                problems.append(f"line {i + 1}: {g[:120]!r} != JAX {w[:120]!r}")
            continue
        if _skeleton(w) != _skeleton(g):
            problems.append(f"line {i + 1}: {g[:120]!r} != JAX {w[:120]!r}")
            continue
        for a, b in zip(NUMBER.findall(w), NUMBER.findall(g)):
            x, y = _number(a), _number(b)
            if x == y or (x != x and y != y):
                continue
            rel = abs(x - y) / max(abs(x), 1e-30)
            worst = max(worst, rel)
            if abs(x - y) > atol + rtol * abs(x):
                problems.append(f"line {i + 1}: {b} != JAX {a} (rel {rel:.2e})")
    return problems, worst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="programs to run (default: all in programs.json)")
    ap.add_argument("--src", default="/tmp/wild18/src", type=Path)
    ap.add_argument("--out", default="/tmp/wild18/out", type=Path)
    ap.add_argument("--env", default=str(REPO / ".ecoenv"), help="venv with jax + astjax")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--skip-jax", action="store_true", help="reuse the stored JAX outputs")
    ap.add_argument("--report", action="store_true",
                    help="run nothing: compare the outputs stored in --out again")
    a = ap.parse_args(argv)
    progs = json.loads((HERE / "programs.json").read_text())
    names = a.names or list(progs)
    py = str(Path(a.env) / "bin" / "python")
    a.out.mkdir(parents=True, exist_ok=True)
    results_file = a.out / "results.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}
    for name in names:
        spec = progs[name]
        prog = spec.get("file", f"{name}.py")
        cache, stored = a.out / f"{name}.jax.json", a.out / f"{name}.astjax.json"
        if a.report and not (cache.exists() and stored.exists()):
            continue
        if (a.skip_jax or a.report) and cache.exists():
            ref = json.loads(cache.read_text())
        else:
            ref = _run([py, prog], a.src, a.timeout)
            cache.write_text(json.dumps(ref))
        if a.report:
            got = json.loads(stored.read_text())
        else:
            got = _run([py, "-m", "astjax", "run", prog], a.src, a.timeout)
            stored.write_text(json.dumps(got))
        if ref["rc"] != 0:
            status, problems, worst = "JAXFAIL", [ref["stderr"][-300:]], 0.0
        elif got["rc"] != 0:
            status, problems, worst = "FAIL", [got["stderr"][-600:]], 0.0
        else:
            problems, worst = compare(ref["stdout"], got["stdout"],
                                      spec.get("rtol", a.rtol), a.atol, spec.get("ignore", []),
                                      spec.get("mask", []))
            status = "DIFFER" if problems else "agree"
        results[name] = {"status": status, "max_rel": worst, "jax_s": ref["seconds"],
                         "astjax_s": got["seconds"], "jax_cpu": ref.get("cpu", 0.0),
                         "astjax_cpu": got.get("cpu", 0.0), "problems": problems[:5]}
        print(f"{status:7} {name:22} max_rel {worst:.1e}  wall jax {ref['seconds']:6.1f}s "
              f"astjax {got['seconds']:6.1f}s  cpu jax {ref.get('cpu', 0.0):6.1f}s "
              f"astjax {got.get('cpu', 0.0):6.1f}s" + "".join(f"\n    {p}" for p in problems[:5]),
              flush=True)
        if not a.report:
            results_file.write_text(json.dumps(results, indent=1))
    names = [n for n in names if n in results]
    bad = [n for n in names if results[n]["status"] != "agree"]
    print(f"{len(names) - len(bad)}/{len(names)} agree" + (f"; not: {' '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
