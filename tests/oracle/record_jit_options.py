"""`jit(device=, backend=, compiler_options=)` and `Lowered.compile(compiler_options=)`
as JAX 0.10.2 runs them, on 4 CPU devices, and a recorder of JAX's outcomes (see README.md).
The `sharded_*` scenarios combine `compiler_options` with `in_shardings` /
`out_shardings` or with arguments laid out over the 4 devices.

`SCENARIOS` maps a name to a function of (jit, device_put, devices, x) that returns an
array or raises; `device_put.single(d)` is a SingleDeviceSharding, `device_put.named(
devices, spec)` a NamedSharding over a one-axis mesh 'x' of `devices`. Recorded per scenario: the result's devices, `committed` and value,
or the exception's class and first line; and the warnings' classes and text. Run with
JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_jit_options.py` writes
jit_options.json."""
import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np


def _f(x):
    return x * 2.0


SCENARIOS = {
    "device1": lambda jit, put, devs, x: jit(_f, device=devs[1])(x),
    "device0": lambda jit, put, devs, x: jit(_f, device=devs[0])(x),
    "device2_committed_elsewhere": lambda jit, put, devs, x: jit(_f, device=devs[2])(
        put(x, devs[0])),
    "device1_committed_there": lambda jit, put, devs, x: jit(_f, device=devs[1])(
        put(x, devs[1])),
    "backend_cpu": lambda jit, put, devs, x: jit(_f, backend="cpu")(x),
    "device_and_backend": lambda jit, put, devs, x: jit(_f, device=devs[1], backend="cpu"),
    "device_and_in_shardings": lambda jit, put, devs, x: jit(
        _f, device=devs[1], in_shardings=put.single(devs[0])),
    "device_and_out_shardings": lambda jit, put, devs, x: jit(
        _f, device=devs[1], out_shardings=put.single(devs[0])),
    "backend_gpu_absent": lambda jit, put, devs, x: jit(_f, backend="gpu")(x),
    "backend_unknown": lambda jit, put, devs, x: jit(_f, backend="tpuu")(x),
    "compiler_options_bool": lambda jit, put, devs, x: jit(
        _f, compiler_options={"xla_cpu_enable_fast_math": True})(x),
    "compiler_options_str": lambda jit, put, devs, x: jit(
        _f, compiler_options={"xla_backend_optimization_level": "0"})(x),
    "compiler_options_int": lambda jit, put, devs, x: jit(
        _f, compiler_options={"xla_backend_optimization_level": 0})(x),
    "compiler_options_unknown": lambda jit, put, devs, x: jit(
        _f, compiler_options={"xla_not_an_option": True})(x),
    "compiler_options_bad_value": lambda jit, put, devs, x: jit(
        _f, compiler_options={"xla_cpu_enable_fast_math": "maybe"})(x),
    "abstracted_axes": lambda jit, put, devs, x: jit(_f, abstracted_axes=("n",)),
    "device1_lower_compile": lambda jit, put, devs, x: jit(_f, device=devs[1]).lower(
        x).compile()(x),
    "lower_compile_options": lambda jit, put, devs, x: jit(_f).lower(x).compile(
        compiler_options={"xla_cpu_enable_fast_math": True})(x),
    "lower_compile_options_unknown": lambda jit, put, devs, x: jit(_f).lower(x).compile(
        compiler_options={"xla_not_an_option": True})(x),
    "device1_lower_compile_options": lambda jit, put, devs, x: jit(_f, device=devs[1]).lower(
        x).compile(compiler_options={"xla_cpu_enable_fast_math": True})(x),
}


def _sharded(jit, put, devs, options, *, compile_options=None, in_out=True):
    """`_f` on 8 values laid out over the 4 devices along 'x': sharded by jit's
    in_shardings / out_shardings (or, without `in_out`, by the argument itself),
    compiled with `options` (or, with `compile_options`, by `Lowered.compile`)."""
    s = put.named(devs, ("x",))
    x = np.arange(8, dtype=np.float32)
    if not in_out:
        x = put(x, s)
    kw = {"in_shardings": s, "out_shardings": s} if in_out else {}
    if options is not None:
        kw["compiler_options"] = options
    f = jit(_f, **kw)
    if compile_options is not None:
        return f.lower(x).compile(compiler_options=compile_options)(x)
    return f(x)


_FAST = {"xla_cpu_enable_fast_math": True}
SCENARIOS.update({
    "sharded_compiler_options": lambda jit, put, devs, x: _sharded(jit, put, devs, _FAST),
    "sharded_compiler_options_int": lambda jit, put, devs, x: _sharded(
        jit, put, devs, {"xla_backend_optimization_level": 0}),
    "sharded_compiler_options_unknown": lambda jit, put, devs, x: _sharded(
        jit, put, devs, {"xla_not_an_option": True}),
    "sharded_compiler_options_bad_value": lambda jit, put, devs, x: _sharded(
        jit, put, devs, {"xla_cpu_enable_fast_math": "maybe"}),
    "sharded_lower_compile_options": lambda jit, put, devs, x: _sharded(
        jit, put, devs, None, compile_options=_FAST),
    "sharded_lower_compile_options_unknown": lambda jit, put, devs, x: _sharded(
        jit, put, devs, None, compile_options={"xla_not_an_option": True}),
    "sharded_argument_compiler_options": lambda jit, put, devs, x: _sharded(
        jit, put, devs, _FAST, in_out=False),
    "sharded_argument_compiler_options_unknown": lambda jit, put, devs, x: _sharded(
        jit, put, devs, {"xla_not_an_option": True}, in_out=False),
})


def _named(sharding, mesh, spec):
    """`put.named` for a library with these three classes."""
    def named(devs, axes):
        return sharding(mesh(np.array(devs), ("x",)), spec(*axes))
    return named


def outcome(thunk):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = thunk()
            res = {"devices": sorted(d.id for d in r.devices()), "committed": r.committed,
                   "value": np.asarray(r).tolist()}
        except Exception as e:  # noqa: BLE001 - the class is what is recorded
            res = {"raises": type(e).__name__, "message": str(e).split("\n")[0]}
    res["warnings"] = [f"{m.category.__name__}: {m.message}" for m in w]
    return res


def record(path):
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import jax

    def put(x, d):
        return jax.device_put(x, d)
    put.single = jax.sharding.SingleDeviceSharding
    put.named = _named(jax.sharding.NamedSharding, jax.sharding.Mesh, jax.sharding.PartitionSpec)
    devs = jax.devices()
    x = np.float32(3.0)
    out = {name: outcome(lambda: fn(jax.jit, put, devs, x)) for name, fn in SCENARIOS.items()}
    Path(path).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("jit_options.json"))
