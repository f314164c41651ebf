"""`out_sharding=` of `lax.broadcasted_iota` / `lax.reduce_sum` / the `jax.random`
samplers and `sharding=` of `lax.full` / `lax.full_like` on the Explicit 2x2 mesh of
record_explicit_types.py: per case the result's layout inside `jit` and outside it,
`jax.typeof(r)` inside `jit`, or JAX's error. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_lax_sharding_gaps.py`) to write lax_sharding_gaps.json; run on
astjax by tests/test_lax_sharding_gaps.py."""
import json
import sys
from pathlib import Path

try:                                        # as tests/oracle/... from the tests
    from oracle import record_out_sharding as out_rec
except ImportError:                         # run as a script in tests/oracle
    import record_out_sharding as out_rec

PATH = Path(__file__).with_name("lax_sharding_gaps.json")


def cases(jax, jnp, mesh):
    """name -> (function, argument names of `record_explicit_types.arrays`), run under
    `jax.set_mesh(mesh)` except `OUTSIDE_MESH`."""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    lax, random = jax.lax, jax.random

    def ns(*spec):
        return NamedSharding(mesh, P(*spec))

    def key():
        return random.key(3)
    return {
        "iota": (lambda: lax.broadcasted_iota(jnp.int32, (4, 4), 1, out_sharding=ns("x", "y")),
                 ()),
        "iota_pspec": (lambda: lax.broadcasted_iota(jnp.float32, (4, 2), 0,
                                                    out_sharding=P("y")), ()),
        "reduce_sum": (lambda x: lax.reduce_sum(x, (0,), out_sharding=ns("y")), ("xy",)),
        "reduce_sum_pspec": (lambda x: lax.reduce_sum(x, (1,), out_sharding=P("x")), ("xy",)),
        "reduce_sum_none": (lambda x: lax.reduce_sum(x, (1,), out_sharding=None), ("xy",)),
        "full": (lambda: lax.full((4, 4), 2.5, sharding=ns("x", "y")), ()),
        "full_int": (lambda: lax.full((4,), 3, jnp.int32, sharding=ns("y")), ()),
        "full_like": (lambda x: lax.full_like(x, 1.5, sharding=ns(None, "y")), ("rep",)),
        "full_like_keeps_x": (lambda x: lax.full_like(x, 1.5), ("xy",)),
        "normal": (lambda: random.normal(key(), (4, 4), out_sharding=ns("x", "y")), ()),
        "uniform_pspec": (lambda: random.uniform(key(), (4,), out_sharding=P("y")), ()),
        "bits": (lambda: random.bits(key(), (4, 2), out_sharding=P("x")), ()),
        "bernoulli": (lambda: random.bernoulli(key(), 0.3, (4,), out_sharding=P("x")), ()),
        "permutation": (lambda: random.permutation(key(), 8, out_sharding=P("x")), ()),
        "cauchy": (lambda: random.cauchy(key(), (4,), out_sharding=P(("x", "y"))), ()),
        "err_sampler_not_a_sharding": (lambda: random.normal(key(), (4,), out_sharding="x"), ()),
        "err_sampler_pspec_without_mesh": (lambda: random.normal(key(), (4,),
                                                                 out_sharding=P("x")), ()),
        "err_iota_pspec_without_mesh": (lambda: lax.broadcasted_iota(
            jnp.int32, (4,), 0, out_sharding=P("x")), ()),
    }


OUTSIDE_MESH = ("err_sampler_pspec_without_mesh", "err_iota_pspec_without_mesh")


def run_case(jax, jnp, name, fn, names, arrs, mesh):
    """`record_out_sharding.run_case` of one of these cases."""
    return out_rec.run_case(jax, jnp, name, fn, names, arrs, mesh, OUTSIDE_MESH)


def run(jax, jnp):
    return out_rec.run(jax, jnp, cases, OUTSIDE_MESH)


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
