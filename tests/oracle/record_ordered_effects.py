"""Ordered effects as JAX 0.10.2 lowers and runs them: `io_callback(..., ordered=True)`
and `jax.debug.print(..., ordered=True)` inside `cond`, `while_loop`, `scan`, an inner
`jit`, `custom_jvp`, `custom_vjp`, `checkpoint`, under `grad` and `vmap`; the
`!stablehlo.token` of each effect threaded through `@main` (`{jax.token = true}`) and
the bodies. Per case: the lowered text (`Lowered.as_text()`), the value, the lines
printed and the values the io callback saw, in order; and consecutive calls of two
functions sharing the effects (the runtime token passes their order on).

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`,
`J.io_callback`) returning a dict. Run with JAX 0.10.2 (4 CPU devices: set here):
`/work/jaxref/bin/python tests/oracle/record_ordered_effects.py` writes
ordered_effects.json; tests/test_ordered_effects.py runs the cases on astjax.
"""
import contextlib
import io
import json
import re
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _programs(J, log):
    """name -> (function, arguments)."""
    jax, jnp = J.jax, J.jnp

    def cb(a):
        log.append(np.asarray(a, np.float64).tolist())
        return np.asarray(a) * 2

    def io(x):
        return J.io_callback(cb, jax.ShapeDtypeStruct(x.shape, x.dtype), x, ordered=True)

    def dp(x):
        jax.debug.print("x={}", x, ordered=True)
        return x * 3

    @jax.custom_jvp
    def cj(x):
        return dp(x)

    @cj.defjvp
    def cj_jvp(p, t):
        return cj(p[0]), t[0] * 3

    @jax.custom_vjp
    def cv(x):
        return io(x)
    cv.defvjp(lambda x: (cv(x), None), lambda r, g: (g * 2,))

    def io_cond(x):
        return jax.lax.cond(x.sum() > 0, io, lambda x: x + 1, x)

    def debug_cond(x):
        return jax.lax.cond(x.sum() > 0, dp, lambda x: x, x)

    def io_while(x):
        return jax.lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, io(c[1])), (0, x))[1]

    def debug_while_cond(x):
        def cond(c):
            jax.debug.print("c {}", c[0], ordered=True)
            return c[0] < 2

        def body(c):
            jax.debug.print("b {}", c[0], ordered=True)
            return c[0] + 1, c[1] * x
        return jax.lax.while_loop(cond, body, (0, x))[1]

    def scan_both(x):
        return jax.lax.scan(lambda c, y: (io(c), dp(y)), x, x)

    def nested_jit(x):
        return jax.jit(io)(x) + jax.jit(dp)(x)

    def two_effects(x):
        return io(dp(x))

    def grad_debug(x):
        return jax.grad(lambda x: dp(x).sum())(x)

    def vmap_debug(x):
        return jax.vmap(dp)(x)

    def vmap_callback(x):
        jax.vmap(lambda v: jax.debug.callback(
            lambda a: log.append(float(a)), v, ordered=True))(x)
        return x * 2

    def custom_jvp_debug(x):
        return cj(x)

    def custom_vjp_io(x):
        return cv(x)

    def checkpoint_debug(x):
        return jax.checkpoint(lambda x: dp(jnp.sin(x)))(x)

    def grad_checkpoint_debug(x):
        return jax.grad(lambda x: jax.checkpoint(lambda x: dp(jnp.sin(x)))(x).sum())(x)

    def unordered_and_ordered(x):
        jax.debug.print("u={}", x)
        return io(x)

    def io_no_result(x):
        J.io_callback(lambda a: log.append(np.asarray(a, np.float64).tolist()), None, x,
                      ordered=True)
        return x + 1

    fns = [io_cond, debug_cond, io_while, debug_while_cond, scan_both, nested_jit, two_effects, grad_debug,
           vmap_debug, vmap_callback, custom_jvp_debug, custom_vjp_io, checkpoint_debug,
           grad_checkpoint_debug, unordered_and_ordered, io_no_result]
    x = jnp.arange(3.0, dtype=jnp.float32)
    return {f.__name__: (f, (x,)) for f in fns}, io, dp


def _tolist(tree):
    if isinstance(tree, (tuple, list)):
        return [_tolist(t) for t in tree]
    return np.asarray(tree, np.float64).tolist()


def _run(J, thunk):
    """thunk()'s value, the lines it printed (after every effect ran)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        value = thunk()
        J.jax.effects_barrier()
    return value, buf.getvalue().splitlines()


def programs(J):
    """Each program in a `jit`: its text, value, printed lines and io callback log."""
    out = {}
    log = []
    fns, _, _ = _programs(J, log)
    for name, (f, args) in fns.items():
        del log[:]
        text = J.jax.jit(f).lower(*args).as_text()
        value, printed = _run(J, lambda: _tolist(J.jax.jit(f)(*args)))
        out[name] = {"text": text, "value": value, "printed": printed, "log": list(log)}
    return out


def consecutive(J):
    """Two jitted functions with both effects called in turn, without waiting: the
    prints and the io callback's arguments come in call order."""
    jax, jnp = J.jax, J.jnp
    log = []
    _, io, dp = _programs(J, log)
    f = jax.jit(lambda x: io(dp(x)))
    g = jax.jit(lambda x: dp(io(x + 100)))

    def calls():
        return [_tolist(h(jnp.full((2,), float(i), jnp.float32)))
                for i in range(4) for h in (f, g)]
    value, printed = _run(J, calls)
    return {"value": value, "printed": printed, "log": list(log)}


def ahead_of_time(J):
    """An ordered print through `lower(...).compile()` (called twice), and lowered for
    an argument committed to its device (`@main`'s parameter on the empty mesh, after
    the token)."""
    jax, jnp = J.jax, J.jnp

    def f(x):
        jax.debug.print("x={}", x, ordered=True)
        return x * 2
    x = jnp.arange(3.0, dtype=jnp.float32)
    compiled = jax.jit(f).lower(x).compile()
    value, printed = _run(J, lambda: [_tolist(compiled(x)), _tolist(compiled(x + 1))])
    committed = jax.device_put(x, jax.devices()[0])
    return {"value": value, "printed": printed,
            "committed_text": jax.jit(f).lower(committed).as_text()}


def remat_prints(J):
    """Unordered debug prints under `grad` of `checkpoint`: printed again by the
    recomputation unless the policy saves the print and its input is not available
    there (JAX's partial-evaluation rule for debug callbacks)."""
    jax, jnp = J.jax, J.jnp

    def f(x):
        jax.debug.print("p {}", x)
        return jnp.sin(x)

    def g(x):
        y = jnp.sin(x)
        jax.debug.print("q {}", y)
        return y * 2
    policies = jax.checkpoint_policies
    out = {}
    for name, fun, policy in [("input_default", f, None),
                              ("input_saveable", f, policies.everything_saveable),
                              ("inner_saveable", g, policies.everything_saveable),
                              ("inner_nothing", g, policies.nothing_saveable)]:
        value, printed = _run(J, lambda: float(jax.grad(jax.checkpoint(fun, policy=policy))(1.0)))
        out[name] = {"value": value, "printed": printed}
    return out


def multi_device(J):
    """Ordered effects on several devices: JAX refuses an ordered debug print in a
    `pmap`, a `shard_map` and a `jit` under `set_mesh` of two devices (ValueError),
    and runs one on one device, and an ordered io_callback (it shards that effect).
    Per program: "ok", or ValueError and its message up to the effects' list."""
    jax, jnp = J.jax, J.jnp
    _, io, dp = _programs(J, [])
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                         axis_types=(jax.sharding.AxisType.Auto,))
    P = jax.sharding.PartitionSpec

    def under_mesh(f):
        with jax.set_mesh(mesh):
            return jax.jit(f).lower(jnp.arange(4.0, dtype=jnp.float32)).as_text()
    runs = {
        "pmap": lambda: jax.pmap(dp)(jnp.ones((2, 3), jnp.float32)),
        "pmap_one_device": lambda: jax.pmap(dp, devices=jax.devices()[:1])(
            jnp.ones((1, 3), jnp.float32)),
        "shard_map": lambda: jax.jit(jax.shard_map(dp, mesh=mesh, in_specs=P(), out_specs=P()))(
            jnp.arange(4.0, dtype=jnp.float32)),
        "set_mesh_debug": lambda: under_mesh(dp),
        "set_mesh_io": lambda: under_mesh(io),
    }
    out = {}
    for name, run in runs.items():
        try:
            _run(J, run)
            out[name] = "ok"
        except ValueError as e:
            out[name] = ["ValueError", re.search(r"The following[^\[]*", str(e)).group(0)]
    return out


CASES = {f.__name__: f for f in [programs, consecutive, ahead_of_time, remat_prints,
                                  multi_device]}


def main():
    import os
    import types
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
    import jax
    import jax.numpy as jnp
    from jax.experimental import io_callback
    J = types.SimpleNamespace(jax=jax, jnp=jnp, io_callback=io_callback)
    out = {"jax": jax.__version__, "cases": {n: c(J) for n, c in CASES.items()}}
    (HERE / "ordered_effects.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
