"""`jacfwd` / `jacrev` / `hessian` of functions of arrays laid out over a 2x2 mesh of
Explicit axes under `jax.set_mesh` (JAX 0.10.2): JAX seeds each input's basis with the
input's layout, so a `jacrev` block is laid out along its input's dimensions as the
input (the output's unsharded), a `jacfwd` block along its output's dimensions as the
output (the input's unsharded). Per program, called eagerly and under `jit`: the
results' types and values, or JAX's error. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_jacobians.py`) to write explicit_jacobians.json; run on
astjax by tests/test_explicit_jacobians.py."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import record_explicit_control as control  # noqa: E402

PATH = Path(__file__).with_name("explicit_jacobians.json")


def programs(jax, jnp):
    """name -> (function, argument names of record_explicit_control.arrays, or a
    tuple of them for a dict argument {"a": .., "b": ..})."""
    def two(v):
        return jnp.sin(v), v.sum(0)

    def pair(d):
        return jnp.sin(d["a"]) * d["b"]
    return {
        "jacrev_sin": (jax.jacrev(jnp.sin), ("xy",)),
        "jacfwd_sin": (jax.jacfwd(jnp.sin), ("xy",)),
        "jacrev_sum": (jax.jacrev(lambda v: (v * 2).sum(1)), ("x",)),
        "jacfwd_sum": (jax.jacfwd(lambda v: (v * 2).sum(1)), ("x",)),
        "jacrev_total": (jax.jacrev(lambda v: (v * v).sum()), ("y",)),
        "jacfwd_total": (jax.jacfwd(lambda v: (v * v).sum()), ("y",)),
        "hessian": (jax.hessian(lambda v: (v ** 3).sum()), ("x",)),
        "hessian_xy": (jax.hessian(lambda v: (jnp.sin(v) * v).sum()), ("xy",)),
        "jacrev_two_outputs": (jax.jacrev(two), ("x",)),
        "jacfwd_two_outputs": (jax.jacfwd(two), ("x",)),
        "jacrev_pytree": (jax.jacrev(pair), (("x", "y"),)),
        "jacfwd_pytree": (jax.jacfwd(pair), (("x", "y"),)),
        "jacrev_argnums": (jax.jacrev(lambda u, v: u * v, argnums=(0, 1)), ("x", "y")),
        "jacfwd_argnums": (jax.jacfwd(lambda u, v: u * v, argnums=(0, 1)), ("x", "y")),
        "jacfwd_aux": (jax.jacfwd(lambda v: (jnp.cos(v), v.sum()), has_aux=True), ("xy",)),
        "jacrev_aux": (jax.jacrev(lambda v: (jnp.cos(v), v.sum()), has_aux=True), ("xy",)),
        "vmap_jacrev": (jax.vmap(jax.jacrev(lambda r: jnp.sin(r) * 2)), ("x",)),
        "vmap_jacfwd": (jax.vmap(jax.jacfwd(lambda r: jnp.sin(r) * 2)), ("x",)),
        "vmap_hessian": (jax.vmap(jax.hessian(lambda r: jnp.sin(r).sum())), ("x",)),
        "jacrev_of_value": (lambda v: jax.jacrev(jnp.sin)(v * 2), ("xy",)),
        "jacrev_dot": (jax.jacrev(lambda u, v: u @ v.T), ("x", "y")),
        "jacfwd_dot": (jax.jacfwd(lambda u, v: u @ v.T), ("x", "y")),
        "grad_of_jacrev": (jax.grad(lambda v: jax.jacrev(jnp.sin)(v).sum()), ("x",)),
        "jacfwd_constant_output": (jax.jacfwd(lambda u, v: (u * 2, v)), ("x", "y")),
        "jacrev_constant_output": (jax.jacrev(lambda u, v: (u * 2, v)), ("x", "y")),
        "jacfwd_stop_gradient": (jax.jacfwd(lambda u: jax.lax.stop_gradient(u) * 2), ("x",)),
        "jacrev_unused_argument": (jax.jacrev(lambda u, v: u * 2, argnums=(0, 1)), ("x", "y")),
        "jacfwd_unused_argument": (jax.jacfwd(lambda u, v: u * 2, argnums=(0, 1)), ("x", "y")),
        "jacfwd_custom_jvp": (jax.jacfwd(jax.nn.relu), ("x",)),
        "jacrev_custom_jvp": (jax.jacrev(jax.nn.relu), ("x",)),
        "hessian_pytree": (jax.hessian(lambda d: (d["a"] ** 2 * d["b"]).sum()),
                           (("x", "y"),)),
    }


def _call(jax, fn, args):
    try:
        outs = jax.tree_util.tree_leaves(fn(*args))
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return control._error(e)
    return {"out": [str(jax.typeof(r)) for r in outs],
            "value": [np.asarray(r, np.float64).tolist() for r in outs]}


def run_case(jax, jnp, name):
    """Program `name` under `set_mesh`, eagerly and jitted: its results' types and
    values, or the error."""
    mesh = control.mesh_of(jax)
    arrs = control.arrays(jax, mesh)
    fn, names = programs(jax, jnp)[name]
    args = [{"a": arrs[n[0]], "b": arrs[n[1]]} if isinstance(n, tuple) else arrs[n]
            for n in names]
    with jax.set_mesh(mesh):
        return {"eager": _call(jax, fn, args), "jit": _call(jax, jax.jit(fn), args)}


def run(jax, jnp):
    return {name: run_case(jax, jnp, name) for name in programs(jax, jnp)}


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
