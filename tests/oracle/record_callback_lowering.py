"""Host callbacks lowered as JAX 0.10.2 lowers them (`Lowered.as_text()`), and their
values: XLA's Python-callback custom call with `backend_config = ""` and the typed-FFI
attributes in `mhlo.backend_config`; where the callback runs (Shardy's maximal mesh
of device 0 in a `jit`, the empty mesh in a `shard_map` body, GSPMD's `{maximal
device=0}` with Shardy off); ordered callbacks threading `!stablehlo.token`s; a debug
print in a partially manual `shard_map`.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.P`,
`J.io_callback`) returning a dict of texts and values. Run with JAX 0.10.2 and 4 CPU
devices: `XLA_FLAGS=--xla_force_host_platform_device_count=4
/work/jaxref/bin/python tests/oracle/record_callback_lowering.py` writes
callback_lowering.json; tests/test_callback_lowering.py runs the cases on astjax.
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _double(a):
    return np.asarray(a) * 2


def _fns(J):
    jax, jnp = J.jax, J.jnp

    def pure(x):
        return jax.pure_callback(_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1

    def io(x):
        return J.io_callback(_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    def io_ordered(x):
        return J.io_callback(_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x, ordered=True)

    def debug(x):
        jax.debug.callback(lambda a: None, x)
        return x * 3

    def debug_ordered(x):
        jax.debug.callback(lambda a: None, x, ordered=True)
        return x * 3

    def two(x, n):
        a, b = jax.pure_callback(lambda a, b: (a * 2, b.sum()),
                                 (jax.ShapeDtypeStruct(x.shape, x.dtype),
                                  jax.ShapeDtypeStruct((), n.dtype)), x, n)
        return a, b
    return {"pure": pure, "io": io, "io_ordered": io_ordered, "debug": debug,
            "debug_ordered": debug_ordered, "two": two}


def _args(J, name):
    x = J.jnp.arange(6.0, dtype=J.jnp.float32).reshape(2, 3)
    return (x, J.jnp.arange(3)) if name == "two" else (x,)


def _tolist(tree):
    if isinstance(tree, (tuple, list)):
        return [_tolist(t) for t in tree]
    return np.asarray(tree, np.float64).tolist()


def one_device(J):
    """Each callback in a one-device `jit`: the text and the value."""
    out = {}
    for name, f in _fns(J).items():
        args = _args(J, name)
        out[name] = J.jax.jit(f).lower(*args).as_text()
        out[name + "_value"] = _tolist(J.jax.jit(f)(*args))
        J.jax.effects_barrier()
    return out


def committed(J):
    """An argument committed to its device: `@main`'s parameter over the empty mesh,
    declared before the callback's maximal mesh."""
    jax = J.jax
    x = jax.device_put(_args(J, "debug")[0], jax.devices()[0])
    f = _fns(J)["debug"]
    out = {"debug": jax.jit(f).lower(x).as_text(), "debug_value": _tolist(jax.jit(f)(x))}
    jax.effects_barrier()
    return out


def gspmd(J):
    """With Shardy off: GSPMD's `mhlo.sharding` on the custom call."""
    jax = J.jax
    fns = _fns(J)
    jax.config.update("jax_use_shardy_partitioner", False)
    try:
        return {n: jax.jit(fns[n]).lower(*_args(J, n)).as_text()
                for n in ("pure", "debug", "two")}
    finally:
        jax.config.update("jax_use_shardy_partitioner", True)


def _mesh(J):
    return J.jax.make_mesh((2,), ("x",), devices=J.jax.devices()[:2],
                           axis_types=(J.jax.sharding.AxisType.Auto,))


def shard_map(J):
    """In a `shard_map` body (every device calls back): the empty mesh."""
    jax, jnp, P = J.jax, J.jnp, J.P
    mesh = _mesh(J)
    fns = _fns(J)
    out = {}
    x = jnp.arange(4.0, dtype=jnp.float32)
    for name in ("pure", "io", "debug"):
        f = jax.jit(jax.shard_map(fns[name], mesh=mesh, in_specs=P("x"), out_specs=P("x")))
        # (the declaration of a named mesh: astjax prints no `stablehlo.mesh` copy)
        out[name] = _without_mesh_copies(f.lower(x).as_text())
        out[name + "_value"] = _tolist(f(x))
        jax.effects_barrier()
    return out


def set_mesh(J):
    """Under `set_mesh` of two devices: the maximal mesh of device 0."""
    jax, jnp = J.jax, J.jnp
    fns = _fns(J)
    x = jnp.arange(4.0, dtype=jnp.float32)
    with jax.set_mesh(_mesh(J)):
        return {"pure": _without_mesh_copies(jax.jit(fns["pure"]).lower(x).as_text()),
                "pure_value": _tolist(jax.jit(fns["pure"])(x))}


def partial_auto(J):
    """A debug print in a `shard_map` manual over one axis of a 2x2 mesh: once per
    index along the manual axis (a nested map runs it at index 0 of the other): the
    printed lines (sorted: the devices print concurrently) and the value."""
    import contextlib
    import io
    jax, jnp, P = J.jax, J.jnp, J.P
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

    def body(a):
        jax.debug.print("a={}", a)
        return a * 2
    f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                              axis_names={"x"}))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        y = f(jnp.arange(4.0, dtype=jnp.float32))
        jax.effects_barrier()
    return {"printed": sorted(buf.getvalue().splitlines()), "value": _tolist(y)}


def _without_mesh_copies(text):
    import re
    return re.sub(r" \{stablehlo\.mesh = .*$", "", text, flags=re.M)


CASES = {f.__name__: f for f in [one_device, committed, gspmd, shard_map, set_mesh,
                                  partial_auto]}


def main():
    import types
    import jax
    import jax.numpy as jnp
    from jax.experimental import io_callback
    J = types.SimpleNamespace(jax=jax, jnp=jnp, P=jax.sharding.PartitionSpec,
                              io_callback=io_callback)
    out = {"jax": jax.__version__, "cases": {n: c(J) for n, c in CASES.items()}}
    (HERE / "callback_lowering.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
