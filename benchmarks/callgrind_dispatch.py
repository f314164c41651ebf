"""Instructions per call of the rows that share jit's dispatch path, counted by
callgrind between client requests (load-independent, unlike the driver's timings).

    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=/tmp/cg.%p \\
        .venv/bin/python benchmarks/callgrind_dispatch.py astjax [io,call,eager,tree900]
    (JAX: the same with its environment's python and `jax`)
    grep -H -E '^(desc: Trigger|summary)' /tmp/cg.*-01    # instructions of N calls

Each segment warms up, zeroes callgrind's counters, runs N (2,000) calls and dumps
them under its name (one `-01` file per segment: the calling thread). Rows: `io`
`np.asarray(jf(x, y))` on two placed f32[3] NumPy arrays (`workloads.jit_numpy_io`),
`call` the same without `np.asarray`, `eager` `jnp.sin(z) * 0.5 + y`
(`workloads.eager_op`), `tree900` a 900-leaf dict (`workloads.jit_pytree`, N / 50
calls). The client requests come from a two-function C shim built with `cc` into a
temporary directory (valgrind's `callgrind.h` is needed)."""
import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import _placed  # noqa: E402

_SHIM = """#include <valgrind/callgrind.h>
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump_at(const char *s) { CALLGRIND_DUMP_STATS_AT(s); }
"""


def _shim():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "cg.c"), "w") as f:
        f.write(_SHIM)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", os.path.join(d, "cg.so"),
                    os.path.join(d, "cg.c")], check=True)
    return ctypes.CDLL(os.path.join(d, "cg.so"))


def main(lib, names, n=2000):
    if lib == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import astjax as jax
        import astjax.numpy as jnp
    jf = jax.jit(lambda x, y: x * y + 1.0)
    x = _placed([1.0, 1.0, 1.0], np.float32, 16)
    y = _placed([2.0, 2.0, 2.0], np.float32, 16)
    z = jnp.asarray(np.linspace(0, 1, 16, dtype=np.float32))
    w = jnp.asarray(np.ones(16, np.float32))
    tree = {f"k{i}": jnp.asarray(np.full(2, i, np.float32)) for i in range(900)}
    jt = jax.jit(lambda t: jax.tree_util.tree_map(lambda a: a * 2.0, t))
    ready = jax.block_until_ready

    def io(k):
        for _ in range(k):
            np.asarray(jf(x, y))

    def call(k):
        for _ in range(k):
            jf(x, y)

    def eager(k):
        for _ in range(k):
            ready(jnp.sin(z) * 0.5 + w)

    def tree900(k):
        for _ in range(k // 50):
            ready(jt(tree))

    segments = {"io": io, "call": call, "eager": eager, "tree900": tree900}
    cg = _shim()
    for name in names or list(segments):
        segments[name](300)
        cg.cg_zero()
        segments[name](n)
        cg.cg_dump_at(name.encode())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(",") if len(sys.argv) > 2 else None)
