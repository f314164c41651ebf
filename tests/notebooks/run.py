#!/usr/bin/env python3
"""Run jupytext MyST notebooks with real JAX and with astjax, cell by cell, and compare.

    python tests/notebooks/run.py NOTEBOOK_DIR [NAME ...]
        [--jax-python /work/jaxref/bin/python] [--astjax-python .venv/bin/python]
        [--out /work/nb_out] [--timeout 300] [--reuse-jax] [--only-jax]

For each notebook NAME.md (all of NOTEBOOK_DIR when no NAME is given) the code cells
(```{code-cell} blocks) are written to OUT/NAME/cells/cell_NNN.py and a driver program
OUT/NAME/prog.py runs them in order in one namespace, as a notebook kernel would:

* IPython magics: `%timeit [-n N -r R] X` and `%time X` run X once; a `%%timeit` /
  `%%time` cell runs its body once; every other `%` / `!` line becomes `pass`.
* A cell's last expression statement is displayed like IPython does (its repr is
  printed unless it is None or the line ends with `;`).
* A failing cell does not stop the run: its exception (type, message, the innermost
  frame in notebook code and the innermost frame overall) is recorded, and the next
  cell runs. A cell tagged `raises-exception` must raise under astjax when it raises
  under JAX (and complete when it completes under JAX: the tag allows an exception,
  e.g. one the cell catches itself); an astjax exception of another type than JAX's
  (not a subclass) is reported as `raise_type`, and a cell JAX raises on but astjax
  runs is counted apart (`JAX raises, astjax runs`), not as OK.
* Cells that need what this machine does not have (torch, tensorflow, tfds, network,
  GPUs/TPUs) are classified `environment`: not run, and counted for neither JAX nor
  astjax. Cells using matplotlib or rich (jax.debug.visualize_array_sharding) run
  against do-nothing stubs of those packages in both runs (neither environment has
  rich; astjax's has no matplotlib) and are counted like any other cell.

The program runs twice, in subprocesses with a per-notebook timeout: with real JAX
(`JAX_PYTHON prog.py`) and with astjax (`ASTJAX_PYTHON -m astjax run prog.py`). A marker
line is printed between cells; stdout is split on it and compared cell by cell:
numbers (parsed as floats) with rtol 1e-4 / atol 1e-6, the text between them exactly
after collapsing whitespace and masking `0x...` addresses.

Writes OUT/NAME/{jax,astjax}.json (per-cell status and output), OUT/results.json (the
summary) and OUT/results.md (a Markdown table). Exit status 0.
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
MARKER = "@@@ASTJAX-NB-CELL {} @@@"
MARKER_RE = re.compile(r"^@@@ASTJAX-NB-CELL (\d+) @@@$", re.M)

# Notebooks that need more than one CPU device.
NOTEBOOK_ENV = {
    name: {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    for name in ("explicit-sharding", "Distributed_arrays_and_automatic_parallelization",
                 "shard_map", "jax_Array", "sharded-computation", "parallel",
                 "Parallelism_with_JAX", "print_breakpoint")
}

# Source patterns that make a cell an `environment` cell (not run at all).
ENV_SKIP = [
    (re.compile(r"^\s*(import|from)\s+(torch|torchvision|tensorflow|tensorflow_datasets|"
                r"flax|optax|haiku|equinox|orbax|jax_triton|colab|google\.colab|sklearn|"
                r"termcolor)\b", re.M),
     "package not installed"),
    (re.compile(r"\btfds\.|\btorch\.|\btf\.data|\btorchvision\."), "package not installed"),
    (re.compile(r"urlopen|urlretrieve|requests\.get|wget |download=True|gsutil|"
                r"datasets\.(face|ascent|electrocardiogram)\(|pooch"), "network"),
    (re.compile(r"['\"](gpu|tpu|cuda)['\"]|jax\.devices\(\s*['\"](gpu|tpu)"), "accelerator"),
    (re.compile(r"\bpl\.pallas_call|jax\.experimental\.pallas|mosaic"), "accelerator"),
]
# Cells that run against the matplotlib stub (environment, but run so later cells work).
ENV_STUB = [(re.compile(r"\b(matplotlib|plt\.|pyplot)"), "matplotlib (stubbed)"),
            (re.compile(r"\brich\b|visualize_array_sharding|print_fwd_bwd"), "rich (stubbed)")]

# Per-notebook overrides: cell index -> reason (cells the patterns above miss).
ENV_CELLS: dict[str, dict[int, str]] = {
    # the training loop reads the torch DataLoader and the MNIST download
    "Neural_Network_and_Data_Loading": {11: "needs torch data (MNIST download)"},
    # 8192-wide layers on an 8192 batch (TFLOPs per step) and %timeit of 8192^3
    # matmuls: minutes per cell on this 2-core machine, for both runs
    "Distributed_arrays_and_automatic_parallelization": {
        i: "compute too large for a 2-core CPU machine"
        for i in (23, 24, 43, 44, 45, 47, 54, 55, 56, 58)},
}

MAGIC_LINE = re.compile(r"^(\s*)%(timeit|time)\b(.*)$")
TIMEIT_OPTS = re.compile(r"^\s*((-[nrpo]\s*\d*|-q|-o)\s+)*")


# ----------------------------------------------------------------------------- parsing

def parse_notebook(text: str) -> list[dict]:
    """The code cells of a MyST notebook: [{"source", "tags", "line"}]."""
    cells = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(`{3,})\{code-cell\}", lines[i])
        if not m:
            i += 1
            continue
        fence, start = m.group(1), i + 1
        j = start
        while j < len(lines) and lines[j].rstrip() != fence:
            j += 1
        body = lines[start:j]
        tags: list[str] = []
        # options: a YAML block between '---' lines, or leading ':key: value' lines
        if body and body[0].strip() == "---":
            k = 1
            while k < len(body) and body[k].strip() != "---":
                tags += _tags_of(body[k])
                k += 1
            body = body[k + 1:]
        else:
            k = 0
            while k < len(body) and body[k].startswith(":"):
                tags += _tags_of(body[k][1:])
                k += 1
            body = body[k:]
        while body and not body[0].strip():
            body = body[1:]
        cells.append({"source": "\n".join(body).rstrip() + "\n", "tags": tags,
                      "line": start + 1})
        i = j + 1
    return cells


def _tags_of(option: str) -> list[str]:
    m = re.match(r"\s*tags:\s*\[(.*)\]", option)
    return [t.strip().strip("'\"") for t in m.group(1).split(",")] if m else []


def convert_magics(src: str) -> str:
    """IPython magics to plain Python, line numbers kept."""
    lines = src.split("\n")
    first = next((l for l in lines if l.strip()), "")
    if first.strip().startswith("%%"):
        kind = first.strip()[2:].split()[0] if first.strip()[2:] else ""
        idx = lines.index(first)
        if kind in ("timeit", "time"):
            lines[idx] = "pass"
        else:                                   # %%capture, %%bash, ...: not Python
            return "\n".join("pass" if l.strip() else l for l in lines)
    out = []
    for line in lines:
        m = MAGIC_LINE.match(line)
        if m:
            indent, kind, rest = m.groups()
            if kind == "timeit":
                rest = TIMEIT_OPTS.sub("", rest)
            rest = rest.strip()
            try:                                # magics do not display the value
                if rest and isinstance(ast.parse(rest).body[0], ast.Expr):
                    rest = "_magic_ = " + rest
            except SyntaxError:
                pass
            out.append(indent + rest if rest else indent + "pass")
        elif re.match(r"^\s*[%!]", line):
            out.append(re.match(r"^(\s*)", line).group(1) + "pass")
        elif re.match(r"^\s*\w+\s*=\s*!", line):    # x = !cmd
            out.append(re.match(r"^(\s*)", line).group(1) + "pass")
        else:
            out.append(line)
    return "\n".join(out)


def classify_env(name: str, index: int, src: str) -> tuple[str | None, str | None]:
    """(env, stub): why a cell is an environment cell (not run, not counted), or which
    stub it runs against (counted: both runs see the same stub)."""
    if index in ENV_CELLS.get(name, {}):
        return ENV_CELLS[name][index], None
    for pat, why in ENV_SKIP:
        if pat.search(src):
            return why, None
    for pat, why in ENV_STUB:
        if pat.search(src):
            return None, why
    return None, None


# ----------------------------------------------------------------------------- driver

DRIVER = r'''
import ast, importlib.machinery, json, os, sys, time, traceback, types

CELLS = json.load(open(os.environ["NB_CELLS"]))
RESULTS = open(os.environ["NB_RESULTS"], "w")
MARKER = {marker!r}


class _Stub(types.ModuleType):
    """A do-nothing matplotlib: every attribute and call gives the stub back."""
    def __init__(self, name="matplotlib"):
        super().__init__(name)
        self.__path__ = []
        self.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(self.__name__ + "." + name)
    def __call__(self, *a, **k):
        if "colormaps" in self.__name__ or ".cm." in self.__name__:
            return (0.5, 0.5, 0.5, 1.0)      # a colour (jax.debug.visualize_*)
        return _Stub(self.__name__ + "()")
    def __iter__(self):
        return iter((_Stub(), _Stub()))
    def __getitem__(self, i):
        return _Stub(self.__name__ + "[]")
    def __setitem__(self, i, v):
        pass
    def _same(self, *a):
        return self
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __neg__ = _same
    def __int__(self):
        return 80
    __index__ = __int__
    def __float__(self):
        return 80.0
    def __lt__(self, other):
        return False
    __le__ = __gt__ = __ge__ = __lt__
    def __len__(self):
        return 0
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return False
    def __repr__(self):
        return "<matplotlib stub>"


for _m in ("matplotlib", "matplotlib.pyplot", "matplotlib.cm", "matplotlib.colors",
           "matplotlib.animation", "matplotlib.patches", "mpl_toolkits",
           "mpl_toolkits.mplot3d", "IPython", "IPython.display",
           "rich", "rich.console", "rich.table", "rich.text", "rich.jupyter", "rich.align",
           "rich.padding", "rich.style", "rich.box"):
    sys.modules[_m] = _Stub(_m)


def _display(value):
    if value is not None:
        print(repr(value))


try:                                    # unseeded np.random: same draws in both runs
    import numpy as _np
    _np.random.seed(0)
except ImportError:
    pass

NS = {{"__name__": "__main__", "__builtins__": __builtins__, "_display_": _display}}
CELL_DIR = os.path.dirname(CELLS[0]["path"]) if CELLS else ""


def _compile(cell):
    src = open(cell["path"]).read()
    tree = ast.parse(src, cell["path"])
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        line = src.split("\n")[last.end_lineno - 1]
        if not line.split("#")[0].rstrip().endswith(";"):
            call = ast.Expr(ast.Call(ast.Name("_display_", ast.Load()), [last.value], []))
            tree.body[-1] = ast.copy_location(call, last)
            ast.fix_missing_locations(tree)
    return compile(tree, cell["path"], "exec")


def _where(tb):
    frames = traceback.extract_tb(tb)
    inner = frames[-1] if frames else None
    mine = [f for f in frames if f.filename.startswith(CELL_DIR)]
    fmt = lambda f: f"{{f.filename}}:{{f.lineno}}" if f else ""
    return fmt(mine[-1] if mine else None), fmt(inner)


for i, cell in enumerate(CELLS):
    print(MARKER.format(i), flush=True)
    rec = {{"cell": i}}
    if not cell["run"]:
        rec["status"] = "skipped"
    else:
        t0 = time.time()
        try:
            exec(_compile(cell), NS)
            rec["status"] = "ok"
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            user, inner = _where(e.__traceback__)
            rec.update(status="error", type=type(e).__name__,
                       message=str(e)[:2000], where=user, inner=inner,
                       mro=[c.__name__ for c in type(e).__mro__])
        rec["seconds"] = round(time.time() - t0, 3)
    sys.stdout.flush()
    sys.stderr.flush()
    RESULTS.write(json.dumps(rec) + "\n")
    RESULTS.flush()
print(MARKER.format(len(CELLS)), flush=True)
'''


def build(name: str, text: str, out: Path) -> tuple[Path, list[dict]]:
    cells = parse_notebook(text)
    d = out / name
    (d / "cells").mkdir(parents=True, exist_ok=True)
    for old in (d / "cells").glob("cell_*.py"):
        old.unlink()
    meta = []
    for i, c in enumerate(cells):
        src = convert_magics(c["source"])
        path = d / "cells" / f"cell_{i:03d}.py"
        path.write_text(src)
        env, stub = classify_env(name, i, c["source"])
        try:
            ast.parse(src)
        except SyntaxError as e:
            env = env or f"not Python: {e.msg}"
        meta.append({"path": str(path), "tags": c["tags"], "env": env, "run": env is None,
                     "stub": stub, "line": c["line"]})
    (d / "cells.json").write_text(json.dumps(meta, indent=1))
    (d / "prog.py").write_text(DRIVER.format(marker=MARKER))
    return d, meta


def run_one(d: Path, which: str, python: str, timeout: float, extra_env: dict) -> dict:
    env = dict(os.environ)
    env.update(extra_env)
    env["NB_CELLS"] = str(d / "cells.json")
    env["NB_RESULTS"] = str(d / f"{which}.results.jsonl")
    env.setdefault("PYTHONHASHSEED", "0")
    env.pop("JAX_ENABLE_X64", None)
    cmd = [python, str(d / "prog.py")] if which == "jax" else \
        [python, "-m", "astjax", "run", str(d / "prog.py")]
    if which == "astjax":
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.time()
    timed_out = False
    with open(d / f"{which}.stdout", "w") as so, open(d / f"{which}.stderr", "w") as se:
        p = subprocess.Popen(cmd, stdout=so, stderr=se, env=env, cwd=str(d),
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, 9)
            rc = p.wait()
    seconds = time.time() - t0
    stdout = (d / f"{which}.stdout").read_text(errors="replace")
    outputs: dict[int, str] = {}
    parts = MARKER_RE.split(stdout)
    for k in range(1, len(parts) - 1, 2):
        outputs[int(parts[k])] = parts[k + 1].strip("\n")
    recs = {}
    rpath = d / f"{which}.results.jsonl"
    if rpath.exists():
        for line in rpath.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                recs[r["cell"]] = r
    if outputs and (timed_out or rc != 0):
        current = max(outputs)                  # the cell that was running
        if current not in recs and current < len(json.loads((d / "cells.json").read_text())):
            recs[current] = {"cell": current,
                             "status": "timeout" if timed_out else "crash",
                             "type": "Timeout" if timed_out else "ProcessCrash",
                             "message": f"run {'timed out' if timed_out else f'exited {rc}'}"
                                        f" in this cell", "where": "", "inner": ""}
    res = {"returncode": rc, "timed_out": timed_out, "seconds": round(seconds, 1),
           "cells": recs, "outputs": outputs,
           "stderr_tail": (d / f"{which}.stderr").read_text(errors="replace")[-3000:]}
    (d / f"{which}.json").write_text(json.dumps(res, indent=1))
    return res


# ----------------------------------------------------------------------------- compare

NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")


def _tokens(text: str):
    text = re.sub(r"0x[0-9a-fA-F]+", "0xADDR", text)
    nums = [m.group(0) for m in NUM.finditer(text)]
    rest = re.sub(r"\s+", "", NUM.sub("#", text))
    return rest, nums


def _num_equal(a: str, b: str) -> bool:
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or abs(x - y) <= 1e-6 + 1e-4 * max(abs(x), abs(y))


def compare(a: str, b: str) -> str | None:
    """None if the outputs agree, else a short description of the first difference."""
    if a == b:
        return None
    ta, na = _tokens(a)
    tb, nb = _tokens(b)
    if ta != tb:
        la, lb = a.splitlines(), b.splitlines()
        for k in range(max(len(la), len(lb))):
            x = la[k] if k < len(la) else "<missing>"
            y = lb[k] if k < len(lb) else "<missing>"
            if _tokens(x)[0] != _tokens(y)[0]:
                return f"text line {k + 1}: jax {x[:160]!r} / astjax {y[:160]!r}"
        return "text differs"
    if len(na) != len(nb):
        return f"{len(na)} vs {len(nb)} numbers"
    for k, (x, y) in enumerate(zip(na, nb)):
        if not _num_equal(x, y):
            return f"number #{k + 1}: jax {x} / astjax {y}"
    return None


def cell_ok(meta: dict, rec: dict | None, ref: dict | None = None) -> bool:
    """A cell is OK if it completes; a `raises-exception` cell (the tag allows an
    exception, it does not demand one) is OK under JAX whatever it does, and under
    astjax if it does what it does under JAX (raises, or completes)."""
    if rec is None:
        return False
    if "raises-exception" in meta["tags"]:
        if ref is None:                     # the JAX run: the reference
            return rec["status"] in ("ok", "error")
        return rec["status"] == ref["status"]
    return rec["status"] == "ok"


def summarize(name: str, meta: list[dict], rj: dict, ra: dict) -> dict:
    cells = []
    for i, m in enumerate(meta):
        j = rj["cells"].get(i) if rj else None
        a = ra["cells"].get(i) if ra else None
        c = {"cell": i, "line": m["line"], "env": m["env"], "stub": m.get("stub"),
             "raises": "raises-exception" in m["tags"],
             "jax_ok": cell_ok(m, j), "astjax_ok": cell_ok(m, a, j or {"status": "?"})}
        for tag, r in (("jax", j), ("astjax", a)):
            if r is None:
                c[tag] = "not reached"
            elif r["status"] in ("error", "timeout", "crash"):
                c[tag] = f"{r['type']}: {r['message'][:300]} @ {r.get('where') or r.get('inner')}"
                c[tag + "_inner"] = r.get("inner")
            else:
                c[tag] = r["status"]
        if c["raises"] and j and a and j["status"] == "error" and a["status"] == "error" \
                and j.get("type") not in a.get("mro", []):
            c["raise_type"] = f"jax {j.get('type')} / astjax {a.get('type')}"
        if c["raises"] and c["jax_ok"] and j["status"] == "error" and a \
                and a["status"] == "ok":
            c["permissive"] = True          # JAX raises, astjax runs the cell
        if c["jax_ok"] and c["astjax_ok"] and rj and ra and j["status"] == "ok":
            diff = compare(rj["outputs"].get(i, ""), ra["outputs"].get(i, ""))
            if diff:
                c["mismatch"] = diff
        cells.append(c)
    counted = [c for c in cells if not c["env"]]
    first = next((c for c in counted if c["jax_ok"] and not c["astjax_ok"]
                  and not c.get("permissive")), None)
    return {
        "notebook": name,
        "cells": len(cells), "env_cells": len(cells) - len(counted),
        "jax_ok": sum(c["jax_ok"] for c in counted),
        "astjax_ok": sum(c["astjax_ok"] for c in counted),
        "both_ok": sum(c["jax_ok"] and c["astjax_ok"] for c in counted),
        "mismatches": sum(1 for c in counted if c.get("mismatch")),
        "permissive": sum(1 for c in counted if c.get("permissive")),
        "jax_timed_out": bool(rj and rj["timed_out"]),
        "astjax_timed_out": bool(ra and ra["timed_out"]),
        "jax_seconds": rj and rj["seconds"], "astjax_seconds": ra and ra["seconds"],
        "first_failure": first and {"cell": first["cell"], "line": first["line"],
                                    "error": first["astjax"]},
        "per_cell": cells,
    }


def short_error(rec_text: str) -> str:
    """`Type: message @ file:line` in one line (astjax's located messages: the line
    naming the error, not the caret picture)."""
    head, _, where = rec_text.rpartition(" @ ")
    if not head:
        head, where = rec_text, ""
    typ, _, msg = head.partition(": ")
    lines = [l.strip() for l in msg.splitlines() if l.strip()]
    pick = next((l for l in lines if l.startswith(typ + ": ")), None)
    msg = pick[len(typ) + 2:] if pick else (lines[0] if lines else "")
    return f"{typ}: {msg[:200]}" + (f" @ {Path(where).name}" if where else "")


def table(summaries: list[dict]) -> str:
    rows = ["| notebook | cells (env) | JAX ok | astjax ok | both ok | output mismatches "
            "| JAX raises, astjax runs | first astjax failure (cell: error) |",
            "|---|---|---|---|---|---|---|---|"]
    tot = [0] * 7
    for s in summaries:
        ff = s["first_failure"]
        tail = "".join(f" ({w} run timed out)" for w, k in (("JAX", "jax_timed_out"),
                                                            ("astjax", "astjax_timed_out"))
                       if s[k])
        err = (f"{ff['cell']}: {short_error(ff['error'])}" if ff else "-") + tail
        err = err.replace("|", "\\|").replace("\n", " ")
        rows.append(f"| {s['notebook']} | {s['cells']} ({s['env_cells']}) | {s['jax_ok']} | "
                    f"{s['astjax_ok']} | {s['both_ok']} | {s['mismatches']} | {s['permissive']} | {err} |")
        for k, key in enumerate(("cells", "env_cells", "jax_ok", "astjax_ok", "both_ok",
                                 "mismatches", "permissive")):
            tot[k] += s[key]
    rows.append(f"| **total** | {tot[0]} ({tot[1]}) | {tot[2]} | {tot[3]} | {tot[4]} | "
                f"{tot[5]} | {tot[6]} | |")
    return "\n".join(rows) + "\n"


def load_run(d: Path, which: str) -> dict:
    r = json.loads((d / f"{which}.json").read_text())
    r["cells"] = {int(k): v for k, v in r["cells"].items()}
    r["outputs"] = {int(k): v for k, v in r["outputs"].items()}
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src", help="directory of MyST notebooks (NAME.md)")
    ap.add_argument("names", nargs="*", help="notebooks to run (default: all)")
    ap.add_argument("--jax-python", default="/work/jaxref/bin/python")
    ap.add_argument("--astjax-python", default=str(REPO / ".venv" / "bin" / "python"))
    ap.add_argument("--out", default="/work/nb_out")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--reuse-jax", action="store_true",
                    help="reuse OUT/NAME/jax.json from an earlier run")
    ap.add_argument("--reuse-astjax", action="store_true",
                    help="reuse OUT/NAME/astjax.json too (only recompute the comparison)")
    ap.add_argument("--only-jax", action="store_true")
    ap.add_argument("--publish", metavar="DIR",
                    help="also write results.md / results.json to DIR, without any "
                         "notebook text (statuses, error lines, numbers only)")
    args = ap.parse_intermixed_args(argv)
    src, out = Path(args.src), Path(args.out)
    names = args.names or sorted(p.stem for p in src.glob("*.md"))
    for name in names:
        text = (src / f"{name}.md").read_text()
        d, meta = build(name, text, out)
        extra = NOTEBOOK_ENV.get(name.removesuffix("_ported"), {})
        if args.reuse_jax and (d / "jax.json").exists():
            rj = load_run(d, "jax")
        else:
            rj = run_one(d, "jax", args.jax_python, args.timeout, extra)
        if args.reuse_astjax and (d / "astjax.json").exists():
            ra = load_run(d, "astjax")
        else:
            ra = None if args.only_jax else run_one(d, "astjax", args.astjax_python,
                                                    args.timeout, extra)
        s = summarize(name, meta, rj, ra)
        (d / "summary.json").write_text(json.dumps(s, indent=1))
        print(f"{name}: {s['jax_ok']} JAX ok, {s['astjax_ok']} astjax ok, "
              f"{s['mismatches']} mismatches, first failure: "
              f"{s['first_failure'] and s['first_failure']['error'][:200]}", flush=True)
    summaries = []
    for d in sorted(out.iterdir()):
        if (d / "summary.json").exists():
            summaries.append(json.loads((d / "summary.json").read_text()))
    (out / "results.json").write_text(json.dumps(summaries, indent=1))
    (out / "results.md").write_text(table(summaries))
    print(table(summaries))
    if args.publish:
        pub = Path(args.publish)
        pub.mkdir(parents=True, exist_ok=True)
        (pub / "results.json").write_text(json.dumps([published(s) for s in summaries],
                                                     indent=1) + "\n")
        (pub / "results.md").write_text(table(summaries))


def published(s: dict) -> dict:
    """A summary without notebook text: no source lines, no printed text."""
    def status(c, tag):
        v = c[tag]
        return v if v in ("ok", "skipped", "not reached") else short_error(v)

    def mismatch(m):
        return m if m.startswith(("number #", "text differs")) or " vs " in m else \
            m.split(":")[0] + ": text differs"

    keep = ("notebook", "cells", "env_cells", "jax_ok", "astjax_ok", "both_ok",
            "mismatches", "permissive", "jax_timed_out", "astjax_timed_out",
            "jax_seconds", "astjax_seconds")
    out = {k: s[k] for k in keep}
    ff = s["first_failure"]
    out["first_failure"] = ff and {"cell": ff["cell"], "error": short_error(ff["error"])}
    out["per_cell"] = [
        {k: v for k, v in {
            "cell": c["cell"], "env": c["env"], "stub": c.get("stub"),
            "jax": status(c, "jax"), "astjax": status(c, "astjax"),
            "jax_ok": c["jax_ok"], "astjax_ok": c["astjax_ok"],
            "mismatch": c.get("mismatch") and mismatch(c["mismatch"]),
            "permissive": c.get("permissive"), "raise_type": c.get("raise_type"),
        }.items() if v is not None}
        for c in s["per_cell"]]
    return out


if __name__ == "__main__":
    main()
