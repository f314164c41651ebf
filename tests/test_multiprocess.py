"""Two processes, one job (astjax.distributed on jaxlib's distributed runtime,
Gloo collectives on the CPU): each process has 2 devices, a mesh spans all 4, and
a sharded jit, a global sum, a shard_map psum, the multi-process guide's toy
pmap and jax.experimental.multihost_utils cross the processes. Workers are
tests/multiprocess_worker.py, bound to 127.0.0.1, killed by PID on time-out."""
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("multiprocess_worker.py")
ROOT = Path(__file__).resolve().parents[1]


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_job(n=2, timeout=120, extra=()):
    port = _free_port()
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="2",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(i), str(n), str(port), *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for i in range(n)]
    deadline = time.monotonic() + timeout
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=max(1, deadline - time.monotonic()))
            outs.append((p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()   # (by PID: only the processes this test started)
                p.wait()
    return outs


def test_two_processes_share_one_mesh():
    results = _run_job()
    for rc, out, err in results:
        assert rc == 0, err[-2000:]
    seen = [json.loads(out.strip().splitlines()[-1]) for _, out, _ in results]
    for pid, r in enumerate(seen):
        assert r["process_index"] == pid and r["process_count"] == 2
        assert r["device_count"] == 4 and r["local_device_count"] == 2
        assert [p for _, p in r["devices"]] == [0, 0, 1, 1]
        assert r["global_shape"] == [8] and r["fully_addressable"] is False
        assert r["sum"] == 28.0 and r["psum"] == [12.0, 16.0]
        assert r["gather"].startswith("Fetching value")
        # the multi-process guide's toy example: psum over every device of the job
        assert r["toy_pmap"] == [4.0, 4.0]
        assert r["toy_pmap_index"] == [2.0 * pid, 2.0 * pid + 1]
        # jax.experimental.multihost_utils
        assert r["allgather"] == [10.0, 11.0] and r["broadcast"] == [0, 1, 2]
        assert r["allgather_global"] == [2.0 * i for i in range(8)]
        assert r["local_block"] == [2.0 * i for i in range(4 * pid, 4 * pid + 4)]
    assert seen[0]["y_shards"] == [[0, [0.0, 2.0]], [2, [4.0, 6.0]]]
    assert seen[1]["y_shards"] == [[4, [8.0, 10.0]], [6, [12.0, 14.0]]]


def test_a_dead_peer_ends_the_survivor_within_the_heartbeat_timeout():
    start = time.monotonic()
    (rc0, _, err0), (rc1, _, _) = _run_job(timeout=90, extra=("--die",))
    assert rc1 == 3                      # process 1 exited on purpose
    assert rc0 != 0 and "another task died" in err0, err0[-2000:]
    assert time.monotonic() - start < 60


def test_initialize_after_the_runtime_started_is_an_error():
    code = ("import astjax, numpy as np\n"
            "astjax.numpy.sin(np.ones(2))\n"
            "try:\n"
            "    astjax.distributed.initialize('127.0.0.1:1', 2, 0)\n"
            "except RuntimeError as e:\n"
            "    print('RuntimeError', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, ASTJAX_NUM_CPU_DEVICES="2"))
    assert "RuntimeError" in r.stdout and "before any" in r.stdout, r.stderr[-1000:]


@pytest.mark.parametrize("bad", [dict(num_processes=2, process_id=2),
                                 dict(num_processes=2, process_id=0, local_device_ids=[0])])
def test_bad_arguments(bad):
    import astjax
    with pytest.raises(ValueError):
        astjax.distributed.initialize("127.0.0.1:1", **bad)


def test_multihost_utils_in_one_process():
    import numpy as np
    import astjax
    from astjax.compat.experimental import multihost_utils as mh
    assert mh.process_allgather(np.float32(3)).tolist() == [3.0]
    assert mh.process_allgather(np.ones(2), tiled=True).tolist() == [1.0, 1.0]
    assert mh.broadcast_one_to_all(np.arange(2)).tolist() == [0, 1]
    mh.sync_global_devices("one")
    mesh = astjax.make_mesh((4,), ("i",))
    x = astjax.device_put(np.arange(8.0), astjax.sharding.NamedSharding(mesh, astjax.P("i")))
    assert mh.process_allgather(x).tolist() == list(np.arange(8.0))
