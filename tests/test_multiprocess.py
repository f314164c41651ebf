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


def _slurm_env(i, n, port):
    """What `srun` sets for task i of n (one node, 127.0.0.1; the port given)."""
    return dict(SLURM_JOB_ID="4242", SLURM_STEP_NODELIST="127.0.0.1", SLURM_NTASKS=str(n),
                SLURM_PROCID=str(i), SLURM_LOCALID=str(i), JAX_COORDINATOR_PORT=str(port))


def _run_job(n=2, timeout=120, extra=()):
    port = _free_port()
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="2",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(i), str(n), str(port), *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(env, **(_slurm_env(i, n, port) if "--slurm" in extra
                                               else {})))
             for i in range(n)]
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


@pytest.mark.parametrize("how", ["arguments", "slurm"])
def test_two_processes_share_one_mesh(how):
    results = _run_job(extra=("--slurm",) if how == "slurm" else ())
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


@pytest.mark.parametrize("bad,error", [
    (dict(num_processes=2, process_id=2), ValueError),
    (dict(num_processes=2, process_id="0"), TypeError),
    (dict(num_processes=2.0, process_id=0), TypeError),
    (dict(num_processes=2, process_id=0, local_device_ids=["a"]), TypeError),
    (dict(num_processes=2, process_id=0, cluster_detection_method="lsf",
          local_device_ids=None), None)])
def test_bad_arguments(bad, error):
    import astjax
    bad = dict(bad)
    if error is None:   # an unknown detection method (JAX logs it and then fails)
        bad.pop("num_processes")
        with pytest.raises(ValueError, match="lsf is not supported"):
            astjax.distributed.initialize("127.0.0.1:1", **bad)
        return
    with pytest.raises(error):
        astjax.distributed.initialize("127.0.0.1:1", **bad)

# ---- GPU clusters, checked without a GPU

# (environment, what JAX 0.10.2's cluster detection returns for it: recorded with
# jax._src.clusters.ClusterEnv.auto_detect_unset_distributed_params)
CLUSTER_ENVS = [
    (dict(SLURM_JOB_ID="123456", SLURM_STEP_NODELIST="gpu[017-032],login2",
          SLURM_NTASKS="16", SLURM_PROCID="5", SLURM_LOCALID="1"),
     ("gpu017:62016", 16, 5, [1])),
    (dict(SLURM_JOB_ID="99", SLURM_STEP_NODELIST="nodeA,nodeB", SLURM_NTASKS="2",
          SLURM_PROCID="1", SLURM_LOCALID="0"), ("nodeA:61539", 2, 1, [0])),
    (dict(OMPI_MCA_orte_hnp_uri="1531576320.0;tcp://10.96.0.1,10.148.0.1:34911",
          OMPI_COMM_WORLD_SIZE="8", OMPI_COMM_WORLD_RANK="3",
          OMPI_COMM_WORLD_LOCAL_RANK="3"), ("10.96.0.1:62624", 8, 3, [3])),
    (dict(OMPI_MCA_orte_hnp_uri="1314521088.0;tcp6://[fe80::b9b:ac5d:9cf0:b858,"
          "2620:10d:c083:150e::3000:2]:43370", OMPI_COMM_WORLD_SIZE="4",
          OMPI_COMM_WORLD_RANK="0", OMPI_COMM_WORLD_LOCAL_RANK="0",
          JAX_COORDINATOR_PORT="5555"), ("fe80::b9b:ac5d:9cf0:b858:5555", 4, 0, [0])),
]
_CLUSTER_VARS = {k for env, _ in CLUSTER_ENVS for k in env} | {"JAX_LOCAL_DEVICE_IDS"}


@pytest.fixture
def clean_env(monkeypatch):
    for k in _CLUSTER_VARS:
        monkeypatch.delenv(k, raising=False)
    return monkeypatch


@pytest.mark.parametrize("env,want", CLUSTER_ENVS)
def test_cluster_detection_matches_jax(clean_env, env, want):
    from astjax.distributed import detect_cluster
    for k, v in env.items():
        clean_env.setenv(k, v)
    assert detect_cluster() == want
    # given arguments win; a given local_device_ids is kept
    assert detect_cluster("h:1", 3, 2, [0, 1]) == ("h:1", 3, 2, [0, 1])
    assert detect_cluster(process_id=0, local_device_ids=2)[2:] == (0, [2])
    assert detect_cluster(cluster_detection_method="deactivate") == (None,) * 4


def test_no_cluster_leaves_arguments_unset(clean_env):
    from astjax.distributed import detect_cluster
    assert detect_cluster() == (None, None, None, None)
    clean_env.setenv("JAX_LOCAL_DEVICE_IDS", "2,3")
    assert detect_cluster() == (None, None, None, [2, 3])
    with pytest.raises(ValueError, match="slurm is supported but not functional"):
        detect_cluster(cluster_detection_method="slurm")


def test_initialize_without_a_cluster_names_the_missing_argument(clean_env):
    import astjax
    with pytest.raises(ValueError, match="coordinator_address should be defined"):
        astjax.distributed.initialize()


def test_gpu_client_options_of_a_job(monkeypatch):
    # what the CUDA plugin's client is made with in process 1 of 4, GPUs 2 and 3
    from astjax.codegen import platforms
    job = dict(distributed_client="<client>", node_id=1, num_nodes=4, collectives=None,
               visible_devices=[2, 3])
    monkeypatch.setattr(platforms, "_distributed", job)
    options, client = platforms.gpu_client_options()
    assert client == "<client>"
    assert options["node_id"] == 1 and options["num_nodes"] == 4
    assert options["visible_devices"] == [2, 3] and options["platform_name"] == "cuda"
    monkeypatch.setattr(platforms, "_distributed", {})
    options, client = platforms.gpu_client_options()
    assert client is None and "node_id" not in options


def test_missing_cuda_plugin_is_reported_before_joining():
    from astjax.codegen import platforms
    if platforms.find_cuda_plugin() is not None:
        pytest.skip("a CUDA plugin is installed here")
    code = ("import astjax\n"
            "try:\n"
            "    astjax.distributed.initialize('127.0.0.1:1', 2, 1)\n"
            "except RuntimeError as e:\n"
            "    print('RuntimeError', e)\n")
    env = dict(os.environ, ASTJAX_PLATFORM="cuda")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=env)
    assert "RuntimeError" in r.stdout and "no CUDA PJRT plugin" in r.stdout, r.stderr[-1000:]
    assert "pip install 'astjax[cuda12]'" in r.stdout


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
