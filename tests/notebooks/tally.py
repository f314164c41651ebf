#!/usr/bin/env python3
"""Group the cells that run under JAX but not under astjax by error, with the number of
cells and notebooks each blocks: python tests/notebooks/tally.py [OUT/results.json]"""
import collections
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import short_error  # noqa: E402

path = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/nb_out/results.json")
groups = collections.defaultdict(lambda: [0, set()])
mismatch = collections.defaultdict(lambda: [0, set()])
for s in json.loads(path.read_text()):
    for c in s["per_cell"]:
        if c["env"]:
            continue
        if c["jax_ok"] and not c["astjax_ok"]:
            if c.get("permissive"):
                key = "(JAX raises, astjax runs)"
            else:
                err = c["astjax"] if c["astjax"] != "ok" else "completes where JAX raises"
                err = short_error(err) if " @ " in err or ": " in err else err
                key = re.sub(r" @ .*$", "", err)
                key = re.sub(r"name '[^']+' is not defined", "name '...' is not defined "
                             "(cascade)", key)
                key = re.sub(r"(device_put only accepts None or a Device).*", r"\1, got NamedSharding ...", key)
                key = re.sub(r"\(defined at .*", "...", key)
            groups[key][0] += 1
            groups[key][1].add(s["notebook"])
        elif c.get("mismatch"):
            mismatch[s["notebook"]][0] += 1
for key, (n, nbs) in sorted(groups.items(), key=lambda kv: -kv[1][0]):
    print(f"{n:4d} cells {len(nbs):2d} nb  {key[:150]}  [{', '.join(sorted(nbs))[:200]}]")

# cells at least twice as slow under astjax (and over a second): per-cell wall time
out_dir = path.parent
print("\nslow cells (astjax >= 2x JAX and >= 1 s):")
for s in json.loads(path.read_text()):
    d = out_dir / s["notebook"]
    try:
        j = json.loads((d / "jax.json").read_text())["cells"]
        a = json.loads((d / "astjax.json").read_text())["cells"]
    except FileNotFoundError:
        continue
    for k, rj in j.items():
        ra = a.get(k)
        if not ra or rj.get("status") != "ok" or ra.get("status") != "ok":
            continue
        tj, ta = rj.get("seconds", 0), ra.get("seconds", 0)
        if ta >= 1 and ta >= 2 * max(tj, 1e-3):
            print(f"  {s['notebook']} cell {k}: JAX {tj:.2f} s, astjax {ta:.2f} s")
