"""The other direction of tests/test_export_sharded.py: multi-device functions
exported and serialized by astjax load and run in JAX 0.10.2 with JAX's values and
layouts (those stored in export_sharded.json). Not part of CI: it needs JAX. Run
with astjax's interpreter, 4 CPU devices on both sides:

    ASTJAX_NUM_CPU_DEVICES=4 python tests/oracle/check_export_sharded_in_jax.py \\
        [/path/to/jax/python] [flatbuffers dir]

It exports the cases of record_export_sharded.py with astjax (`vjp_order=1`), then
the JAX interpreter (default /work/jaxref/bin/python, with
`--xla_force_host_platform_device_count=4`) deserializes each artifact, checks
`nr_devices` and `in_shardings_jax(mesh)`, and runs `jit(exp.call)` and the
gradient through the stored VJP on arguments laid out by those shardings."""
import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import record_export_sharded as rec  # noqa: E402

_JAX_SIDE = r"""
import base64, json, sys
import numpy as np, jax
from jax import export
sys.path.insert(0, sys.argv[1])
import record_export_sharded as rec
cases = json.load(sys.stdin)
out = {}
for name, artifact in cases.items():
    exp = export.deserialize(bytearray(base64.b64decode(artifact)))
    mesh = rec.mesh_of(jax, name)
    xs = [np.asarray(a, np.float32) for a in rec.CASES[name][2]]
    ins = exp.in_shardings_jax(mesh)
    placed = [jax.device_put(x, s or rec.replicated(jax, mesh)) for x, s in zip(xs, ins)]
    leaves = jax.tree_util.tree_leaves(jax.jit(exp.call)(*placed))
    loss = lambda a: jax.tree_util.tree_leaves(exp.call(a, *placed[1:]))[0].sum()
    grad = jax.jit(jax.grad(loss))(placed[0])
    out[name] = {"nr_devices": exp.nr_devices, "in_shardings_jax": [repr(s) for s in ins],
                 "result": [np.asarray(r).tolist() for r in leaves],
                 "result_specs": [str(r.sharding.spec) for r in leaves],
                 "grad": np.asarray(grad).tolist(), "grad_spec": str(grad.sharding.spec)}
json.dump(out, sys.stdout)
"""


def main(argv):
    import contextlib

    import astjax as jax
    import astjax.numpy as jnp
    from astjax import export
    jax_python = argv[1] if len(argv) > 1 else "/work/jaxref/bin/python"
    cases = {}
    for name, (_, _, args) in rec.CASES.items():
        mesh = rec.mesh_of(jax, name)
        ctx = jax.set_mesh(mesh) if name == "pspec_under_mesh" else contextlib.nullcontext()
        with ctx:
            exp = export.export(rec.functions(jax, jnp, name, mesh))(
                *[np.asarray(a, np.float32) for a in args])
        cases[name] = base64.b64encode(exp.serialize(vjp_order=1)).decode()
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4")
    if len(argv) > 2:
        env["PYTHONPATH"] = argv[2]
    run = subprocess.run([jax_python, "-c", _JAX_SIDE, str(Path(__file__).parent)],
                         input=json.dumps(cases), env=env, capture_output=True, text=True,
                         cwd="/")
    if run.returncode:
        print(run.stderr[-3000:])
        return 1
    got = json.loads(run.stdout)
    want = json.loads(Path(__file__).with_name("export_sharded.json").read_text())
    rows = [(name, what, ok) for name in cases
            for what, ok in _comparison(got[name], want[name]).items()]
    for name, what, ok in rows:
        print(f"{name:20s} {what:18s} {'ok' if ok else 'DIFFERS'}")
    failed = [row for row in rows if not row[2]]
    print(f"{len(cases)} astjax multi-device artifacts run by JAX: {len(failed)} differences")
    return 1 if failed else 0


def _comparison(g, w):
    """What JAX showed of an astjax artifact (`g`) against what it shows of its own
    (`w`): per field, whether they agree."""
    return {"nr_devices": g["nr_devices"] == w["nr_devices"],
            "in_shardings_jax": g["in_shardings_jax"] == w["in_shardings_jax"],
            "result": all(np.allclose(a, b, rtol=2e-6, atol=2e-6)
                          for a, b in zip(g["result"], w["result"])),
            "result_specs": g["result_specs"] == w["result_specs"],
            "grad": np.allclose(g["grad"], w["grad"], rtol=1e-5, atol=1e-6),
            "grad_spec": g["grad_spec"] == w["grad_spec"]}

if __name__ == "__main__":
    sys.exit(main(sys.argv))
