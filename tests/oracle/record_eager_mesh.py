"""Eager operations (outside `jit`) under `jax.set_mesh`: JAX 0.10.2 runs each as a
`jit` on the context mesh, so creation functions, arithmetic on uncommitted arrays,
reductions, PRNG draws, `new_ref` and `jnp.array` of host data give arrays laid out
over the mesh (committed, `P(None, ...)` on Explicit axes where the type names the
mesh, else `P()`), and an operand committed to another device is a ValueError. Per case and mesh kind: the result's sharding class,
spec, devices, `committed`, `jax.typeof` and value, or JAX's error. Run on JAX 0.10.2
with 4 CPU devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_eager_mesh.py`) to write eager_mesh.json; run on astjax by
tests/test_eager_mesh.py."""
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("eager_mesh.json")
# every case on the Explicit mesh; on the Auto one (results `P()`) these
AUTO = ("zeros", "add_uncommitted", "sin_uncommitted", "sharded_operand", "ref_value",
        "lax_add_committed", "array_list", "device_put_numpy", "normal")


def mesh_of(jax, kind):
    """The 2x2 mesh of Explicit or Auto axes."""
    t = getattr(jax.sharding.AxisType, kind.capitalize())
    return jax.make_mesh((2, 2), ("x", "y"), axis_types=(t, t))


def cases(jax, jnp, mesh):
    """name -> a function of no argument, called inside `set_mesh(mesh)`."""
    free = jnp.arange(4.0)                                            # uncommitted
    a1 = jax.device_put(np.arange(4, dtype=np.float32), jax.devices()[1])   # committed
    P = jax.sharding.PartitionSpec
    split = jax.device_put(np.arange(4.0, dtype=np.float32),
                           jax.sharding.NamedSharding(mesh, P("x")))

    def ref_value():
        r = jax.new_ref(jnp.zeros(3))
        r[...] = r[...] + 2
        return r[...]
    return {
        "zeros": lambda: jnp.zeros(3),
        "zeros_2d": lambda: jnp.zeros((4, 2)),
        "ones_int": lambda: jnp.ones(3, dtype=jnp.int32),
        "full": lambda: jnp.full((2, 3), 7.0),
        "arange": lambda: jnp.arange(4),
        "add_uncommitted": lambda: free + 1,
        "sin_uncommitted": lambda: jnp.sin(free),
        "add_numpy": lambda: free * np.ones(4, np.float32),
        "sum": lambda: jnp.ones((4, 2)).sum(),
        "matmul": lambda: jnp.ones((2, 3)) @ jnp.ones((3, 2)),
        "lax_add_committed": lambda: jax.lax.add(a1, a1),
        "add_committed_left": lambda: a1 + 1,
        "add_committed_right": lambda: free - a1,
        "new_ref_committed": lambda: jax.new_ref(a1)[...],
        "sharded_operand": lambda: split * 2,
        "normal": lambda: jax.random.normal(jax.random.key(0), (3,)),
        "ref_value": ref_value,
        "device_put_numpy": lambda: jax.device_put(np.ones(3, np.float32)),
        "array_list": lambda: jnp.array([1.0, 2.0]),
        "asarray_numpy": lambda: jnp.asarray(np.ones((2, 2), np.float32)),
        "array_then_add": lambda: jnp.array([1.0, 2.0]) + free[:2],
        "cond": lambda: jax.lax.cond(True, lambda a: a + 1, lambda a: a - 1, free),
        "scan": lambda: jax.lax.scan(lambda c, r: (c + r, c), 0.0, free)[0],
        "index": lambda: jnp.ones((2, 3))[1],
        "grad": lambda: jax.grad(lambda a: (a ** 2).sum())(free),
    }


def _error(e):
    # (astjax's errors carry the message apart from their location header)
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def describe(jax, r):
    """A result's sharding class, spec, device ids, committed, type and value."""
    s = r.sharding
    out = {"class": type(s).__name__, "devices": sorted(d.id for d in s.device_set),
           "committed": bool(r.committed), "type": str(jax.typeof(r)),
           "value": np.asarray(r).tolist()}
    if hasattr(s, "spec"):
        out["spec"] = repr(s.spec)
    return out


def run_case(jax, jnp, name, kind):
    """Case `name` under `set_mesh` of mesh `kind`."""
    mesh = mesh_of(jax, kind)
    fn = cases(jax, jnp, mesh)[name]
    with jax.set_mesh(mesh):
        try:
            return describe(jax, fn())
        except Exception as e:  # noqa: BLE001 -- the error is what is recorded
            return _error(e)


def run(jax, jnp):
    names = list(cases(jax, jnp, mesh_of(jax, "auto")))
    return {f"{kind}/{name}": run_case(jax, jnp, name, kind)
            for kind in ("explicit", "auto") for name in names
            if kind == "explicit" or name in AUTO}


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
