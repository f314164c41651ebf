"""Ordered effects beyond one device, as JAX 0.10.2 lowers and runs them: an ordered
`io_callback` in a `jit` whose argument is sharded over two devices, whose result is
(`out_shardings`), under `set_mesh`, inside a `shard_map` and a `pmap` (the effect's
`!stablehlo.token` through `@main` and the manual computation, replicated); a jitted
function that also takes or returns an XLA token (`lax.create_token`) or a `Ref`;
consecutive calls of such programs on different devices (the runtime token keeps the
callbacks in call order); and JAX's refusal of an ordered debug print in a sharded
`jit`.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`,
`J.io_callback`) returning a dict. Run with JAX 0.10.2 (4 CPU devices: set here):
`.jaxenv/bin/python tests/oracle/record_ordered_effects_spmd.py` writes
ordered_effects_spmd.json; tests/test_ordered_effects.py runs the cases on astjax.
"""
import json
import re
from pathlib import Path

from record_ordered_effects import _programs, _run, _tolist

HERE = Path(__file__).resolve().parent


def _fns(J, log):
    """The ordered io callback (logging its argument) and the ordered print of
    record_ordered_effects.py."""
    _, io, dp = _programs(J, log)
    return io, dp


def _mesh(J):
    jax = J.jax
    return jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                         axis_types=(jax.sharding.AxisType.Auto,))


def programs(J):
    """Per program: `text` (lowered), `value`, `printed`, `log` (the io callback's
    arguments; sorted where several devices call it in one program, in no set order)."""
    jax, jnp = J.jax, J.jnp
    log = []
    io, dp = _fns(J, log)
    mesh = _mesh(J)
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    x4 = jnp.arange(4.0, dtype=jnp.float32)
    xs = jax.device_put(x4, NS(mesh, P("x")))

    def with_token(t, x):
        return t, io(x)

    def making_token(x):
        return jax.lax.create_token(), dp(x)

    def ref_io(r, x):
        r[...] = io(x) + r[...]
        return x

    def ref_dp(r, x):
        r[...] = dp(x) + r[...]
        return x

    def ref_call(f):
        def call():
            r = jax.new_ref(jnp.zeros(4, jnp.float32))
            return [jax.jit(f)(r, x4), r[...]]
        return call

    def ref_text(f):
        return jax.jit(f).lower(jax.new_ref(jnp.zeros(4, jnp.float32)), x4).as_text()
    sm = jax.jit(jax.shard_map(io, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    sm_rep = jax.jit(jax.shard_map(io, mesh=mesh, in_specs=P(), out_specs=P()))
    outs = jax.jit(lambda x: io(x) + 1, out_shardings=NS(mesh, P("x")))
    pm = jax.pmap(io)
    pm1 = jax.pmap(io, devices=jax.devices()[:1])
    pm1_dp = jax.pmap(dp, devices=jax.devices()[:1])
    x23 = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    x13 = jnp.ones((1, 3), jnp.float32)
    both = jax.jit(lambda x: io(io(x) + 1))
    cases = {   # name -> (lowered text, run, several devices call back in one run)
        "sharded_argument": (lambda: both.lower(xs).as_text(), lambda: both(xs), False),
        "out_shardings": (lambda: outs.lower(x4).as_text(), lambda: outs(x4), False),
        "shard_map": (lambda: sm.lower(x4).as_text(), lambda: sm(x4), True),
        "shard_map_replicated": (lambda: sm_rep.lower(x4).as_text(), lambda: sm_rep(x4), True),
        "pmap": (lambda: pm.lower(x23).as_text(), lambda: pm(x23), True),
        "pmap_one_device": (lambda: pm1.lower(x13).as_text(), lambda: pm1(x13), False),
        "pmap_one_device_print": (lambda: pm1_dp.lower(x13).as_text(), lambda: pm1_dp(x13),
                                  False),
        "token_argument": (lambda: jax.jit(with_token).lower(jax.lax.create_token(), x4)
                           .as_text(),
                           lambda: jax.jit(with_token)(jax.lax.create_token(), x4)[1], False),
        "token_result": (lambda: jax.jit(making_token).lower(x4).as_text(),
                         lambda: jax.jit(making_token)(x4)[1], False),
        "ref_io": (lambda: ref_text(ref_io), ref_call(ref_io), False),
        "ref_debug": (lambda: ref_text(ref_dp), ref_call(ref_dp), False),
    }
    out = {}
    for name, (text, run, several) in cases.items():
        del log[:]
        value, printed = _run(J, lambda: _tolist(run()))
        out[name] = {"text": text(), "value": value, "printed": printed,
                     "log": sorted(log) if several else list(log)}

    def under_mesh():
        with jax.set_mesh(mesh):
            return jax.jit(io).lower(x4).as_text()
    out["set_mesh"] = {"text": under_mesh()}   # (JAX 0.10.2 fails to run it: AssertionError)
    return out


def consecutive(J):
    """Calls with the io effect on one device, on two (a sharded argument, a pmap) and
    on two others, in turn without waiting: the callbacks run in call order."""
    jax, jnp = J.jax, J.jnp
    log = []
    io, _ = _fns(J, log)
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = _mesh(J)
    other = jax.make_mesh((2,), ("x",), devices=jax.devices()[2:4],
                          axis_types=(jax.sharding.AxisType.Auto,))
    f = jax.jit(lambda x: io(x) + 1)
    pm1 = jax.pmap(io, devices=jax.devices()[1:2])

    def calls():
        out = []
        for i in range(3):
            x = jnp.arange(4.0, dtype=jnp.float32) + 10 * i
            out += [f(x), f(jax.device_put(x + 1, NS(mesh, P("x")))),
                    pm1((x + 2)[None]), f(jax.device_put(x + 3, NS(other, P("x"))))]
        return _tolist(out)
    value, _ = _run(J, calls)
    return {"value": value, "log": list(log)}


def refused(J):
    """An ordered debug print in a `jit` whose argument is sharded over two devices:
    JAX's ValueError (lowering and calling), its message up to the effects' list."""
    jax, jnp = J.jax, J.jnp
    _, dp = _fns(J, [])
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    xs = jax.device_put(jnp.arange(4.0, dtype=jnp.float32), NS(_mesh(J), P("x")))
    out = {}
    for name, run in {"lower": lambda: jax.jit(dp).lower(xs), "call": lambda: jax.jit(dp)(xs)}.items():
        try:
            run()
            out[name] = "ok"
        except ValueError as e:
            out[name] = ["ValueError", re.search(r"The following[^\[]*", str(e)).group(0)]
    return out


CASES = {f.__name__: f for f in [programs, consecutive, refused]}


def main():
    import os
    import types
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
    import jax
    import jax.numpy as jnp
    from jax.experimental import io_callback
    J = types.SimpleNamespace(jax=jax, jnp=jnp, io_callback=io_callback)
    out = {"jax": jax.__version__, "cases": {n: c(J) for n, c in CASES.items()}}
    (HERE / "ordered_effects_spmd.json").write_text(json.dumps(out, indent=1, sort_keys=True)
                                                    + "\n")


if __name__ == "__main__":
    main()
