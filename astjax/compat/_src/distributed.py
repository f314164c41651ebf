"""`jax._src.distributed`: `global_state`, the state of this process's membership in a
multi-process job, as libraries read it (orbax asks `global_state.client is not None`
to tell whether `jax.distributed.initialize` ran). It reads astjax's own
(`astjax.distributed`) live: `client` / `service` are jaxlib's distributed runtime
objects while the process is in a job, None otherwise."""
from __future__ import annotations

from astjax import distributed as _distributed

__all__ = ["global_state", "State"]


class State:
    """JAX's `State`: `process_id` (0 alone), `num_processes` (1 alone), `client`,
    `service` (process 0 only), `coordinator_address` (None alone)."""

    @property
    def client(self):
        return _distributed._state.get("client")

    @property
    def service(self):
        return _distributed._state.get("service")

    @property
    def process_id(self) -> int:
        return _distributed._state.get("process_id", 0)

    @property
    def num_processes(self) -> int:
        return _distributed._state.get("num_processes", 1)

    @property
    def coordinator_address(self):
        return _distributed._state.get("coordinator_address")

    def initialize(self, *args, **kwargs):
        """`jax.distributed.initialize`'s work (`astjax.distributed.initialize`)."""
        _distributed.initialize(*args, **kwargs)

    def shutdown(self):
        """Leave the job (`astjax.distributed.shutdown`)."""
        _distributed.shutdown()


global_state = State()
