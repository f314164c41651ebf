"""`jax.make_mesh`'s default axis types (Explicit in JAX 0.10.2) and `shard_map` /
`jit` whose in_specs / in_shardings do not match the arguments' layouts: per case the
result's spec, type and value, or JAX's error class and message. Eager,
inside `jit` and under `set_mesh`; unsharded NumPy / one-device arguments and arrays
laid out over the mesh. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_specs.py`) to write explicit_specs.json; run on astjax
by tests/test_explicit_specs.py."""
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("explicit_specs.json")


def cases(jax, jnp):
    """name -> a function of no argument (the mesh is made with make_mesh's defaults)."""
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"))
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    xs = jax.device_put(x, jax.sharding.NamedSharding(mesh, P("x")))

    def sm(i, o, m=mesh):
        return jax.shard_map(lambda a: a * 2, mesh=m, in_specs=i, out_specs=o)

    def in_context(f):
        def run():
            with jax.set_mesh(mesh):
                return f()
        return run
    return {
        "axis_types": lambda: repr(mesh.axis_types),
        "numpy_spec_x": lambda: sm(P("x"), P("x"))(x),
        "numpy_spec_none": lambda: sm(P(), P())(x),
        "numpy_out_none_1d": lambda: sm(P(), P(None))(x),
        "array_spec_x": lambda: sm(P("x"), P("x"))(jnp.asarray(x)),
        "sharded_spec_y": lambda: sm(P("y"), P("y"))(xs),
        "sharded_spec_none": lambda: sm(P(), P())(xs),
        "sharded_spec_x": lambda: sm(P("x"), P("x"))(xs),
        "jit_numpy_spec_x": lambda: jax.jit(sm(P("x"), P("x")))(x),
        "jit_numpy_spec_none": lambda: jax.jit(sm(P(), P()))(x),
        "jit_sharded_spec_y": lambda: jax.jit(sm(P("y"), P("y")))(xs),
        "jit_sharded_spec_x": lambda: jax.jit(sm(P("x"), P("x")))(xs),
        "jit_in_shardings_mismatch": lambda: jax.jit(
            lambda a: a * 2, in_shardings=jax.sharding.NamedSharding(mesh, P("y")))(xs),
        "jit_plain_sharded": lambda: jax.jit(lambda a: a * 2)(xs),
        "context_numpy_spec_x": in_context(lambda: jax.shard_map(
            lambda a: a * 2, in_specs=P("x"), out_specs=P("x"))(x)),
        "context_sharded_spec_y": in_context(lambda: jax.shard_map(
            lambda a: a * 2, in_specs=P("y"), out_specs=P("y"))(xs)),
        "reshard_outside_mesh": lambda: jax.reshard(x, P()),
        "constraint_outside_mesh": lambda: jax.lax.with_sharding_constraint(x, P()),
        "context_reshard_then_x": in_context(lambda: jax.shard_map(
            lambda a: a * 2, in_specs=P("x"), out_specs=P("x"))(jax.reshard(x, P("x")))),
    }


def run_case(jax, jnp, fn):
    """The case's result (spec, type, value) or JAX's error (class, message)."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return {"error": type(e).__name__, "message": getattr(e, "message", None) or str(e)}
    if isinstance(r, str):
        return {"repr": r}
    return {"spec": repr(r.sharding.spec), "type": str(jax.typeof(r)),
            "value": np.asarray(r).tolist()}


def run(jax, jnp):
    return {name: run_case(jax, jnp, fn) for name, fn in cases(jax, jnp).items()}


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
