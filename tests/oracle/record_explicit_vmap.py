"""`vmap` of functions staged under `jax.set_mesh` of a 2x2 mesh of Explicit axes
(JAX 0.10.2): JAX types the mapped function as it traces it, one value of the batch
(the argument's type without its mapped dimension: `jax.typeof` inside, the specs
named in its errors -- a `scan` over an axis sharded before batching raises JAX's
ValueError "0th dimension of all xs should be replicated. Got P('x',)"), and raises
nothing for the values a batching rule makes (a `where`'s broadcast constant, a
batched `cond`'s branches). Per program the types seen inside, the results' types and
values, the laid-out constraints; or JAX's error. Written by JAX 0.10.2 on 4 CPU devices
(XLA_FLAGS=--xla_force_host_platform_device_count=4) to explicit_vmap.json, read by
tests/test_explicit_vmap.py, both through record_explicit_control.py's runner."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import record_explicit_control as control  # noqa: E402

PATH = Path(__file__).with_name("explicit_vmap.json")


def programs(jax, jnp, show):
    """name -> (function, argument names of record_explicit_control.arrays)."""
    lax = jax.lax

    def scan(v):
        return lax.scan(lambda c, r: (c + r, c * r), 0.0, v)

    def two_xs(v, w):
        return lax.scan(lambda c, r: (c + r[0] * r[1], c), 0.0, (v, w))
    return {
        # the scanned axis sharded in the mapped function's view: JAX's ValueError
        "scan_in_axes_1": (jax.vmap(scan, in_axes=1), ("x",)),
        "scan_in_axes_0": (jax.vmap(scan, in_axes=0), ("x_cols",)),
        "scan_both_sharded": (jax.vmap(scan, in_axes=1), ("xy",)),
        "map_in_axes_1": (jax.vmap(lambda v: lax.map(jnp.sin, v), in_axes=1), ("x",)),
        "scan_two_xs": (lambda a: jax.vmap(two_xs, in_axes=(1, None))(a, jnp.ones(4)), ("x",)),
        "scan_before_out_axes": (jax.vmap(scan, in_axes=1, out_axes=1), ("x",)),
        "grad_of_vmap": (jax.grad(lambda a: jax.vmap(scan, in_axes=1)(a)[1].sum()), ("x",)),
        # types inside: the argument's type without its mapped dimension
        "typeof_in_axes_1": (jax.vmap(lambda r: show(r) * 2, in_axes=1), ("xy",)),
        "typeof_in_axes_0": (jax.vmap(lambda r: show(jnp.sin(r)), in_axes=0), ("xy",)),
        "scan_free_rows": (jax.vmap(scan, in_axes=0), ("x",)),
        # values a batching rule makes raise nothing
        "where_constant": (jax.vmap(lambda r: jnp.where(r > 2, r, 0.0), in_axes=1),
                           ("x_cols",)),
        "cond_made_branch": (jax.vmap(lambda r: lax.cond(
            r.sum() > 2, lambda u: u * 2, lambda u: jnp.zeros(4), r), in_axes=1), ("x_cols",)),
        # JAX 0.10.2's scan batching rule fails on a scalar carry beside xs mapped over
        # a sharded axis (its ValueError names an empty mesh)
        "scan_carry_beside_sharded_batch": (jax.vmap(scan, in_axes=1), ("x_cols",)),
    }


def run_case(jax, jnp, name):
    """Program `name`, run as record_explicit_control runs its programs."""
    return control.run_case(jax, jnp, name, programs)


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, lambda jax, jnp: {n: run_case(jax, jnp, n) for n in programs(jax, jnp, None)})
