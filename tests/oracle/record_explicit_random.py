"""Random programs on a 2x2 mesh of Explicit axes under `jax.set_mesh` (JAX 0.10.2):
chains of three steps drawn with a fixed seed from `STEPS` -- values made inside
(`jnp.zeros`, `arange`, `eye`), `where` with constants, concatenation, `cond` / loops
with made values, gradients and `vmap` of them, reshards -- applied to arrays of
different layouts. Per program JAX's verdict: the error (class, first line) or the
results' types and values. Written by JAX 0.10.2 on 4 CPU devices
(XLA_FLAGS=--xla_force_host_platform_device_count=4) to explicit_random.json, read by
tests/test_explicit_random.py, both through record_explicit_control.py's runner."""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import record_explicit_control as control  # noqa: E402

PATH = Path(__file__).with_name("explicit_random.json")
COUNT, LENGTH, SEED = 16, 3, 9


def steps(jax, jnp):
    """name -> step(v, b): one more operation on the running value `v` ((4, 2) f32)
    and the second argument `b`."""
    lax, P = jax.lax, jax.sharding.PartitionSpec
    return {
        "add_zeros": lambda v, b: v + jnp.zeros((4, 2)),
        "where_constant": lambda v, b: jnp.where(v > 0, v, 0.5),
        "where_made": lambda v, b: jnp.where(v > 0, v, jnp.ones((4, 2))),
        "concatenate_made": lambda v, b: jnp.concatenate([v, jnp.zeros((4, 2))])[2:6],
        "times_arange": lambda v, b: v * jnp.arange(2.0),
        "add_b": lambda v, b: v + b,
        "cond_zeros_like": lambda v, b: lax.cond(v.sum() > 0, lambda u: u * 2,
                                                 lambda u: jnp.zeros_like(u), v),
        "fori_zeros_like": lambda v, b: lax.fori_loop(0, 2, lambda i, c: c + v,
                                                      jnp.zeros_like(v)),
        "fori_made": lambda v, b: lax.fori_loop(0, 2, lambda i, c: c + v, jnp.zeros((4, 2))),
        "grad_where": lambda v, b: jax.grad(lambda u: jnp.where(u > 0, u * u, 0.0).sum())(v),
        "grad_maximum": lambda v, b: jax.grad(lambda u: (jnp.maximum(u, 0.1) * b).sum())(v),
        "reshard_cols": lambda v, b: jax.reshard(v, P(None, "y")),
        "eye_dot": lambda v, b: jnp.eye(4) @ v,
        "vmap_where": lambda v, b: jax.vmap(lambda r: jnp.where(r > 0, r, 1.0))(v),
        "scan_rows": lambda v, b: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(2), v)[1],
        "full_like_minus": lambda v, b: jnp.full_like(v, 2.0) - v,
    }


def programs(jax, jnp, show):
    """name -> (function, argument names of record_explicit_control.arrays)."""
    table = steps(jax, jnp)
    rng = random.Random(SEED)
    out = {}
    for k in range(COUNT):
        chain = [rng.choice(sorted(table)) for _ in range(LENGTH)]
        args = (rng.choice(["x", "y", "rep_42"]), rng.choice(["x", "y"]))

        def program(a, b, chain=chain):
            v = a
            for s in chain:
                v = table[s](v, b)
            return v
        out[f"{k:02d}_" + "-".join(chain)] = (program, args)
    return out


def run_case(jax, jnp, name):
    """Program `name`, run as record_explicit_control runs its programs."""
    return control.run_case(jax, jnp, name, programs)


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, lambda jax, jnp: {n: run_case(jax, jnp, n) for n in programs(jax, jnp, None)})
