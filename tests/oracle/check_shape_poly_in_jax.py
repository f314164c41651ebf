"""The other direction of tests/test_shape_poly.py's artifact test: functions exported
by astjax for symbolic shapes load and run in JAX 0.10.2 (not part of CI: it needs
JAX). Run with astjax's interpreter:

    python tests/oracle/check_shape_poly_in_jax.py [/path/to/jax/python] [flatbuffers dir]

It exports every case of record_shape_poly.py with astjax, then runs the JAX
interpreter (default /work/jaxref/bin/python; JAX's deserializer needs the
`flatbuffers` package, on PYTHONPATH from the second argument if given) to
deserialize each artifact, compare its printed avals with JAX's own export's, call
it at every size of the case, and compare with the values JAX stored; a call with a
dimension variable of 0 must fail with JAX's shape-assertion message (the module's
`shape_assertion` custom calls)."""
import base64
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from record_shape_poly import CASES, functions, symbolic_args  # noqa: E402

_JAX_SIDE = r"""
import base64, json, sys
import numpy as np, jax
from jax import export
sys.path.insert(0, sys.argv[1])
from record_shape_poly import CASES
ref = json.load(open(sys.argv[2]))["cases"]
arts = json.load(sys.stdin)
bad = []
for name, a in arts.items():
    exp = export.deserialize(bytearray(base64.b64decode(a)))
    ok = ([str(x) for x in exp.in_avals] == ref[name]["in_avals"]
          and [str(x) for x in exp.out_avals] == ref[name]["out_avals"])
    dtype = CASES[name][1]
    for shapes, res in zip(CASES[name][2], ref[name]["results"]):
        xs = [np.arange(np.prod(s), dtype=dtype).reshape(s) % 7 for s in shapes]
        got = jax.tree_util.tree_leaves(exp.call(*xs))
        ok = ok and all(np.allclose(g, np.asarray(r), rtol=1e-5) for g, r in zip(got, res))
    if CASES[name][0] == ["b, 4"]:   # (one argument)
        try:
            exp.call(np.ones((0, 4), dtype))
            ok = False
        except ValueError as e:
            ok = ok and "Expected value >= 1 for dimension variable 'b'" in str(e)
    if not ok:
        bad.append(name)
print(json.dumps(bad))
"""


def main(argv):
    import astjax as jax
    import astjax.numpy as jnp
    from astjax import export, lax
    jax_python = argv[1] if len(argv) > 1 else "/work/jaxref/bin/python"
    fns = functions(jax, jnp, lax)
    arts = {}
    for name, (specs, dtype, sizes, constraints) in CASES.items():
        args = symbolic_args(jax, export, specs, dtype, sizes, constraints)
        exp = export.export(jax.jit(fns[name]))(*args)
        arts[name] = base64.b64encode(exp.serialize()).decode()
    env = dict(os.environ)
    if len(argv) > 2:
        env["PYTHONPATH"] = argv[2]
    run = subprocess.run([jax_python, "-c", _JAX_SIDE, str(HERE),
                          str(HERE / "shape_poly.json")], input=json.dumps(arts),
                         capture_output=True, text=True, env=env, check=True)
    bad = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"{len(arts) - len(bad)} of {len(arts)} astjax artifacts run in JAX as JAX's"
          + (f"; not: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
