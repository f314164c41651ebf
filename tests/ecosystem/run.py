"""Run the ecosystem programs on astjax and compare with the numbers stored from JAX.

    pip install -e '.[ecosystem]'               # optax, chex, equinox, flax, haiku, pix (+ real jax)
    python tests/ecosystem/run.py [--record]    # --record: rerun the programs on real JAX

Each `*.py` program here prints one JSON object; `<name>.expected.json` holds what it
printed under JAX 0.10.2. Under astjax each runs as `python -m astjax run <program>`
(so `import jax` is astjax and no module of the real jax distribution is imported);
every number must match to rtol 1e-4. Not part of the CI suite: it needs the
libraries installed."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RTOL = 1e-4


def _flat(v):
    return np.hstack([np.ravel(np.asarray(x, float)) for x in (v if isinstance(v, list) else [v])])


def compare(got: dict, want: dict) -> list[str]:
    problems = []
    for key, w in want.items():
        if key not in got:
            problems.append(f"{key}: missing")
            continue
        g, w = _flat(got[key]), _flat(w)
        if g.shape != w.shape or not np.allclose(g, w, rtol=RTOL, atol=1e-6, equal_nan=True):
            problems.append(f"{key}: got {g[:4]}..., want {w[:4]}...")
    return problems


def main():
    record = "--record" in sys.argv
    failed = 0
    for prog in sorted(HERE.glob("*.py")):
        if prog.name.startswith("run"):  # the drivers (run.py, run_optax_tests.py)
            continue
        expected = prog.with_suffix(".expected.json")
        cmd = [sys.executable, str(prog)] if record else [sys.executable, "-m", "astjax", "run",
                                                          str(prog)]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
        if p.returncode != 0:
            failed += 1
            print(f"FAIL {prog.name}: exit {p.returncode}\n{p.stderr[-2000:]}")
            continue
        out = json.loads(p.stdout.strip().splitlines()[-1])
        if record:
            expected.write_text(json.dumps(out) + "\n")
            print(f"recorded {expected.name}")
            continue
        problems = compare(out, json.loads(expected.read_text()))
        failed += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {prog.name}: {len(out)} values"
              + "".join(f"\n    {x}" for x in problems))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
