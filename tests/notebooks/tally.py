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
            groups[key][0] += 1
            groups[key][1].add(s["notebook"])
        elif c.get("mismatch"):
            mismatch[s["notebook"]][0] += 1
for key, (n, nbs) in sorted(groups.items(), key=lambda kv: -kv[1][0]):
    print(f"{n:4d} cells {len(nbs):2d} nb  {key[:150]}  [{', '.join(sorted(nbs))[:200]}]")
