"""`astjax.distributed`: several processes, one job, on jaxlib's own distributed
runtime (what `jax.distributed` uses).

`initialize(coordinator_address, num_processes, process_id, local_device_ids)` --
called in every process before the first computation -- starts the coordination
service in process 0 and connects each process's client to it. The runtime's
client then joins the job (`codegen.runtime.configure_distributed`, `codegen.platforms`):

- on the CPU, `make_cpu_client` with the distributed client, the node id, the
  number of nodes and Gloo TCP collectives over the client (JAX 0.10.2's CPU
  default);
- on GPUs, the CUDA PJRT plugin's client with the same node id / number of nodes
  options, the GPUs `local_device_ids` names as its visible devices, and the
  distributed client (NCCL's collectives, set up by XLA through it), as JAX makes it.

Arguments left out are read from the cluster the process was started by
(`detect_cluster`): Slurm (`srun`) and Open MPI (`mpirun`) set them in the
environment, with one GPU per process (`local_device_ids = [local rank]`), as JAX
detects them. `devices()` then lists every device of the job (each with its
`process_index`), `local_devices()` this process's; a mesh over all of them makes
partitioned programs (`codegen/spmd.py`) span the processes, each process feeding
and receiving only the buffers of its own devices
(`make_array_from_process_local_data`). `shutdown()` (also run at exit)
disconnects; heartbeats bound how long a process waits for a dead peer.
"""
from __future__ import annotations

import atexit
import os
import re

from .codegen import platforms, runtime
from .codegen.runtime import xc
from .errors import ArgumentTypeError, ArgumentValueError, caller_location

__all__ = ["initialize", "shutdown", "is_initialized", "detect_cluster", "CLUSTERS"]

_state: dict = {}

# ------------------------------------------------------------------ cluster detection
# Each launcher names the job's size, this process's rank and its rank on its host in
# environment variables; the coordinator is a host every process can compute, on a
# port derived from the job id (in the ephemeral range, so concurrent jobs differ).


def _port(job_id: int) -> str:
    return str(os.environ.get("JAX_COORDINATOR_PORT") or job_id % 2**12 + 65535 - 2**12 + 1)


def _slurm_first_host(nodes: str) -> str:
    """The first host of a Slurm node list: 'n001', 'n001,h2', 'n[001-015],h2',
    'n[001,007-015]'."""
    m = re.match(r"([^,\[]*)(?:\[([^,\-\]]*))?", nodes)
    return m.group(1) + (m.group(2) or "")


def _slurm():
    env = os.environ
    if not all(k in env for k in ("SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SLURM_NTASKS",
                                  "SLURM_PROCID", "SLURM_LOCALID")):
        return None
    return (f"{_slurm_first_host(env['SLURM_STEP_NODELIST'])}:{_port(int(env['SLURM_JOB_ID']))}",
            int(env["SLURM_NTASKS"]), int(env["SLURM_PROCID"]), int(env["SLURM_LOCALID"]))


def _ompi():
    env = os.environ
    uri = env.get("OMPI_MCA_orte_hnp_uri")
    if uri is None:
        return None
    # '1531576320.0;tcp://10.96.0.1,10.148.0.1:34911' (or tcp6://[addr,...]:port); the
    # job id is a multiple of 2**12
    m = re.search(r"tcp://(.+?)[,:]|tcp6://\[(.+?)[,\]]", uri)
    if m is None:
        raise RuntimeError("Could not parse coordinator IP address from Open MPI environment.")
    host = m.group(1) or m.group(2)
    return (f"{host}:{_port(int(uri.split('.', 1)[0]) // 2**12)}",
            int(env["OMPI_COMM_WORLD_SIZE"]), int(env["OMPI_COMM_WORLD_RANK"]),
            int(env["OMPI_COMM_WORLD_LOCAL_RANK"]))


#: cluster name -> detector: (coordinator address, process count, process id, local
#: rank) when the process runs under that launcher, else None
CLUSTERS = {"slurm": _slurm, "ompi": _ompi}


def detect_cluster(coordinator_address=None, num_processes=None, process_id=None,
                   local_device_ids=None, cluster_detection_method=None):
    """The four `initialize` arguments, each one not given taken from the cluster the
    process runs in (`cluster_detection_method` names one of `CLUSTERS`; by default
    the first present); `local_device_ids` defaults to `[local rank]` there (one GPU
    per process) and otherwise to `JAX_LOCAL_DEVICE_IDS`."""
    if isinstance(local_device_ids, int):
        local_device_ids = [local_device_ids]
    if local_device_ids is None and os.environ.get("JAX_LOCAL_DEVICE_IDS"):
        local_device_ids = [int(i) for i in os.environ["JAX_LOCAL_DEVICE_IDS"].split(",")]
    given = (coordinator_address, num_processes, process_id, local_device_ids)
    if cluster_detection_method == "deactivate" or None not in given:
        return given
    if cluster_detection_method is not None:
        if cluster_detection_method not in CLUSTERS:
            raise ArgumentValueError(
                f"Automatic Distributed initialization can not proceed: "
                f"{cluster_detection_method} is not supported (known: "
                f"{', '.join(CLUSTERS)})", loc=caller_location())
        found = CLUSTERS[cluster_detection_method]()
        if found is None:
            raise ArgumentValueError(
                f"Automatic Distributed initialization can not proceed: "
                f"{cluster_detection_method} is supported but not functional in this "
                "environment.", loc=caller_location())
    else:
        found = next((f for f in (d() for d in CLUSTERS.values()) if f is not None), None)
    if found is None:
        return given
    addr, count, pid, local = found
    return (coordinator_address if coordinator_address is not None else addr,
            num_processes if num_processes is not None else count,
            process_id if process_id is not None else pid,
            local_device_ids if local_device_ids is not None else [local])

# -------------------------------------------------------------------------- the job


def _check(coordinator_address, num_processes, process_id, local_device_ids, loc):
    """JAX's argument errors (ValueError / TypeError)."""
    if coordinator_address is None:
        raise ArgumentValueError("coordinator_address should be defined.",
                                 hint="pass it, or start the processes with srun / mpirun",
                                 loc=loc)
    if num_processes is None:
        raise ArgumentValueError("Number of processes must be defined.", loc=loc)
    if process_id is None:
        raise ArgumentValueError("The process id of the current process must be defined.",
                                 loc=loc)
    if not isinstance(process_id, int):
        raise ArgumentTypeError("process_id must be a nonnegative int. Got process_id="
                                f"{process_id} of type {type(process_id)}.", loc=loc)
    if not isinstance(num_processes, int):
        raise ArgumentTypeError("num_processes must be a positive int. Got num_processes="
                                f"{num_processes} of type {type(num_processes)}.", loc=loc)
    if not 0 <= process_id < num_processes:
        raise ArgumentValueError(
            "process_id and num_processes must be nonnegative, with process_id < "
            f"num_processes. Got process_id={process_id}, num_processes={num_processes}.",
            loc=loc)
    if local_device_ids is not None and not all(
            isinstance(i, int) and i >= 0 for i in local_device_ids):
        raise ArgumentTypeError(f"local_device_ids must be nonnegative ints, got "
                                f"{local_device_ids!r}", loc=loc)


def initialize(coordinator_address=None, num_processes=None, process_id=None,
               local_device_ids=None, cluster_detection_method=None,
               initialization_timeout=300, heartbeat_timeout_seconds=10,
               coordinator_bind_address=None):
    """Join the job: process `process_id` of `num_processes`, coordinated at
    `coordinator_address` ("host:port"; process 0 serves it, bound to
    `coordinator_bind_address`, by default the same address). Arguments not given
    come from the cluster (`detect_cluster`). `local_device_ids`: the GPUs of this
    host the process uses (visible devices of the CUDA client; the CPU client has
    no such choice, as in JAX)."""
    loc = caller_location()
    if _state:
        raise RuntimeError("distributed.initialize should only be called once.")
    coordinator_address, num_processes, process_id, local_device_ids = detect_cluster(
        coordinator_address, num_processes, process_id, local_device_ids,
        cluster_detection_method)
    _check(coordinator_address, num_processes, process_id, local_device_ids, loc)
    runtime.check_not_started()
    platforms.check_platform_available()   # a missing CUDA plugin: say so before joining
    n, pid = num_processes, process_id
    service = None
    if pid == 0:
        bind = coordinator_bind_address or os.environ.get(
            "JAX_COORDINATOR_BIND_ADDRESS") or coordinator_address
        service = xc._xla.get_distributed_runtime_service(
            bind, n, heartbeat_timeout=heartbeat_timeout_seconds,
            shutdown_timeout=heartbeat_timeout_seconds)
    client = xc._xla.get_distributed_runtime_client(
        coordinator_address, pid, init_timeout=initialization_timeout,
        heartbeat_timeout=heartbeat_timeout_seconds,
        shutdown_timeout=heartbeat_timeout_seconds, shutdown_on_destruction=False)
    client.connect()
    host = coordinator_address.rsplit(":", 1)[0]
    collectives = xc._xla.make_gloo_tcp_collectives(distributed_client=client,
                                                    hostname=host)
    runtime.configure_distributed(distributed_client=client, node_id=pid, num_nodes=n,
                                  collectives=collectives,
                                  visible_devices=local_device_ids)
    _state.update(client=client, service=service, process_id=pid, num_processes=n,
                  coordinator_address=coordinator_address)
    atexit.register(shutdown)


def is_initialized() -> bool:
    """Whether this process joined a multi-process job."""
    return bool(_state)


def shutdown():
    """Leave the job: disconnect the client, stop the service (process 0)."""
    client, service = _state.pop("client", None), _state.pop("service", None)
    _state.clear()
    if client is not None:
        try:
            client.shutdown()
        except Exception:   # a peer already gone: nothing left to say goodbye to
            pass
    if service is not None:
        service.shutdown()
