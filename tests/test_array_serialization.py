"""`jax.experimental.array_serialization` (issue 13): astjax reads the checkpoints JAX
0.10.2 writes (tests/oracle/array_serialization/, recorded by
tests/oracle/record_array_serialization.py: zarr and zarr3 stores, sharded over 8
devices, replicated, on one device), writes the same files JAX writes, and real JAX
reads what astjax wrote; a job of two processes writes one checkpoint (the commit
barrier); `get_tensorstore_spec` gives JAX's specs; orbax-checkpoint
imports and saves / restores a pytree under `python -m astjax run`. Skipped without
tensorstore (an optional dependency, as in JAX)."""
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

ts = pytest.importorskip("tensorstore")

import astjax  # noqa: E402
from astjax.compat.experimental.array_serialization import serialization  # noqa: E402
from astjax.compat.experimental.array_serialization import tensorstore_impl  # noqa: E402
from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

from oracle import record_array_serialization as rec  # noqa: E402

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _run(code, *, alias, devices=8, cwd=None):
    """Run `code` in a fresh interpreter (`jax` is astjax when `alias`, else the
    installed JAX) on `devices` CPU devices; its stdout's last line as JSON."""
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES=str(devices), TF_CPP_MIN_LOG_LEVEL="3",
               XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
               PYTHONPATH=os.pathsep.join([str(TESTS), str(ROOT)]))
    prelude = "import astjax; astjax.install_as_jax()\n" if alias else ""
    p = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], env=env,
                       capture_output=True, text=True, cwd=cwd, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _line_sharding(shape):
    """Over this process's devices: rows split when they divide evenly, else replicated."""
    devs = astjax.devices()
    mesh = Mesh(np.array(devs), ("x",))
    return NamedSharding(mesh, P("x") if shape and shape[0] % len(devs) == 0 else P())


@pytest.mark.parametrize("place", ["split", "one_device"])
def test_reads_checkpoints_jax_wrote(place):
    """Every stored case (written by JAX on 8 devices) reads back under astjax into
    another sharding (4 devices, or one), values and dtype as written."""
    shardings = {n: _line_sharding(rec.CASES[n][0]) if place == "split" else
                 astjax.sharding.SingleDeviceSharding(astjax.devices()[1]) for n in rec.CASES}
    got = rec.read_all(astjax, rec.STORE, shardings)
    for name, (v, dtype, sharding) in got.items():
        want = rec.value(name)
        want_dtype = "float32" if want.dtype == np.float64 else str(want.dtype)   # (x64 off)
        assert dtype == want_dtype, name
        np.testing.assert_array_equal(v, want.astype("float32"), err_msg=name)
        assert sharding == shardings[name], name


def test_read_into_a_larger_shape_and_another_dtype():
    """`global_shapes` beyond the stored shape read zeros there; `dtypes` casts, as JAX's
    `deserialize` does."""
    mgr = serialization.GlobalAsyncCheckpointManager()
    spec = rec.spec(astjax, "sharded_f32", rec.STORE)
    (a,) = mgr.deserialize([_line_sharding((12, 6))], [spec], global_shapes=[(12, 7)],
                           dtypes=[np.int32])
    want = np.zeros((12, 7), np.int32)
    want[:8, :6] = rec.value("sharded_f32").astype(np.int32)
    assert a.dtype == np.int32 and a.shape == (12, 7)
    np.testing.assert_array_equal(np.asarray(a), want)


def test_tensorstore_specs_are_jax_s():
    """`get_tensorstore_spec` (zarr, and zarr3 with OCDBT or per process) of local and
    bucket paths: the specs JAX gives."""
    want = json.loads((TESTS / "oracle" / "array_serialization.json").read_text())
    assert rec.specs(astjax) == want


def test_metadata_and_spec_checks():
    """The metadata a spec gets for an array (one chunk per shard) and the checks of
    `verify_tensorstore_spec` / `is_remote_storage`, as JAX's."""
    x = astjax.device_put(np.zeros((8, 6), np.float32), _line_sharding((8, 6)))
    spec = tensorstore_impl.get_tensorstore_spec("/c/x", ocdbt=False, arr=x)
    n = len(astjax.devices())
    assert spec["metadata"] == {"codecs": [], "shape": (8, 6), "data_type": "float32",
                                "chunk_grid": {"name": "regular", "configuration": {
                                    "chunk_shape": [8 // n, 6]}}}
    tensorstore_impl.verify_tensorstore_spec(spec, x, "/c/x", ocdbt=False)
    with pytest.raises(ValueError, match="does not match the spec path"):
        tensorstore_impl.verify_tensorstore_spec(spec, x, "/c/y", ocdbt=False)
    with pytest.raises(ValueError, match="Checkpoint path should be absolute") as e:
        tensorstore_impl.get_tensorstore_spec("rel/x")
    assert isinstance(e.value, astjax.errors.AstjaxError) and __file__ in str(e.value)
    with pytest.raises(TypeError, match="an instance of `jax.sharding.Sharding`") as e:
        serialization.run_deserialization(["not a sharding"], [spec])
    assert isinstance(e.value, astjax.errors.AstjaxError)
    assert serialization._get_metadata(x) == {"compressor": {"id": "zstd"}, "shape": (8, 6),
                                              "chunks": [8 // n, 6]}
    assert serialization.is_remote_storage(rec.specs(astjax)["zarr3 ocdbt gs://bucket/dir/c"])
    assert not serialization.is_remote_storage(serialization.get_tensorstore_spec("/c/x"))
    # a 12 GB shard: chunks of 1.5 GB, the first axis whose smallest prime factor is
    # the least divided by it until they fit (JAX's chunks; a size-3 axis stays whole)
    assert tensorstore_impl._compute_chunk_shape((3 * 2 ** 15, 2 ** 15), "float32") == \
        [3 * 2 ** 12, 2 ** 15]
    assert tensorstore_impl._compute_chunk_shape((3, 2 ** 30), "float32") == [3, 2 ** 27]


def _store_files(root):
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file())


def _metadata_file(case_dir):
    meta = case_dir / ".zarray"
    return json.loads((meta if meta.exists() else case_dir / "zarr.json").read_text())


def test_writes_what_jax_writes(tmp_path):
    """astjax on 8 devices writes every case: the same files, the same metadata and the
    same values as the stores JAX wrote; real JAX, where installed, reads them back."""
    _run(f"""
        import jax
        from oracle import record_array_serialization as rec
        rec.write_all(jax, {str(tmp_path)!r})
        print("{{}}")""", alias=True)
    assert _store_files(tmp_path) == _store_files(rec.STORE)
    for name in rec.CASES:
        assert _metadata_file(tmp_path / name) == _metadata_file(rec.STORE / name), name
        mine = ts.open(rec.spec(astjax, name, tmp_path)).result().read().result()
        theirs = ts.open(rec.spec(astjax, name, rec.STORE)).result().read().result()
        np.testing.assert_array_equal(mine, theirs, err_msg=name)
    if importlib.util.find_spec("jax") is None:
        return   # (the other direction needs JAX itself)
    got = _run(f"""
        import json, jax
        from oracle import record_array_serialization as rec
        out = rec.read_all(jax, {str(tmp_path)!r})
        print(json.dumps({{n: [v.tolist(), d] for n, (v, d, _) in out.items()}}))""",
               alias=False)
    for name, (v, dtype) in got.items():
        np.testing.assert_array_equal(np.array(v), rec.value(name).astype("float32"),
                                      err_msg=name)


def test_background_commit_errors_surface():
    """An error in the background commit (here the on-commit callback's) is raised by
    `wait_until_finished`, once."""
    mgr = serialization.GlobalAsyncCheckpointManager()

    def fail():
        raise OSError("disk full")
    x = astjax.numpy.arange(4.0)
    with tempfile.TemporaryDirectory() as d:
        mgr.serialize([x], [serialization.get_tensorstore_spec(d + "/x")],
                      on_commit_callback=fail)
        with pytest.raises(OSError, match="disk full"):
            mgr.wait_until_finished()
        mgr.wait_until_finished()


def test_manager_base_is_abstract_and_refuses_virtual_subclasses():
    """orbax checks `isinstance(c, GlobalAsyncCheckpointManagerBase)`: the base cannot
    be instantiated and, as JAX's `StrictABC`, refuses `register`."""
    base = serialization.GlobalAsyncCheckpointManagerBase
    with pytest.raises(TypeError, match="abstract"):
        base()
    with pytest.raises(NotImplementedError, match="virtual subclasses"):
        base.register(dict)
    assert not isinstance({}, base)
    assert isinstance(serialization.GlobalAsyncCheckpointManager(), base)


def test_no_preemption_sync_point_alone():
    """Outside a multi-process job no preemption sync point is ever reached (JAX's
    False; orbax's CheckpointManager asks at every save)."""
    from astjax.compat.experimental import multihost_utils
    assert multihost_utils.reached_preemption_sync_point(3) is False


_ORBAX_PROG = """
import json, sys
import numpy as np
import jax, jax.numpy as jnp
import orbax.checkpoint as ocp
mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
split = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x", "y"))
one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
tree = {"w": jax.device_put(jnp.arange(32.0).reshape(8, 4) - 5, split),
        "b": jax.device_put(jnp.arange(3, dtype=jnp.int32), one),
        "s": {"k": jax.device_put(jnp.float32(2.5), one)}}
ckptr = ocp.StandardCheckpointer()
steps = None
if sys.argv[1] == "save":
    ckptr.save(sys.argv[2], tree)
    ckptr.wait_until_finished()
    mngr = ocp.CheckpointManager(sys.argv[2] + "_steps",
                                 options=ocp.CheckpointManagerOptions(max_to_keep=2))
    for step in range(3):
        mngr.save(step, args=ocp.args.StandardSave(jax.tree.map(lambda a: a + step, tree)))
    mngr.wait_until_finished()
    last = mngr.restore(mngr.latest_step(), args=ocp.args.StandardRestore(tree))
    steps = [mngr.all_steps(), float(last["w"][0, 0]), int(last["b"][2])]
target = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=a.sharding),
                      tree)
back = ckptr.restore(sys.argv[2], target)
print(json.dumps({
    "same": jax.tree.all(jax.tree.map(
        lambda a, b: bool((np.asarray(a) == np.asarray(b)).all()) and a.dtype == b.dtype,
        tree, back)),
    "w_split": back["w"].sharding == split, "version": ocp.__version__, "steps": steps}))
"""


@pytest.mark.skipif(importlib.util.find_spec("orbax") is None, reason="needs orbax-checkpoint")
def test_orbax_standard_checkpointer_under_astjax(tmp_path):
    """`import orbax.checkpoint` under astjax, and a `StandardCheckpointer` round trip of
    a pytree with a leaf split over 8 devices: values, dtypes and shardings back; where
    JAX is installed, a checkpoint orbax saved under JAX restores under astjax and the
    reverse."""
    prog = tmp_path / "prog.py"
    prog.write_text(_ORBAX_PROG)
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="8", TF_CPP_MIN_LOG_LEVEL="3",
               XLA_FLAGS="--xla_force_host_platform_device_count=8")

    def run(astjax_, *args):
        cmd = [sys.executable] + (["-m", "astjax", "run"] if astjax_ else []) + [str(prog)]
        p = subprocess.run(cmd + [str(a) for a in args], env=env, capture_output=True,
                           text=True, cwd=tmp_path, timeout=600)
        assert p.returncode == 0, p.stderr[-3000:]
        got = json.loads(p.stdout.strip().splitlines()[-1])
        assert got["same"] and got["w_split"], got
        return got

    # (a CheckpointManager too: it asks multihost_utils.reached_preemption_sync_point)
    assert run(True, "save", tmp_path / "by_astjax")["steps"] == [[1, 2], -3.0, 4]
    if importlib.util.find_spec("jax") is not None:
        run(False, "restore", tmp_path / "by_astjax")
        run(False, "save", tmp_path / "by_jax")
        run(True, "restore", tmp_path / "by_jax")


_JOB_WORKER = """
import json, os, sys
import numpy as np
import astjax
from astjax.compat.experimental.array_serialization import serialization
pid, port, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
astjax.distributed.initialize(f"127.0.0.1:{port}", 2, pid)
mesh = astjax.sharding.Mesh(np.array(astjax.devices()), ("x",))
split = astjax.sharding.NamedSharding(mesh, astjax.sharding.PartitionSpec("x"))
whole = np.arange(24, dtype=np.float32).reshape(8, 3)
x = astjax.make_array_from_callback(whole.shape, split, lambda idx: whole[idx])
spec = serialization.get_tensorstore_spec(root + "/x")
mgr = serialization.GlobalAsyncCheckpointManager(timeout_secs=60)
mgr.serialize([x], [spec], on_commit_callback=lambda: open(root + "/COMMITTED", "w").close())
mgr.wait_until_finished()
committed = os.path.exists(root + "/COMMITTED")   # (process 0 made it before the key)
(y,) = mgr.deserialize([split], [serialization.get_tensorstore_spec(root + "/x")])
same = all(bool((np.asarray(s.data) == whole[s.index]).all()) for s in y.addressable_shards)
print(json.dumps({"committed": committed, "same": same,
                  "shards": len(y.addressable_shards)}))
"""


def test_two_processes_write_one_checkpoint(tmp_path):
    """A job of two processes (2 devices each) writes one array split over all four:
    each writes its shards, process 0 runs the commit callback after the barrier, both
    wait for it and read their shards back; the store holds the whole array."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="2", TF_CPP_MIN_LOG_LEVEL="3",
               PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", _JOB_WORKER, str(i), str(port),
                               str(tmp_path)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=300)
            assert p.returncode == 0, err[-3000:]
            outs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()   # (by PID: only the processes this test started)
                p.wait()
    assert outs == [{"committed": True, "same": True, "shards": 2}] * 2
    stored = ts.open(serialization.get_tensorstore_spec(str(tmp_path / "x"))).result()
    np.testing.assert_array_equal(stored.read().result(),
                                  np.arange(24, dtype=np.float32).reshape(8, 3))
