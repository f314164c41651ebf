"""`lax.reshape` on a mesh of Explicit axes, swept against JAX 0.10.2 (one process stores
JAX's results, another astjax's):

    python tests/fuzz/reshape_sharding_sweep.py [--seed S] [-n COUNT] [--jax PYTHON]

Random operands (rank 1-3, sizes whose product is 4..48) laid out over a 2x2 Explicit
mesh ("X", "Y": an axis, both, or none per dimension, where it divides the size), random
new sizes of the same product (rank 1-4) and `dimensions` None or a random permutation:
`eval_shape` of the reshape gives the result's spec, or the class of the exception.
Prints how many differ from JAX's, by kind (JAX's own AssertionError on some
singleton splits -- a crash in its `_split_on_one_axis` -- is astjax's
ShardingTypeError: counted apart, as "jax asserts"). `--jax` is an interpreter with
jax 0.10.2 installed (default /work/jaxref/bin/python)."""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"


def _sizes(rng, n, k):
    """`k` positive sizes whose product is `n`, in random order."""
    out = []
    for _ in range(k - 1):
        d = rng.choice([d for d in range(1, n + 1) if n % d == 0])
        out.append(d)
        n //= d
    out.append(n)
    rng.shuffle(out)
    return tuple(out)


def cases(seed, count):
    """(shape, spec entries, new sizes, dimensions) per case, the same in both processes."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        total = rng.choice([4, 8, 12, 16, 24, 48])
        shape = _sizes(rng, total, rng.randint(1, 3))
        new = _sizes(rng, total, rng.randint(1, 4))
        free, spec = ["X", "Y"], []
        for n in shape:
            c = rng.choice([None, None, "X", "Y", ("X", "Y")])
            cs = () if c is None else c if isinstance(c, tuple) else (c,)
            if cs and all(a in free for a in cs) and n % (2 ** len(cs)) == 0:
                spec.append(c)
                free = [a for a in free if a not in cs]
            else:
                spec.append(None)
        dims = None if rng.random() < 0.5 else tuple(rng.sample(range(len(shape)), len(shape)))
        out.append((shape, spec, new, dims))
    return out


def store(lib, seed, count, path):
    """Run every case with `lib` ("jax" or "astjax"), write [result, ...] to `path`."""
    if lib == "jax":
        import jax
    else:
        import astjax as jax
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    res = []
    with jax.set_mesh(mesh):
        for shape, spec, new, dims in cases(seed, count):
            x = jax.ShapeDtypeStruct(shape, np.float32,
                                     sharding=jax.sharding.NamedSharding(mesh, P(*spec)))
            try:
                r = jax.eval_shape(lambda x: jax.lax.reshape(x, new, dims), x)
                res.append(str(r.sharding.spec))
            except Exception as e:   # (the class is what is compared)
                res.append(type(e).__name__)
    with open(path, "w") as f:
        json.dump(res, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("-n", type=int, default=1500)
    ap.add_argument("--jax", default="/work/jaxref/bin/python")
    ap.add_argument("--store", nargs=2, metavar=("LIB", "PATH"))
    a = ap.parse_args()
    if a.store:
        return store(a.store[0], a.seed, a.n, a.store[1])
    with tempfile.TemporaryDirectory() as tmp:
        got = {}
        for lib, exe in (("jax", a.jax), ("astjax", sys.executable)):
            path = os.path.join(tmp, lib + ".json")
            subprocess.run([exe, __file__, "--seed", str(a.seed), "-n", str(a.n),
                            "--store", lib, path], check=True)
            with open(path) as f:
                got[lib] = json.load(f)
    kinds = Counter()
    for case, want, have in zip(cases(a.seed, a.n), got["jax"], got["astjax"]):
        if want == have:
            continue
        if want == "AssertionError" and have == "ShardingTypeError":
            kinds["jax asserts"] += 1
            continue
        err = ("error" if want.endswith("Error") else "type", "error" if have.endswith("Error")
               else "type")
        kinds[f"jax {err[0]} / astjax {err[1]}"] += 1
        print("differs:", case, "jax:", want, "astjax:", have)
    print(f"{a.n} cases, {sum(kinds.values())} differ:", dict(kinds))


if __name__ == "__main__":
    main()
