#!/usr/bin/env python3
"""Print the cells of a notebook run that differ: python tests/notebooks/show.py [OUT] NAME..."""
import json
import sys
from pathlib import Path

args = sys.argv[1:]
out = Path(args.pop(0)) if args and Path(args[0]).is_dir() else Path("/work/nb_out")
for name in args:
    s = json.loads((out / name / "summary.json").read_text())
    for c in s["per_cell"]:
        flags = [k for k in ("mismatch", "permissive", "raise_type") if c.get(k)]
        if c["env"] or flags or not (c["jax_ok"] and c["astjax_ok"]):
            print(f"--- {name} cell {c['cell']} (line {c['line']}) env={c['env']} "
                  f"jax_ok={c['jax_ok']} astjax_ok={c['astjax_ok']} "
                  + " ".join(f"{k}={c[k]!r}" for k in flags))
            if not c["jax_ok"]:
                print("  jax:   ", c["jax"][:600])
            if not c["astjax_ok"]:
                print("  astjax:", c["astjax"][:900])
