"""The other direction of tests/test_export_jax_artifacts.py: functions exported and
serialized by astjax load and run in JAX 0.10.2 with astjax's results (not part of
CI: it needs JAX). Run with astjax's interpreter:

    python tests/oracle/check_export_in_jax.py [/path/to/jax/python] [flatbuffers dir]

It exports the cases of record_export.py with astjax (`vjp_order=1`), then runs the
JAX interpreter (default /work/jaxref/bin/python; JAX's deserializer needs the
`flatbuffers` package, on PYTHONPATH from the second argument if given) to
deserialize each artifact, call it eagerly and under `jit`, take the gradient of the
first result leaf's sum through the stored VJP, and compare with astjax's values."""
import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from record_export import ARGS, PLATFORMS, functions  # noqa: E402

_JAX_SIDE = r"""
import base64, json, sys
import numpy as np, jax
from jax import export
cases = json.load(sys.stdin)
out = {}
for name, c in cases.items():
    exp = export.deserialize(bytearray(base64.b64decode(c["artifact"])))
    xs = [np.asarray(a, c["dtype"]) for a in c["args"]]
    res = [np.asarray(r).tolist() for r in jax.tree_util.tree_leaves(exp.call(*xs, **c["kwargs"]))]
    jit_res = [np.asarray(r).tolist()
               for r in jax.tree_util.tree_leaves(jax.jit(exp.call)(*xs, **c["kwargs"]))]
    case = {"result": res, "jit": jit_res}
    if c["dtype"] == "float32":
        first = lambda a: jax.tree_util.tree_leaves(exp.call(a, *xs[1:], **c["kwargs"]))[0].sum()
        case["grad"] = np.asarray(jax.grad(first)(xs[0])).tolist()
    out[name] = case
json.dump(out, sys.stdout)
"""


def main(argv):
    import astjax as jax
    import astjax.numpy as jnp
    from astjax import export
    jax_python = argv[1] if len(argv) > 1 else "/work/jaxref/bin/python"
    cases, expected = {}, {}
    for name, fn in functions(jax, jnp).items():
        args, dtype, kwargs = ARGS[name]
        xs = [np.asarray(a, dtype) for a in args]
        jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
        exp = export.export(jitted, platforms=PLATFORMS.get(name))(*xs, **kwargs)
        cases[name] = {"artifact": base64.b64encode(exp.serialize(vjp_order=1)).decode(),
                       "args": args, "dtype": dtype, "kwargs": kwargs}
        want = {"result": [np.asarray(r) for r in jax.tree_util.tree_leaves(fn(*xs, **kwargs))]}
        if dtype == "float32":
            want["grad"] = np.asarray(jax.grad(
                lambda a: jax.tree_util.tree_leaves(fn(a, *xs[1:], **kwargs))[0].sum())(xs[0]))
        expected[name] = want
    env = dict(os.environ)
    if len(argv) > 2:
        env["PYTHONPATH"] = argv[2]
    run = subprocess.run([jax_python, "-c", _JAX_SIDE], input=json.dumps(cases), env=env,
                         capture_output=True, text=True, cwd="/")
    if run.returncode:
        print(run.stderr[-3000:])
        return 1
    got = json.loads(run.stdout)
    bad = 0
    for name, want in expected.items():
        for key in ("result", "jit"):
            for g, w in zip(got[name][key], want["result"]):
                ok = np.allclose(np.asarray(g), w, rtol=1e-6, atol=1e-6)
                bad += not ok
                print(f"{name:16s} {key:6s} {'ok' if ok else 'DIFFERS'}")
        if "grad" in want:
            ok = np.allclose(got[name]["grad"], want["grad"], rtol=1e-5)
            bad += not ok
            print(f"{name:16s} grad   {'ok' if ok else 'DIFFERS'}")
    print(f"{len(expected)} astjax artifacts run by JAX: {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
