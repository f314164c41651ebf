"""`vmap` of arrays whose mapped dimension is laid out over an Explicit mesh axis, as
JAX 0.10.2 handles that axis (its `explicit_mesh_axis`): an unbatched result broadcast
along the batch is laid out over it (`f32[4@x,2,4@y]`, also at another `out_axes`),
and JAX's ValueErrors where the mapped arguments disagree on it, an unmapped one is
sharded along it, or `spmd_axis_name` names another axis. Per case the results'
types, or JAX's error class and first message line. Run on JAX 0.10.2 with 4 CPU
devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_vmap_axis.py`) to write explicit_vmap_axis.json; run on
astjax by tests/test_explicit_mixed.py."""
import json
import sys
import warnings
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("explicit_vmap_axis.json")


def cases(jax, jnp):
    """name -> a function of no argument run under `set_mesh`, giving a result tree."""
    sh = jax.sharding
    P, NS = sh.PartitionSpec, sh.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(sh.AxisType.Explicit,) * 2)

    def put(shape, *spec):
        return jax.device_put(np.arange(np.prod(shape), dtype=np.float32).reshape(shape),
                              NS(mesh, P(*spec)))
    x, x_y = put((4, 3), "x"), put((4, 3), "y")
    w, w_x = put((2, 4), None, "y"), put((4, 4), "x")
    vmap = jax.vmap

    def twice(r, v):
        return v * 2
    return mesh, {
        "unbatched_result_jit": lambda: jax.jit(vmap(twice, in_axes=(0, None)))(x, w),
        "unbatched_result_eager": lambda: vmap(twice, in_axes=(0, None))(x, w),
        "unbatched_reduction": lambda: jax.jit(vmap(lambda r, v: (r, v.sum()),
                                                    in_axes=(0, None)))(x, w),
        "unbatched_out_axes_1": lambda: jax.jit(vmap(twice, in_axes=(0, None),
                                                     out_axes=1))(x, w),
        "unbatched_unsharded_batch": lambda: jax.jit(vmap(twice, in_axes=(1, None)))(x, w),
        "unmapped_sharded_along_axis": lambda: vmap(lambda r, v: v, in_axes=(0, None))(x, w_x),
        "mapped_inconsistent": lambda: vmap(lambda r, v: r + v)(x, x_y),
        "spmd_axis_name_other": lambda: vmap(lambda r: r, spmd_axis_name="y")(x),
        "spmd_axis_name_same": lambda: vmap(lambda r: r, spmd_axis_name="x")(x),
    }


def run_case(jax, jnp, name):
    """Case `name`'s outcome: the results' types and values, or JAX's error."""
    mesh, table = cases(jax, jnp)
    with warnings.catch_warnings(), jax.set_mesh(mesh):
        warnings.simplefilter("ignore")
        try:
            leaves = jax.tree_util.tree_leaves(table[name]())
        except Exception as e:   # (the error is the outcome)
            return {"error": type(e).__name__ if type(e).__module__.startswith("builtins")
                    else [c.__name__ for c in type(e).__mro__
                          if c.__module__ == "builtins"][0],
                    "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}
    return {"types": [str(jax.typeof(v)) for v in leaves],
            "values": [np.asarray(v).tolist() for v in leaves]}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert len(jax.devices()) >= 4, "run with --xla_force_host_platform_device_count=4"
    out = {name: run_case(jax, jnp, name) for name in cases(jax, jnp)[1]}
    PATH.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(json.dumps({k: v.get("types", v) for k, v in out.items()}, indent=1),
          file=sys.stderr)
