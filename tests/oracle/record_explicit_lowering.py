"""Module texts JAX 0.10.2 lowers for `jit` on a mesh of Explicit axes (Shardy): an
`sdy.sharding_constraint` after each operation whose type names the mesh, and the
`{stablehlo.mesh = ...}` attribute on the `sdy.mesh` symbol; one-device jits of
arguments committed to their device (annotated over the empty mesh). Per program its
`Lowered.as_text()`. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_lowering.py`) to write explicit_lowering.json; run on
astjax by tests/test_explicit_lowering.py."""
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("explicit_lowering.json")


def programs(jax, jnp):
    """name -> a function of no argument returning the Lowered text."""
    P = jax.sharding.PartitionSpec
    NS = jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    x = jax.device_put(np.arange(8.0, dtype=np.float32).reshape(4, 2), NS(mesh, P("x")))
    w = jax.device_put(np.ones((2, 4), np.float32), NS(mesh, P(None, "y")))

    def lowered(f, *args):
        def text():
            with jax.set_mesh(mesh):
                return jax.jit(f).lower(*args).as_text()
        return text
    return {
        "elementwise": lowered(lambda a: jnp.sin(a) * 2, x),
        "add_two": lowered(lambda a, b: a + b, x, x),
        "dot_out_sharding": lowered(lambda a, b: jnp.dot(a, b, out_sharding=P("x", "y")), x, w),
        "reshard": lowered(lambda a: jax.reshard(a, P(None, "y")) + 1, x),
        "sum": lowered(lambda a: a.sum(axis=0), x),
        # one-device jits: an argument committed to its device annotated over the
        # empty mesh, an uncommitted one not
        "committed_second": lambda: jax.jit(lambda a, b: a + b).lower(
            np.ones(3, np.float32), jax.device_put(np.ones(3, np.float32),
                                                   jax.devices()[0])).as_text(),
        "committed_scalar": lambda: jax.jit(lambda a: a * 2).lower(
            jax.device_put(np.float32(1), jax.devices()[1])).as_text(),
        "uncommitted": lambda: jax.jit(lambda a: a * 2).lower(jnp.ones(3)).as_text(),
    }


def run(jax, jnp):
    return {name: f() for name, f in programs(jax, jnp).items()}


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
