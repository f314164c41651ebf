"""Checkpoints written by JAX 0.10.2's `jax.experimental.array_serialization`, stored
for tests/test_array_serialization.py (which reads them under astjax, writes the same
cases under astjax and compares the files, and has real JAX read astjax's). Run with
JAX 0.10.2 and tensorstore (the `.[ecosystem]` environment has both), 8 CPU devices:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        python tests/oracle/record_array_serialization.py

writes array_serialization/<case>/ (the stores) and array_serialization.json (the
specs `get_tensorstore_spec` gives for a few paths). The same functions run under
either library: `jax` is the module passed in.
"""
import importlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
STORE = HERE / "array_serialization"

# name -> (shape, dtype, mesh shape or None (one device), partition spec, writer)
CASES = {
    "sharded_f32": ((8, 6), "float32", (4, 2), ("x", "y"), "manager"),
    "replicated_i32": ((4, 3), "int32", (4, 2), ("x", None), "manager"),
    "single_i32": ((5,), "int32", None, (), "manager"),
    "sharded_bf16_zarr3": ((16,), "bfloat16", (8, 1), ("x",), "zarr3"),
    "single_f64_zarr3": ((3, 2), "float64", None, (), "zarr3"),
}

SPEC_PATHS = ["/ckpt/a", "/ckpt/dir/b/", "gs://bucket/dir/c", "s3://bucket/x/y"]


def value(name):
    """The array stored under `name` (NumPy)."""
    shape, dtype, *_ = CASES[name]
    import ml_dtypes
    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    return (np.arange(int(np.prod(shape))) * 1.5 - 3).reshape(shape).astype(dt)


def sharding(jax, name):
    """The sharding `name` is written with (over the first devices)."""
    _, _, mesh_shape, spec, _ = CASES[name]
    if mesh_shape is None:
        return jax.sharding.SingleDeviceSharding(jax.devices()[0])
    devs = np.array(jax.devices()[:int(np.prod(mesh_shape))]).reshape(mesh_shape)
    mesh = jax.sharding.Mesh(devs, ("x", "y"))
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*spec))


def modules(jax):
    """`jax`'s (serialization, tensorstore_impl) modules (astjax imported as itself:
    its `jax.experimental` compatibility modules)."""
    pkg = ("astjax.compat" if jax.__name__ == "astjax" else "jax") + \
        ".experimental.array_serialization"
    return (importlib.import_module(f"{pkg}.serialization"),
            importlib.import_module(f"{pkg}.tensorstore_impl"))


def spec(jax, name, root):
    """The tensorstore spec of `name`'s store under `root`."""
    serialization, tensorstore_impl = modules(jax)
    path = str(Path(root) / name)
    if CASES[name][4] == "zarr3":
        return tensorstore_impl.get_tensorstore_spec(path, ocdbt=False)
    return serialization.get_tensorstore_spec(path)


def write_all(jax, root):
    """Write every case under `root` with `jax`'s array_serialization."""
    serialization, _ = modules(jax)
    names = list(CASES)
    arrays = [jax.device_put(value(n), sharding(jax, n)) for n in names]
    manager = serialization.GlobalAsyncCheckpointManager()
    committed = []
    manager.serialize(arrays, [spec(jax, n, root) for n in names],
                      on_commit_callback=lambda: committed.append(True))
    manager.wait_until_finished()
    assert committed == [True]


def read_all(jax, root, shardings=None):
    """{name: (NumPy value, dtype name, spec of the sharding read into)} of every case
    under `root`, each read into `shardings[name]` (default: its writing sharding)."""
    serialization, _ = modules(jax)
    names = list(CASES)
    shard = [(shardings or {}).get(n) or sharding(jax, n) for n in names]
    manager = serialization.GlobalAsyncCheckpointManager()
    out = manager.deserialize(shard, [spec(jax, n, root) for n in names])
    return {n: (np.asarray(a.astype("float32")), str(a.dtype), a.sharding)
            for n, a in zip(names, out)}


def specs(jax):
    """What `get_tensorstore_spec` (both modules, their options) gives for SPEC_PATHS."""
    serialization, tensorstore_impl = modules(jax)
    out = {}
    for p in SPEC_PATHS:
        out[f"serialization {p}"] = serialization.get_tensorstore_spec(p)
        out[f"zarr3 ocdbt {p}"] = tensorstore_impl.get_tensorstore_spec(p)
        out[f"zarr3 process 3 {p}"] = tensorstore_impl.get_tensorstore_spec(
            p, ocdbt=False, process_idx=3)
    return out


def main():
    import jax
    assert len(jax.devices()) == 8, "run with 8 CPU devices"
    import shutil
    shutil.rmtree(STORE, ignore_errors=True)
    write_all(jax, STORE)
    got = read_all(jax, STORE)
    for n, (v, _, _) in got.items():
        np.testing.assert_array_equal(v, value(n).astype("float32"))
    (HERE / "array_serialization.json").write_text(json.dumps(specs(jax), indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
