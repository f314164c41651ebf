"""A partitioned (sharded) `jit` lowered for other and several platforms
(`jit(f).trace(x).lower(lowering_platforms=...)`) and `jax.export(f,
platforms=...)` of one, over a 2x2 mesh of Auto axes: the lowered module text (JAX's
`stablehlo.mesh` copy of each mesh attribute left out, as
`record_export_sharded.module_summary` leaves it out), `.compile()` of a
multi-platform lowering (JAX's error), and of each export its platforms, device count,
module summary and the value its CPU branch computes. Run on JAX 0.10.2 with 4 CPU
devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_multiplatform_sharded.py`) to write multiplatform_sharded.json;
run on astjax by tests/test_multiplatform_sharded.py."""
import json
import re
import sys
from pathlib import Path

import numpy as np

try:                                        # as tests/oracle/... from the tests
    from oracle import record_export_sharded as exp_rec
except ImportError:                         # run as a script in tests/oracle
    import record_export_sharded as exp_rec

PATH = Path(__file__).with_name("multiplatform_sharded.json")
PLATFORMS = (("cpu", "cuda"), ("cuda",), ("cpu", "tpu"), ("cpu",))
X = np.arange(16.0, dtype=np.float32).reshape(4, 4)


def functions(jax, jnp):
    """name -> (jitted function, its argument laid out over the mesh)."""
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    x = jax.device_put(X, NS(mesh, P("x", "y")))
    return {
        "out_shardings": (jax.jit(lambda a: jnp.sin(a) * 2, out_shardings=NS(mesh, P("x", None))),
                          x),
        "in_shardings": (jax.jit(lambda a: (a * a.T).sum(0) + 1.0,
                                 in_shardings=NS(mesh, P(None, "y"))),
                         jax.device_put(X, NS(mesh, P(None, "y")))),
        "shard_map": (jax.jit(jax.shard_map(lambda v: jax.lax.psum(jnp.cos(v), "x") + 1.0,
                                            mesh=mesh, in_specs=P("x", "y"),
                                            out_specs=P(None, "y"))), x),
    }


def normalized(text):
    """Module text without the `stablehlo.mesh` copies of the mesh declarations."""
    return re.sub(r" \{stablehlo\.mesh = \{axes = \[[^]]*\]\}\}", "", text)


def _error(e):
    # (astjax's errors carry the message apart from their location header)
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def lowered(jax, fn, x, platforms):
    """The lowered text for `platforms`, or the error."""
    try:
        return {"text": normalized(fn.trace(x).lower(lowering_platforms=platforms).as_text())}
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return _error(e)


def compiled(jax, fn, x, platforms):
    """`.compile()` of the lowering for `platforms`: its result on `x`, or the error."""
    try:
        return {"value": np.asarray(fn.trace(x).lower(lowering_platforms=platforms)
                                    .compile()(x)).tolist()}
    except Exception as e:  # noqa: BLE001
        return _error(e)


def exported(jax, fn, x, platforms):
    """The export for `platforms`: platforms, device count, module summary and (when
    it holds a CPU branch) the value its call computes on `x`."""
    try:
        e = jax.export.export(fn, platforms=platforms)(x)
        out = {"platforms": list(e.platforms), "nr_devices": e.nr_devices,
               "module": exp_rec.module_summary(e.mlir_module())}
        if "cpu" in platforms:
            out["value"] = np.asarray(e.call(x)).tolist()
        return out
    except Exception as e:  # noqa: BLE001
        return _error(e)


def run(jax, jnp):
    out = {}
    for name, (fn, x) in functions(jax, jnp).items():
        for ps in PLATFORMS:
            key = f"{name}/{'+'.join(ps)}"
            out[f"lower/{key}"] = lowered(jax, fn, x, ps)
            out[f"export/{key}"] = exported(jax, fn, x, ps)
        out[f"compile/{name}/cpu+cuda"] = compiled(jax, fn, x, ("cpu", "cuda"))
        out[f"compile/{name}/cpu"] = compiled(jax, fn, x, ("cpu",))
    return out


if __name__ == "__main__":
    import jax
    import jax.export  # noqa: F401
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
