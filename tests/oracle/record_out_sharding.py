"""`out_sharding=` of the jnp creation functions and of `bincount`, `broadcast_to`,
`repeat`, `percentile` on the Explicit 2x2 mesh of record_explicit_types.py: per
case the result's layout inside `jit` and outside it, `jax.typeof(r)` inside `jit`,
or JAX's error. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_out_sharding.py`) to write out_sharding.json; run on astjax by
tests/test_out_sharding.py."""
import json
import sys
from pathlib import Path

import numpy as np

try:                                        # as tests/oracle/... from the tests
    from oracle import record_explicit_types as rec
except ImportError:                         # run as a script in tests/oracle
    import record_explicit_types as rec

PATH = Path(__file__).with_name("out_sharding.json")


def cases(jax, jnp, mesh):
    """name -> (function, argument names of `rec.arrays`), run under `jax.set_mesh(mesh)`
    (JAX 0.10.2 needs the mesh context for `out_sharding`), except `OUTSIDE_MESH`."""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    def ns(*spec):
        return NamedSharding(mesh, P(*spec))
    auto = jax.sharding.Mesh(mesh.devices, ("x", "y"))
    return {
        "zeros": (lambda: jnp.zeros((4, 4), out_sharding=ns("x", "y")), ()),
        "ones_int": (lambda: jnp.ones((4, 2), jnp.int32, out_sharding=ns(None, "y")), ()),
        "empty": (lambda: jnp.empty(4, out_sharding=ns("x")), ()),
        "full": (lambda: jnp.full((4, 4), 2.5, out_sharding=ns("y", None)), ()),
        "full_array_fill": (lambda: jnp.full((4, 4), jnp.arange(4.), out_sharding=ns(None, "x")),
                            ()),
        "zeros_like": (lambda x: jnp.zeros_like(x, out_sharding=ns(None, "x")), ("xy",)),
        "ones_like": (lambda x: jnp.ones_like(x, out_sharding=ns("y")), ("rep",)),
        "full_like": (lambda x: jnp.full_like(x, 3, out_sharding=ns("x", "y")), ("rep",)),
        "arange": (lambda: jnp.arange(8, out_sharding=ns("x")), ()),
        "arange_float": (lambda: jnp.arange(0., 4., .5, out_sharding=ns(("x", "y"))), ()),
        "array": (lambda: jnp.array(np.arange(8.), out_sharding=ns("y")), ()),
        "array_of_array": (lambda x: jnp.array(x, out_sharding=ns("y", "x")), ("xy",)),
        "asarray": (lambda x: jnp.asarray(x, out_sharding=ns(None, None)), ("xy",)),
        "bincount": (lambda: jnp.bincount(jnp.array([0, 1, 1, 3]), length=4,
                                          out_sharding=ns()), ()),
        "bincount_sharded": (lambda: jnp.bincount(jnp.array([0, 1, 1, 3]), length=4,
                                                  out_sharding=ns("x")), ()),
        "broadcast_to": (lambda x: jnp.broadcast_to(x[0], (4, 4), out_sharding=ns(None, "y")),
                         ("_y",)),
        "broadcast_to_mismatch": (lambda x: jnp.broadcast_to(x[0], (4, 4),
                                                             out_sharding=ns("x", None)),
                                  ("_y",)),
        "repeat": (lambda x: jnp.repeat(x, 2, axis=0, out_sharding=ns("x", "y")), ("xy",)),
        "percentile": (lambda x: jnp.percentile(x, 50., axis=0, out_sharding=ns("y")), ("xy",)),
        "zeros_pspec": (lambda: jnp.zeros((4, 4), out_sharding=P("y")), ()),
        "arange_pspec": (lambda: jnp.arange(4, out_sharding=P("x")), ()),
        "err_pspec_without_mesh": (lambda: jnp.zeros(4, out_sharding=P("x")), ()),
        "err_auto_axes": (lambda: jnp.zeros(4, out_sharding=NamedSharding(auto, P("x"))), ()),
        "err_device_and_out_sharding": (lambda: jnp.ones(
            4, device=jax.devices()[0], out_sharding=ns("x")), ()),
        "err_not_a_sharding": (lambda: jnp.zeros(4, out_sharding="x"), ()),
    }


OUTSIDE_MESH = ("err_pspec_without_mesh",)


def run_case(jax, jnp, name, fn, names, arrs, mesh, outside=OUTSIDE_MESH):
    """`record_explicit_types.run_case` of one case, under `jax.set_mesh(mesh)` unless
    it is one of `outside`."""
    if name in outside:
        return rec.run_case(jax, jnp, fn, names, arrs)
    with jax.set_mesh(mesh):
        return rec.run_case(jax, jnp, fn, names, arrs)


def run(jax, jnp, table=cases, outside=OUTSIDE_MESH):
    """Every case of `table(jax, jnp, mesh)` (default: this module's) recorded."""
    arrs = rec.arrays(jax)
    mesh = arrs["xy"].sharding.mesh
    return {name: run_case(jax, jnp, name, fn, names, arrs, mesh, outside)
            for name, (fn, names) in table(jax, jnp, mesh).items()}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
