"""JAX 0.10.2's results for a fixed set of generated API calls (tests/fuzz/api_gen.py):
the seeds of the differences the API fuzzer found and fixed, then the first seeds of a
fixed range, `COUNT` calls in all, then the hand-written calls of tests/fuzz/api_cases.py
(differences found without a kept seed, and edge values). Each call is stored whole (its arguments as exact
bytes), so a later change of the generator does not change what is replayed.

Run under an interpreter with jax==0.10.2 (`python tests/oracle/record_api_fuzz.py`) to
write api_fuzz.json; tests/test_api_fuzz.py replays each call on astjax and compares it
with `fuzz.api_run.compare` (shape, dtype, weak type, values within a per-dtype
tolerance, or the builtin class of JAX's error)."""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
PATH = os.path.join(HERE, "api_fuzz.json")
COUNT = 200
# seeds whose calls differed from JAX before a fix (see the commits of tests/fuzz/api_*)
FIXED = [7, 13, 23, 37, 46, 51, 55, 73, 81, 86, 111, 136, 162, 183, 192, 203, 258, 338, 386, 388,
         868, 1037, 1152, 1283, 20088, 20404, 20577, 20595]
FIRST = 10000


def seeds():
    """The recorded seeds, in order."""
    rest = [s for s in range(FIRST, FIRST + COUNT) if s not in FIXED]
    return FIXED + rest[:COUNT - len(FIXED)]


def main():
    import jax
    from fuzz.api_cases import cases
    from fuzz.api_gen import generate
    from fuzz.api_run import libraries, summarize
    lib = libraries(jax)
    calls = [generate(s) for s in seeds()] + cases()
    out = {"jax": jax.__version__, "calls": calls,
           "results": [summarize(lib, c) for c in calls]}
    with open(PATH, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
