"""Sharding in types through control flow and transformations on a 2x2 mesh of
Explicit axes under `jax.set_mesh` (JAX 0.10.2): per program, `jax.typeof` of the
values inside `scan` / `while_loop` / `fori_loop` / `cond` bodies, inner `jit`s,
`vmap`, `grad`, `checkpoint` and `custom_jvp` functions, the types of the results,
and the lowered module's `sdy.sharding_constraint`s (the laid-out ones: rank > 0);
or the error JAX raises (conflicting layouts inside a body, a carry whose layout
changes, `xs` sharded along the scanned axis). Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_control.py`) to write explicit_control.json; run on
astjax by tests/test_explicit_control.py."""
import re
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("explicit_control.json")
_CONSTRAINT = re.compile(r"sdy\.sharding_constraint %\S+ (<@mesh, \[.+\]> : tensor<.+>)")


def programs(jax, jnp, show):
    """name -> (function, argument names); `show(v)` records `jax.typeof(v)` and
    returns `v`."""
    lax, P = jax.lax, jax.sharding.PartitionSpec

    def scan_body(c, r):
        return show(c + r * 2), show(jnp.sin(r))

    def while_body(c):
        i, v = c
        return i + 1, show(jnp.cos(show(v)) * 2)

    def bad_add(c):
        i, v, w = c
        return i + 1, v + w, w

    def reshard_carry(c):
        i, v = c
        return i + 1, jax.reshard(v, P(None, "y"))

    def inner(v):
        return show(jnp.exp(v) - 1)

    def scan_reverse(a):
        k = a[1] * 3
        return lax.scan(lambda c, r: (c + r[0] * k, (show(r[0] - c), r[1] * 2)), a[0],
                        (a, a + 1), reverse=True)

    @jax.custom_jvp
    def custom(v):
        return show(jnp.sin(v))
    custom.defjvp(lambda p, t: (custom(p[0]), jnp.cos(p[0]) * t[0]))
    return {
        "while": (lambda a: lax.while_loop(lambda c: c[0] < 3, while_body, (0, a)), ("x",)),
        "fori": (lambda a: lax.fori_loop(0, 3, lambda i, v: show(jnp.exp(v) + i), a), ("x",)),
        "cond": (lambda a: lax.cond(a.sum() > 0, lambda v: show(v * 2), lambda v: show(v - 1),
                                    a), ("x",)),
        "scan_free_rows": (lambda a: lax.scan(scan_body, a[0], a), ("y",)),
        "scan_sharded_rows": (lambda a: lax.scan(scan_body, a[0] * 0, a), ("x",)),
        "scan_reverse": (scan_reverse, ("y",)),
        "scan_no_xs": (lambda a: lax.scan(lambda c, _: (c * 2, show(jnp.sin(c))), a[0], None,
                                          length=3), ("y",)),
        "scan_in_while": (lambda a: lax.while_loop(lambda c: c[0] < 2, lambda c: (
            c[0] + 1, lax.scan(lambda k, r: (k + r, r * k), c[1][0], c[1])[1]), (0, a))[1],
            ("y",)),
        "grad_scan": (lambda a: jax.grad(lambda u: lax.scan(
            lambda c, r: (c * jnp.cos(r), c + r), u[0], u)[1].sum())(a), ("y",)),
        "scan_two_layouts": (lambda a, b: lax.scan(lambda c, r: (c, (r[0] * 2, r[1] + 1)),
                                                   0.0, (a, b)), ("y", "x_cols")),
        "map": (lambda a: lax.map(lambda r: show(jnp.tanh(r)) * 2, a), ("y",)),
        "dynamic_slice_expand": (lambda a: show(lax.expand_dims(show(lax.dynamic_slice(
            a, (2, 0), (2, 2))), (1,))) * 2, ("x",)),
        "dynamic_update": (lambda a, b: show(lax.dynamic_update_slice(a, b * 2, (1, 0))),
                           ("y", "y2")),
        "scan_reduce": (lambda a: lax.scan(lambda c, r: (c + show(r.sum()), r * 2), 0.0, a),
                        ("y",)),
        "inner_jit": (lambda a: jax.jit(inner)(a) * 3, ("x",)),
        "vmap": (lambda a: jax.vmap(lambda r: show(jnp.sin(r) * 2))(a), ("x",)),
        "grad": (lambda a: jax.grad(lambda v: show(jnp.sin(v) * 2).sum())(a), ("x",)),
        "grad_dot": (lambda a, b: jax.grad(lambda u: (show(u @ b) * 3).sum())(a),
                     ("xy", "rep")),
        "grad_mean": (lambda a: jax.grad(lambda v: (show(v * v) - 1).mean())(a), ("y",)),
        "checkpoint": (lambda a: jax.checkpoint(lambda v: show(jnp.sin(v)) * 2)(a), ("x",)),
        "custom_jvp": (custom, ("x",)),
        "while_dot": (lambda a, b: lax.while_loop(
            lambda c: c[0] < 2, lambda c: (c[0] + 1, show(jnp.tanh(c[1] @ b))), (0, a)),
            ("xy", "rep")),
        "cond_dot": (lambda a, b: lax.cond(True, lambda u, v: show(u @ v),
                                            lambda u, v: show(u @ v * 2), a, b), ("x", "yt")),
        # errors JAX raises inside bodies
        "while_incompatible_add": (lambda a, b: lax.while_loop(
            lambda c: c[0] < 2, bad_add, (0, a, b)), ("x", "y")),
        "cond_dot_contracting": (lambda a, b: lax.cond(
            a.sum() > 0, lambda u, v: u.T @ v, lambda u, v: u.T @ v, a, b), ("x", "y")),
        "scan_dot_contracting": (lambda a, b: lax.scan(
            lambda c, r: (c + r @ b, r), jnp.zeros(4), a), ("y", "yt4")),
        "while_carry_resharded": (lambda a: lax.while_loop(
            lambda c: c[0] < 2, reshard_carry, (0, a)), ("x",)),
        "cond_branch_shardings": (lambda a: lax.cond(
            a.sum() > 0, lambda v: v, lambda v: jax.reshard(v, P(None, "y")), a), ("x",)),
        "dynamic_slice_indivisible": (lambda a: lax.dynamic_slice(a, (1, 0), (1, 2)), ("x",)),
        "dynamic_update_layouts": (lambda a, b: lax.dynamic_update_slice(a, b, (1, 0)),
                                   ("x", "y2")),
        "dead_code_error": (lambda a, b: (a + b, a * 2)[1], ("xy", "x4t")),
        "scan_xs_sharded_leading": (lambda a: lax.scan(lambda c, r: (c, jnp.cumsum(r)), 0.0,
                                                       a), ("x",)),
    }


def arrays(jax, mesh):
    """name -> an array laid out over `mesh`."""
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    a = np.arange(8.0, dtype=np.float32).reshape(4, 2) / 4 - 1
    return {"x": jax.device_put(a, NS(mesh, P("x"))),
            "y": jax.device_put(a, NS(mesh, P(None, "y"))),
            "xy": jax.device_put(np.eye(4, dtype=np.float32) / 2 + 0.1, NS(mesh, P("x", "y"))),
            "rep": jax.device_put(np.ones((4, 4), np.float32) / 4, NS(mesh, P())),
            "rep_42": jax.device_put(a * 3, NS(mesh, P())),
            "yt": jax.device_put(a.T.copy(), NS(mesh, P("y"))),
            "yt4": jax.device_put(np.ones((2, 4), np.float32), NS(mesh, P("x", "y"))),
            "y2": jax.device_put(a[:2] + 5, NS(mesh, P(None, "y"))),
            "x4t": jax.device_put(np.eye(4, dtype=np.float32), NS(mesh, P(None, "x"))),
            "x44": jax.device_put(np.eye(4, dtype=np.float32) + 1, NS(mesh, P("x"))),
            "x_cols": jax.device_put(a + 2, NS(mesh, P(None, "x"))),
            "y44": jax.device_put(np.eye(4, dtype=np.float32) * 3, NS(mesh, P(None, "y")))}


def mesh_of(jax):
    """The 2x2 mesh of Explicit axes."""
    return jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)


def _error(e):
    # (astjax's errors carry the message apart from their location header)
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def run_case(jax, jnp, name, programs_of=None):
    """Program `name` (of `programs_of`, by default `programs`) jitted under
    `set_mesh`: the types seen inside, the results' types and values, the laid-out
    constraints of its lowering; or the error."""
    mesh = mesh_of(jax)
    seen = []

    def show(v):
        seen.append(str(jax.typeof(v)))
        return v
    fn, names = (programs_of or programs)(jax, jnp, show)[name]
    arrs = arrays(jax, mesh)
    args = [arrs[n] for n in names]
    with jax.set_mesh(mesh):
        try:
            text = jax.jit(fn).lower(*args).as_text()
            inner = list(seen)
            outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        except Exception as e:  # noqa: BLE001 -- the error is what is recorded
            return _error(e)
    return {"inner": inner, "out": [str(jax.typeof(r)) for r in outs],
            "value": [np.asarray(r, np.float64).tolist() for r in outs],
            "constraints": [m for m in _CONSTRAINT.findall(text) if "[]>" not in m]}


def run(jax, jnp):
    return {name: run_case(jax, jnp, name) for name in programs(jax, jnp, None)}


def assert_as_recorded(jax, got, want):
    """(astjax's tests) `got`, run_case's result on astjax, is JAX's `want`: the error
    (of a class that is JAX's builtin one) and its message, or the types inside, the
    results' types and their values."""
    if "error" in want:
        cls = getattr(jax.errors, got.get("error", ""), None) or getattr(
            jax.sharding, got.get("error", ""), type(None))
        builtin = {"TypeError": TypeError, "ValueError": ValueError}
        assert issubclass(cls, builtin.get(want["error"], jax.sharding.ShardingTypeError)), got
        assert got["message"] == want["message"]
        return
    assert (got["inner"], got["out"]) == (want["inner"], want["out"])
    for g, w in zip(got["value"], want["value"]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-6)


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
