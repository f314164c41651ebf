"""Long-run differential fuzzing: `python tests/fuzz/run.py --seeds A:B [--checks jit64,grad]
[--disable closure_def,nonlocal] [--reduce] [--out summary.md]`.

Writes a summary: per check pass / skip / crash / wrong counts, and failures grouped
by signature with the first seeds and (with --reduce) a reduced repro of the first.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from fuzz.checks import CHECKS, run_program  # noqa: E402
from fuzz.gen import generate  # noqa: E402
from fuzz.gen_constructs import CONSTRUCTS  # noqa: E402
from fuzz.gen_constructs2 import CONSTRUCTS2  # noqa: E402
from fuzz.gen_constructs3 import CONSTRUCTS3  # noqa: E402
from fuzz.gen_constructs4 import CONSTRUCTS4  # noqa: E402
from fuzz.gen_constructs5 import CONSTRUCTS5  # noqa: E402
from fuzz.gen_constructs6 import CONSTRUCTS6  # noqa: E402
from fuzz.gen_constructs7 import CONSTRUCTS7  # noqa: E402
from fuzz.reduce import reduce  # noqa: E402


def expand(names):
    """`--enable`'s list: `constructs` stands for every `gen_constructs` feature,
    `constructs2` for every `gen_constructs2` one, `constructs3` for `gen_constructs3`'s,
    `constructs4` for `gen_constructs4`'s, `constructs5` for `gen_constructs5`'s,
    `constructs6` for `gen_constructs6`'s, `constructs7` for `gen_constructs7`'s."""
    family = {"constructs": CONSTRUCTS, "constructs2": CONSTRUCTS2, "constructs3": CONSTRUCTS3,
              "constructs4": CONSTRUCTS4, "constructs5": CONSTRUCTS5,
              "constructs6": CONSTRUCTS6, "constructs7": CONSTRUCTS7}
    out = []
    for d in names.split(","):
        out += list(family[d]) if d in family else [d] if d else []
    return tuple(out)


def fuzz(seeds, checks=CHECKS, disabled=(), do_reduce=False, log=None, enabled=()):
    counts = {c: collections.Counter() for c in checks}
    status = collections.Counter()
    groups = collections.defaultdict(list)   # signature -> [seed]
    by_check = collections.defaultdict(collections.Counter)   # signature -> check -> n
    detail = {}
    for seed in seeds:
        prog = generate(seed, disabled, enabled)
        case = run_program(prog, checks)
        if case.status:
            status[case.status] += 1
            continue
        bad = case.failures()
        status["fail" if bad else "pass"] += 1
        for c, r in case.results.items():
            counts[c][r[0]] += 1
        for c, r in bad.items():
            by_check[r[1]][c] += 1
            if seed not in groups[r[1]]:
                groups[r[1]].append(seed)
            detail.setdefault(r[1], (seed, c, r[2], prog))
        if log:
            log(f"seed {seed}: " + (", ".join(f"{c}={r[0]}" for c, r in bad.items()) or "ok"))
    reduced = {}
    if do_reduce:
        for sig, (seed, c, msg, prog) in detail.items():
            reduced[sig] = reduce(prog, c, sig).render("jax")
    return counts, status, groups, by_check, detail, reduced


def summary(seeds, checks, counts, status, groups, by_check, detail, reduced, elapsed,
            disabled, enabled=()):
    out = [f"# astjax differential fuzz: seeds {seeds.start}:{seeds.stop}",
           "", f"command: `python tests/fuzz/run.py --seeds {seeds.start}:{seeds.stop}"
           + (f" --disable {','.join(disabled)}" if disabled else "")
           + (f" --enable {','.join(enabled)}" if enabled else "") + "`",
           f"time: {elapsed:.0f} s", "",
           "programs: " + ", ".join(f"{k} {v}" for k, v in sorted(status.items())), "",
           "| check | pass | skip | crash | wrong |", "|---|---|---|---|---|"]
    for c in checks:
        n = counts[c]
        out.append(f"| {c} | {n['pass']} | {n['skip']} | {n['crash']} | {n['wrong']} |")
    out += ["", "## failures by signature", ""]
    for sig, seeds_ in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        seed, c, msg, prog = detail[sig]
        out += [f"### {len(seeds_)} programs: `{sig}`", "",
                "checks: " + ", ".join(f"{c} {k}" for c, k in by_check[sig].most_common()), "",
                f"seeds: {', '.join(map(str, seeds_[:12]))}" + (" ..." if len(seeds_) > 12 else ""),
                "", f"first message: `{msg[:300]}`", ""]
        if sig in reduced:
            out += ["reduced:", "```python", reduced[sig].rstrip(), "```", ""]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:50")
    ap.add_argument("--checks", default=",".join(CHECKS))
    ap.add_argument("--disable", default="")
    ap.add_argument("--enable", default="", help="features off by default (gen.DEFAULT_OFF; "
                    "`constructs`: all of gen_constructs.CONSTRUCTS, `constructs2`: of gen_constructs2, `constructs3`: of gen_constructs3, "
                    "`constructs4`..`constructs7`: of gen_constructs4..7)")
    ap.add_argument("--reduce", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args(argv)
    lo, hi = map(int, a.seeds.split(":"))
    checks = tuple(c for c in a.checks.split(",") if c)
    disabled = tuple(d for d in a.disable.split(",") if d)
    t0 = time.time()
    enabled = expand(a.enable)
    res = fuzz(range(lo, hi), checks, disabled, a.reduce,
               log=(lambda m: print(m, flush=True)) if a.v else None, enabled=enabled)
    text = summary(range(lo, hi), checks, *res, time.time() - t0, disabled, enabled)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
