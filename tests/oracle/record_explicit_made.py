"""Values made inside a `jit` under `jax.set_mesh` of a 2x2 mesh of Explicit axes
(JAX 0.10.2): `jnp.zeros` / `full` / `arange` / `eye` / `ones_like`, iotas, random
draws, with and without `out_sharding=`, a callback's result, and operands of
another layout than an elementwise operation's result (laid out as the result
first) -- `jax.typeof` inside, the results' types and values, the laid-out
`sdy.sharding_constraint`s; or JAX's error (a made value of another layout
concatenated, carried by a loop or returned by one branch). Run on JAX 0.10.2 with 4
CPU devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_made.py`) to write explicit_made.json; run on astjax by
tests/test_explicit_made.py (with record_explicit_control.py's arrays and runner)."""
from pathlib import Path

import numpy as np

try:                                        # as tests/oracle/... from the tests
    from oracle import record_explicit_control as control
except ImportError:                         # run as a script in tests/oracle
    import record_explicit_control as control

PATH = Path(__file__).with_name("explicit_made.json")


def programs(jax, jnp, show):
    """name -> (function, argument names of record_explicit_control.arrays)."""
    lax, P = jax.lax, jax.sharding.PartitionSpec
    callback = (lambda a: show(jax.pure_callback(lambda v: np.asarray(v) * 2, jax.ShapeDtypeStruct(
        (4, 2), jnp.float32), a)) + a)
    return {
        "zeros": (lambda a: a * show(jnp.zeros((4, 2))), ("x",)),
        "zeros_out_sharding": (lambda a: show(jnp.zeros((4, 2), out_sharding=P(None, "y"))) * 2,
                               ("x",)),
        "full_out_sharding": (lambda a: a + show(jnp.full((4, 2), 3.0, out_sharding=P("x"))),
                              ("x",)),
        "arange_out_sharding": (lambda a: show(jnp.arange(8.0, out_sharding=P("x"))) + 1,
                                ("x",)),
        "ones_like": (lambda a: show(jnp.ones_like(a)) - a, ("y",)),
        "arange": (lambda a: a + show(jnp.arange(2.0)), ("x",)),
        "iota_2d": (lambda a: a * show(lax.broadcasted_iota(jnp.float32, (4, 2), 1)), ("y",)),
        "normal_out_sharding": (lambda a: a + show(jax.random.normal(
            jax.random.key(0), (4, 2), out_sharding=P(None, "y"))), ("y",)),
        "eye": (lambda a: show(jnp.eye(4)) @ a, ("x",)),
        "pure_callback": (callback, ("x",)),
        "operands_other_layouts": (lambda a, b: show(a + b), ("x44", "y44")),
        "operand_constant": (lambda a: a + np.ones((4, 2), np.float32), ("x",)),
        # jnp.where broadcasts its operands to their common layout (JAX's broadcast_shardings)
        "where_scalar": (lambda a: show(jnp.where(a > 0, a, 0.0)), ("x",)),
        "where_row": (lambda a: show(jnp.where(a > 0, a, jnp.arange(2.0))), ("x",)),
        "where_scalar_condition": (lambda a: jnp.where(True, a, 1.0), ("y",)),
        "where_column": (lambda a: jnp.where(a[:, :1] > 0, 1.0, a), ("x",)),
        # derivatives' instantiated zeros have their primal's type
        "grad_where": (lambda a: jax.grad(lambda v: jnp.where(v > 0, v, 0.0).sum())(a),
                       ("x",)),
        "grad_maximum": (lambda a: jax.grad(lambda v: jnp.maximum(v, 0.0).sum())(a), ("y",)),
        "grad_cond_constant_branch": (lambda a: jax.grad(lambda v: lax.cond(
            v.sum() > 0, lambda u: u * 2, lambda u: jnp.ones_like(u), v).sum())(a), ("x",)),
        "grad_fori_constant_init": (lambda a: jax.grad(lambda v: lax.fori_loop(
            0, 2, lambda i, c: c * v, jnp.ones_like(v)).sum())(a), ("x",)),
        "jvp_scan_constant_init": (lambda a: jax.jvp(lambda v: lax.scan(
            lambda c, r: (c * r, c), jnp.ones_like(v[0]), v), (a,), (a,)), ("y",)),
        "grad_made_times": (lambda a: jax.grad(lambda v: (v * jnp.arange(2.0)).sum())(a),
                            ("x",)),
        # JAX's errors: the made value is replicated over the mesh
        "where_made_full": (lambda a: jnp.where(a > 0, a, jnp.zeros((4, 2))), ("x",)),
        "dynamic_update_made": (lambda a: lax.dynamic_update_slice(
            jnp.zeros((4, 2)), a[:2], (0, 0)), ("y",)),
        "concatenate_made": (lambda a: jnp.concatenate([a, jnp.ones((4, 1))], axis=1), ("x",)),
        "carry_made": (lambda a: lax.fori_loop(0, 3, lambda i, c: c + a, jnp.zeros((4, 2))),
                       ("x",)),
        "branch_made": (lambda a: lax.cond(a.sum() > 0, lambda v: v * 2,
                                           lambda v: jnp.zeros((4, 2)), a), ("x",)),
    }


def run_case(jax, jnp, name):
    """Program `name` as record_explicit_control.run_case runs its programs."""
    return control.run_case(jax, jnp, name, programs)


def run(jax, jnp):
    return {name: run_case(jax, jnp, name) for name in programs(jax, jnp, None)}


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
