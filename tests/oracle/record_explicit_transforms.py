"""Values made from no operand (`jnp.full`, `jnp.ones`) through each transformation on
a 2x2 mesh of Explicit axes under `jax.set_mesh` (JAX 0.10.2): `jvp`, `grad`, `vmap`,
an inner `jit` (inlined, differentiated, batched), `scan` / `cond` bodies and their
derivatives and batchings, `checkpoint`. Each program contracts an argument laid out
over the mesh with a made matrix, so the contraction's type names the mesh only
when the made value is typed (replicated) as JAX types it. Per program: the types
`make_jaxpr` prints (the set of them), the results' types and values (for `EAGER`
ones also outside `jit`); or JAX's error.
Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_transforms.py`) to write explicit_transforms.json; run on
astjax by tests/test_explicit_transforms.py (with record_explicit_control.py's arrays)."""
import re
from pathlib import Path

import numpy as np

try:                                        # as tests/oracle/... from the tests
    from oracle import record_explicit_control as control
except ImportError:                         # run as a script in tests/oracle
    import record_explicit_control as control

PATH = Path(__file__).with_name("explicit_transforms.json")
_TYPE = re.compile(r"\b(?:bf16|f\d+|i\d+|u\d+|c\d+|bool)\[[^\]\s]*\]")


def programs(jax, jnp):
    """name -> (function, argument names of record_explicit_control.arrays)."""
    lax = jax.lax

    def made():
        return jnp.full((2, 3), 2.0)

    def dot(u):
        return u @ made()

    def other(u):
        return u @ jnp.ones((2, 3))

    def scan_dot(v):
        return lax.scan(lambda c, r: (c + 1.0, r @ made()), 0.0, v)

    def cond_dot(v):
        return lax.cond(v.sum() > 0, dot, other, v)
    return {
        "jvp": (lambda a: jax.jvp(dot, (a,), (a,)), ("x",)),
        "grad": (lambda a: jax.grad(lambda v: jnp.sin(dot(v)).sum())(a), ("x",)),
        "vmap": (lambda a: jax.vmap(dot)(a), ("x",)),
        # (after dead-code removal a gradient's seed has no forward equation beside it)
        "grad_made_times_plus": (lambda a: jax.grad(lambda v: (v * jnp.full((4, 2), 2.0) + v)
                                                    .sum())(a), ("x",)),
        "inner_jit": (lambda a: jax.jit(dot)(a) * 2, ("x",)),
        "jvp_inner_jit": (lambda a: jax.jvp(jax.jit(dot), (a,), (a,)), ("x",)),
        "grad_inner_jit": (lambda a: jax.grad(lambda v: jnp.sin(jax.jit(dot)(v)).sum())(a),
                           ("x",)),
        "vmap_inner_jit": (lambda a: jax.vmap(jax.jit(dot))(a), ("x",)),
        "scan_body": (scan_dot, ("y",)),
        "jvp_scan_body": (lambda a: jax.jvp(scan_dot, (a,), (a,)), ("y",)),
        "grad_scan_body": (lambda a: jax.grad(lambda v: jnp.sin(scan_dot(v)[1]).sum())(a),
                           ("y",)),
        "vmap_scan_body": (lambda a: jax.vmap(lambda m: lax.scan(
            lambda c, r: (c, r @ made()), 0.0, m))(a.reshape(2, 2, 2)), ("x",)),
        "vmap_scan_carry": (lambda a: jax.vmap(scan_dot)(a.reshape(2, 2, 2)), ("x",)),
        # (a carry passed on unchanged from a constant is that constant: typed over no mesh)
        "vmap_while_carry": (lambda a: jax.vmap(lambda r: (lax.while_loop(
            lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1], c[2] * 2.0), (0, 1.5, 1.0)),
            r @ made()))(a), ("x",)),
        "vmap_scan_host_init": (lambda a: jax.vmap(lambda r: (lax.scan(
            lambda c, x: (c, x), np.ones(2, np.float32), r)[0], r @ made()))(a), ("x",)),
        # (a constant a vmap broadcasts is typed over no mesh inside jit; outside jit JAX
        # computes it on the mesh, which the outer vmap lays out)
        "vmap_vmap_constant": (lambda a: jax.vmap(jax.vmap(lambda e: (e * 2.0, 1.0)))(a),
                               ("x",)),
        "vmap_fori_carry": (lambda a: jax.vmap(lambda r: (lax.fori_loop(
            0, 2, lambda i, c: c * 2.0, 1.0), r @ made()))(a), ("x",)),
        "cond_body": (cond_dot, ("x",)),
        "jvp_cond_body": (lambda a: jax.jvp(cond_dot, (a,), (a,)), ("x",)),
        "grad_cond_body": (lambda a: jax.grad(lambda v: jnp.sin(cond_dot(v)).sum())(a),
                           ("x",)),
        "vmap_cond_body": (lambda a: jax.vmap(lambda r: lax.cond(
            r.sum() > 0, dot, other, r))(a), ("x",)),
        "jvp_vmap": (lambda a: jax.jvp(jax.vmap(dot), (a,), (a,)), ("x",)),
        "vmap_grad": (lambda a: jax.vmap(jax.grad(lambda r: jnp.sin(dot(r)).sum()))(a),
                      ("x",)),
        "checkpoint": (lambda a: jax.grad(lambda v: jnp.sin(jax.checkpoint(dot)(v)).sum())(
            a), ("x",)),
    }


#: the programs also run outside `jit` (their results' types recorded as "eager_out")
EAGER = ("vmap_scan_carry", "vmap_scan_body", "vmap_vmap_constant", "vmap_while_carry")


def run_case(jax, jnp, name):
    """Program `name` under `set_mesh`: the types its `make_jaxpr` prints, its jitted
    results' types and values; or the error."""
    mesh = control.mesh_of(jax)
    fn, names = programs(jax, jnp)[name]
    arrs = control.arrays(jax, mesh)
    args = [arrs[n] for n in names]
    with jax.set_mesh(mesh):
        try:
            text = str(jax.make_jaxpr(fn)(*args))
            outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        except Exception as e:  # noqa: BLE001 -- the error is what is recorded
            return control._error(e)
        eager = jax.tree_util.tree_leaves(fn(*args)) if name in EAGER else None
    return {"types": sorted(set(_TYPE.findall(text))),
            "out": [str(jax.typeof(r)) for r in outs],
            **({"eager_out": [str(jax.typeof(r)) for r in eager]} if eager else {}),
            "value": [np.asarray(r, np.float64).tolist() for r in outs]}


def run(jax, jnp):
    return {name: run_case(jax, jnp, name) for name in programs(jax, jnp)}


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
