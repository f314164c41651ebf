"""`astjax.distributed`: several processes, one job, on jaxlib's own distributed
runtime (what `jax.distributed` uses).

`initialize(coordinator_address, num_processes, process_id)` -- called in every
process before the first computation -- starts the coordination service in
process 0, connects each process's client to it, and makes the CPU client with
that client, its node id, the number of nodes and Gloo TCP collectives over it
(JAX 0.10.2's CPU default). `devices()` then lists every device of the job (each
with its `process_index`), `local_devices()` this process's; a mesh over all of
them makes partitioned programs (`codegen/spmd.py`) span the processes, each
process feeding and receiving only the buffers of its own devices
(`make_array_from_process_local_data`). `shutdown()` (also run at exit)
disconnects; heartbeats bound how long a process waits for a dead peer.
"""
from __future__ import annotations

import atexit

from .codegen import runtime
from .codegen.runtime import xc
from .errors import ArgumentValueError, caller_location

__all__ = ["initialize", "shutdown", "is_initialized"]

_state: dict = {}


def initialize(coordinator_address=None, num_processes=None, process_id=None,
               local_device_ids=None, *, heartbeat_timeout_seconds=10,
               initialization_timeout=120, coordinator_bind_address=None):
    """Join the job: process `process_id` of `num_processes`, coordinated at
    `coordinator_address` ("host:port"; process 0 serves it)."""
    loc = caller_location()
    if _state:
        raise RuntimeError("distributed.initialize should only be called once.")
    if coordinator_address is None or num_processes is None or process_id is None:
        raise ArgumentValueError(
            "astjax.distributed.initialize needs coordinator_address, num_processes and "
            "process_id (no cluster auto-detection)", loc=loc)
    if not 0 <= int(process_id) < int(num_processes):
        raise ArgumentValueError(f"process_id {process_id} is not in range({num_processes})",
                                 loc=loc)
    if local_device_ids is not None:
        raise ArgumentValueError("local_device_ids is not supported on the CPU client "
                                 "(ASTJAX_NUM_CPU_DEVICES sets the local device count)",
                                 loc=loc)
    runtime.check_not_started()
    n, pid = int(num_processes), int(process_id)
    service = None
    if pid == 0:
        bind = coordinator_bind_address or coordinator_address
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
                                  collectives=collectives)
    _state.update(client=client, service=service, process_id=pid, num_processes=n)
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
