"""Where JAX 0.10.2 puts PRNG keys, references, `pure_callback` results and token
programs under `jax.set_mesh` (Explicit and Auto 2x2 meshes): per case the object's
class, `jax.typeof`, its `.sharding` (class, spec, device ids), `committed` and value;
for the token programs also their lowered module text (a partitioned program whose
`@main` takes and returns `!stablehlo.token`s). Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_mesh_objects.py`) to write mesh_objects.json; run on astjax by
tests/test_mesh_objects.py."""
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("mesh_objects.json")
KINDS = ("explicit", "auto")


def mesh_of(jax, kind):
    """The 2x2 mesh of Explicit or Auto axes."""
    t = getattr(jax.sharding.AxisType, kind.capitalize())
    return jax.make_mesh((2, 2), ("x", "y"), axis_types=(t, t))


def cases(jax, jnp, mesh):
    """name -> a function of no argument, called inside `set_mesh(mesh)`."""
    P, NS, random = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.random
    x = jax.device_put(np.arange(4.0, dtype=np.float32), NS(mesh, P("x")))
    out = jax.ShapeDtypeStruct((3,), jnp.float32)

    def double(b):
        return np.asarray(b) * 2
    return {
        "key": lambda: random.key(0),
        "key_split": lambda: random.split(random.key(0)),
        "key_data": lambda: random.key_data(random.key(0)),
        "key_data_split": lambda: random.key_data(random.split(random.key(0))),
        "prng_key": lambda: random.PRNGKey(0),
        "jit_key": lambda: jax.jit(lambda: random.key(1))(),
        "ref": lambda: jax.new_ref(jnp.zeros(3)),
        "ref_numpy": lambda: jax.new_ref(np.zeros(3, np.float32)),
        "ref_sharded": lambda: jax.new_ref(x),
        "pure_callback": lambda: jax.pure_callback(double, out, jnp.ones(3)),
        "pure_callback_jit": lambda: jax.jit(lambda a: jax.pure_callback(double, out, a))(
            jnp.ones(3)),
        "pure_callback_jit_then_add": lambda: jax.jit(
            lambda a: jax.pure_callback(double, out, a) + 1)(jnp.ones(3)),
        "token_and_sharded": lambda: jax.jit(lambda t, a: (t, a + 1))(
            jax.lax.create_token(), x),
        "token_made_inside": lambda: jax.jit(lambda a: (jax.lax.create_token(), a * 2))(
            jnp.ones(3)),
    }


def _error(e):
    # (astjax's errors carry the message apart from their location header)
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def describe(jax, r):
    """An object's class, type, and, where it has them, sharding and value."""
    out = {"class": type(r).__name__, "type": str(jax.typeof(r))}
    if type(r).__name__ == "Token":
        return out
    s = r.sharding
    out.update({"sharding": type(s).__name__, "devices": sorted(d.id for d in s.device_set),
                "committed": bool(r.committed)})
    if hasattr(s, "spec"):
        out["spec"] = repr(s.spec)
    if out["class"] == "Ref":
        r = r[...]
    if "key<" not in out["type"]:
        out["value"] = np.asarray(r).tolist()
    return out


def run_case(jax, jnp, name, kind):
    """Case `name` under `set_mesh` of mesh `kind`: its results described (tokens
    programs: also the lowered text), or the error."""
    mesh = mesh_of(jax, kind)
    fn = cases(jax, jnp, mesh)[name]
    with jax.set_mesh(mesh):
        try:
            r = fn()
            return [describe(jax, o) for o in (r if isinstance(r, tuple) else (r,))]
        except Exception as e:  # noqa: BLE001 -- the error is what is recorded
            return _error(e)


def lowered(jax, jnp):
    """The module texts of the token programs under `set_mesh` of the Explicit mesh."""
    mesh = mesh_of(jax, "explicit")
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    x = jax.device_put(np.arange(4.0, dtype=np.float32), NS(mesh, P("x")))
    with jax.set_mesh(mesh):
        return {"token_and_sharded": jax.jit(lambda t, a: (t, a + 1)).lower(
                    jax.lax.create_token(), x).as_text(),
                "token_made_inside": jax.jit(lambda a: (jax.lax.create_token(), a * 2)).lower(
                    jnp.ones(3)).as_text()}


def run(jax, jnp):
    out = {f"{kind}/{name}": run_case(jax, jnp, name, kind)
           for kind in KINDS for name in cases(jax, jnp, mesh_of(jax, "auto"))}
    out["lowered"] = lowered(jax, jnp)
    return out


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
