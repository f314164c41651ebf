"""Run optax's own test suite (the `*_test.py` files its wheel ships) on astjax,
or another installed package's that ships its tests (chex, haiku, dm_pix: `--package`).

    pip install -e '.[ecosystem]' pytest absl-py scipy
    python tests/ecosystem/run_optax_tests.py              # every file, on astjax
    python tests/ecosystem/run_optax_tests.py --package chex
    python tests/ecosystem/run_optax_tests.py --jax        # the same files on real JAX
    python tests/ecosystem/run_optax_tests.py -k alias,transforms --timeout 900
    python tests/ecosystem/run_optax_tests.py --root /tmp/sdists/flax-0.12.8/tests/nnx
        # a test tree that is no installed package's (flax's sdist: its wheel has no tests)
    python tests/ecosystem/run_optax_tests.py --root /tmp/sdists/numpyro-0.22.0/test \
        -k test_distributions --pytest-arg=-k --pytest-arg='not gof'  # pytest's own -k
    python tests/ecosystem/run_optax_tests.py --root /tmp/sdists/numpyro-0.22.0/test \
        --select ids.txt   # only these tests: `FILE::TEST[...]` lines, FILE relative to --root

One process per test file: `python -m astjax run -m pytest FILE` (so `import jax` is
astjax and no module of the real jax distribution is imported), with a per-file time
limit (at the limit the file is interrupted as Ctrl-C would, so its failures so far
are still listed). Prints a table (passed / failed / errors / skipped and subtests per file),
the totals, and the most common failure messages; `--json OUT` writes everything,
including each failing test's id and first error line.

A script, not a pytest-collected test and not part of CI: it needs optax, its test
dependencies, and tens of minutes.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COUNT = re.compile(r"(\d+) (subtests passed|subtests failed|subtests skipped|passed|failed|"
                   r"errors?|skipped|xfailed|xpassed)")
FAILED_LINE = re.compile(r"^(FAILED|ERROR) (.+?)(?: - (.*))?$")   # (an id may hold spaces)


def package_test_files(package="optax"):
    """The test files (`*_test.py`) of the installed `package`, sorted."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{package} is not installed in this interpreter (pip install -e '.[ecosystem]')")
    root = Path(list(spec.submodule_search_locations)[0])
    return root, sorted(root.rglob("*_test.py"))


def run_file(path: Path, use_jax: bool, timeout: float, extra=(), tests=()):
    """Run one file (`extra`: more pytest arguments; `tests`: only these of its test ids,
    `TEST[...]`); -> dict of counts, failures, seconds, status."""
    # `-o addopts=`: the optax files may sit under a checkout whose pytest config
    # (this repository's `-q`) would make it `-qq`, which drops the counts line
    pytest_args = ["-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider", "-rfE",
                   "--no-header", *extra, *([f"{path}::{t}" for t in tests] or [str(path)])]
    cmd = [sys.executable] + (pytest_args if use_jax else ["-m", "astjax", "run"] + pytest_args)
    env_path = str(REPO)
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         cwd="/tmp", env=_env(env_path, use_jax))
    try:
        out, status = p.communicate(timeout=timeout)[0], "done"
    except subprocess.TimeoutExpired:
        # interrupt as Ctrl-C would: pytest then prints its summary (the failing tests'
        # ids and the counts so far); killed if it does not within a minute
        p.send_signal(signal.SIGINT)
        try:
            out = p.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            p.kill()
            out = p.communicate()[0]
        status = "timeout"
    counts = collections.Counter()
    summary = [ln for ln in out.splitlines() if re.search(r"\d+ (passed|failed|errors?|skipped)", ln)
               and " in " in ln]
    if summary:
        for n, kind in COUNT.findall(summary[-1]):
            counts["errors" if kind.startswith("error") else kind] += int(n)
    elif status == "timeout":  # count the progress characters printed so far
        for ln in out.splitlines():
            if re.fullmatch(r"[.FEsxX]+( +\[ *\d+%\])?", ln.strip()):
                for ch, kind in ((".", "passed"), ("F", "failed"), ("E", "errors"),
                                 ("s", "skipped")):
                    counts[kind] += ln.count(ch)
    elif status == "done":
        status = "crashed"
    failures = []
    for ln in out.splitlines():
        m = FAILED_LINE.match(ln.strip())
        if m:
            failures.append({"kind": m.group(1), "test": m.group(2), "why": (m.group(3) or "")[:300]})
    return {"counts": dict(counts), "failures": failures, "seconds": round(time.time() - t0, 1),
            "status": status, "tail": out[-1500:] if status != "done" else ""}


def _env(repo, use_jax):
    import os
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"  # a timed-out file's progress reaches the pipe
    if not use_jax:  # astjax from this checkout, whatever the interpreter has installed
        env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _cause(why: str) -> str:
    """A failure message with numbers and quoted names blurred, for grouping."""
    why = re.sub(r"\d+(\.\d+)?", "N", why)
    return re.sub(r"'[^']*'", "'…'", why)[:110]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax", action="store_true", help="run on real JAX (the baseline)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per file")
    ap.add_argument("-k", default="", help="comma-separated substrings of file paths to run")
    ap.add_argument("--json", default="", help="write the results here")
    ap.add_argument("--package", default="optax", help="whose test suite (default optax)")
    ap.add_argument("--root", default="", help="run the test files under this directory instead "
                    "(`*_test.py` and `test_*.py`), e.g. an unpacked sdist's tests/")
    ap.add_argument("--pytest-arg", action="append", default=[], metavar="ARG",
                    help="pass ARG to each file's pytest (repeatable), e.g. "
                    "--pytest-arg=-k --pytest-arg='not gof'")
    ap.add_argument("--select", default="", metavar="FILE",
                    help="run only the test ids listed in FILE, one `PATH::TEST[...]` a line "
                    "(PATH relative to the test root); files with none listed are not run")
    args = ap.parse_args(argv)
    if args.root:
        root = Path(args.root).resolve()
        files = sorted({*root.rglob("*_test.py"), *root.rglob("test_*.py")})
    else:
        root, files = package_test_files(args.package)
    if args.k:
        files = [f for f in files if any(s in str(f.relative_to(root)) for s in args.k.split(","))]
    selected = collections.defaultdict(list)
    if args.select:
        for ln in Path(args.select).read_text().splitlines():
            if "::" in ln.strip():
                fname, test = ln.strip().split("::", 1)
                selected[str((root / fname).resolve().relative_to(root))].append(test)
        files = [f for f in files if str(f.relative_to(root)) in selected]
    results, totals = {}, collections.Counter()
    print(f"{len(files)} files, on {'real JAX' if args.jax else 'astjax'}", flush=True)
    for f in files:
        name = str(f.relative_to(root))
        r = run_file(f, args.jax, args.timeout, args.pytest_arg, selected.get(name, ()))
        results[name] = r
        totals.update(r["counts"])
        c = r["counts"]
        print(f"{name:55s} {c.get('passed', 0):5d} passed {c.get('failed', 0):4d} failed "
              f"{c.get('errors', 0):3d} err {c.get('skipped', 0):3d} skip | subtests "
              f"{c.get('subtests passed', 0):4d}/{c.get('subtests failed', 0):3d} | "
              f"{r['seconds']:6.1f}s {r['status'] if r['status'] != 'done' else ''}", flush=True)
        for x in r["failures"]:   # as they come: a long run's failures can be looked at early
            print(f"    {x['kind']} {x['test']} - {x['why'][:160]}", flush=True)
    print("TOTAL", dict(totals))
    causes = collections.Counter(_cause(x["why"]) for r in results.values()
                                 for x in r["failures"])
    print("most common failure messages:")
    for why, n in causes.most_common(25):
        print(f"  {n:4d}  {why}")
    if args.json:
        Path(args.json).write_text(json.dumps({"jax": args.jax, "totals": dict(totals),
                                               "files": results}, indent=1))


if __name__ == "__main__":
    main()
