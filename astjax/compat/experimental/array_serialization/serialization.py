"""`jax.experimental.array_serialization.serialization`: checkpointing arrays through
tensorstore in the background -- what flax (`GlobalAsyncCheckpointManager`,
`get_tensorstore_spec`) and orbax-checkpoint (`GlobalAsyncCheckpointManagerBase`)
import.

`GlobalAsyncCheckpointManager.serialize` copies every array's shards to storage and
returns; a thread waits for the commits, then (in a job of several processes, after
every process reached a barrier of the distributed runtime) process 0 runs
`on_commit_callback`. `wait_until_finished` joins that thread and re-raises what it
raised. Here `get_tensorstore_spec` is JAX's older default: a plain `zarr` array,
no OCDBT (`tensorstore_impl.get_tensorstore_spec` is the `zarr3` / OCDBT one).
"""
from __future__ import annotations

import abc
import asyncio
import itertools
import logging
import re
import threading
import time
from functools import partial

import tensorstore as ts  # noqa: F401  (as JAX's: ImportError without tensorstore)

import astjax as _astjax
from astjax import monitoring as _monitoring
from astjax import tree_util as _tree_util
from astjax.compat._src.distributed import global_state as _global_state
from astjax.errors import (ArgumentValueError as _ArgumentValueError,
                           caller_location as _caller_location)

from . import tensorstore_impl as ts_impl
from .tensorstore_impl import (_DEFAULT_BASE_DRIVER as _DEFAULT_DRIVER,  # noqa: F401
                               _TS_CONTEXT as TS_CONTEXT, _LimitInFlightBytes,
                               _run_deserialization as run_deserialization,
                               _run_serialization as run_serialization, async_deserialize,
                               async_serialize)

__all__ = ["GlobalAsyncCheckpointManagerBase", "GlobalAsyncCheckpointManager",
           "AsyncManager", "BarrierTimeoutError", "get_tensorstore_spec",
           "is_remote_storage", "async_serialize", "async_deserialize",
           "run_serialization", "run_deserialization", "TS_CONTEXT"]

_get_metadata = partial(ts_impl._get_tensorstore_metadata, driver="zarr")
get_tensorstore_spec = partial(ts_impl.get_tensorstore_spec, driver="zarr", ocdbt=False)
get_tensorstore_spec.__doc__ = (
    "The `zarr` spec (no OCDBT) of an array stored at `ckpt_path` "
    "(`tensorstore_impl.get_tensorstore_spec` with driver='zarr', ocdbt=False).")

_CHECKPOINT_SUCCESS = "checkpoint_write_success"
_barrier_keys = itertools.count()
_DISTRIBUTED_SYSTEM_MSG = ("Please initialize the distributed system via "
                           "`jax.distributed.initialize()` at the start of your program.")
_BARRIER_TIMED_OUT_MSG = (
    "Suggestions for possible fixes:\n"
    "* Check the logs to see if one or more processes failed.\n"
    "* Make sure the training and checkpointing endpoints are close geographically.\n"
    "* Try increasing the timeout you pass to GlobalAsyncCheckpointManager.")
_REMOTE_URL = re.compile(r"^(gs://|s3://)")
_REMOTE_DRIVERS = ("gcs", "s3")

logger = logging.getLogger(__name__)


class BarrierTimeoutError(Exception):
    """The processes of a job did not all reach a checkpoint's commit barrier in
    time."""


def is_remote_storage(tspec) -> bool:
    """Whether a spec (or kvstore URL) writes to cloud storage (GCS or S3): its URL,
    its `base` / `kvstore`, or its driver says so."""
    if isinstance(tspec, str):
        return bool(_REMOTE_URL.match(tspec))
    for key in ("base", "kvstore"):
        if key in tspec:
            return is_remote_storage(tspec[key])
    return tspec.get("driver") in _REMOTE_DRIVERS


def _get_key(key: int) -> str:
    return f"tensorstore_checkpoint_{key}"


class _NoVirtualSubclasses(abc.ABCMeta):
    """An ABC metaclass refusing `register` (JAX's `StrictABC`): only real
    subclasses are instances."""

    def register(cls, subclass):
        raise NotImplementedError(f"{cls} does not support virtual subclasses")


class GlobalAsyncCheckpointManagerBase(metaclass=_NoVirtualSubclasses):
    """The interface of a manager of asynchronous array checkpoints: `serialize`
    starts one (waiting for the previous one first), `check_for_errors` re-raises,
    without blocking, what the background commit raised, `wait_until_finished`
    blocks until it is done, `deserialize` reads arrays back."""

    @abc.abstractmethod
    def check_for_errors(self):
        """Raise what the background commit raised, if anything (non-blocking)."""

    @abc.abstractmethod
    def wait_until_finished(self):
        """Block until the running serialization has committed."""

    @abc.abstractmethod
    def serialize(self, arrays, tensorstore_specs, *, on_commit_callback):
        """Write `arrays` to `tensorstore_specs` in the background."""

    @abc.abstractmethod
    def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None):
        """Read the arrays at `tensorstore_specs` into `shardings`."""


class AsyncManager:
    """The background commit of one checkpoint at a time (see the module docstring);
    `timeout_secs` bounds the waits at the job's barrier."""

    def __init__(self, timeout_secs=300):
        self._timeout_secs = timeout_secs
        self._timeout_in_ms = timeout_secs * 1000
        self._commit_futures = None
        self._thread = None
        self._exception = None
        self._on_commit_callback = None
        if _astjax.process_count() > 1 and _global_state.client is None:
            raise _ArgumentValueError(_DISTRIBUTED_SYSTEM_MSG, hint="", loc=_caller_location())
        self._client = _global_state.client
        self._count = None

    def __del__(self):
        if self._thread is not None and self._thread.is_alive():
            logger.warning("Please add `.wait_until_finished()` in the main thread before "
                           "your program finishes because there is a possibility of "
                           "losing errors raised if the this class is deleted before "
                           "writing is completed.")

    def _thread_func(self):
        try:
            started = time.time()
            process, nprocs = _astjax.process_index(), _astjax.process_count()
            for future in self._commit_futures:
                future.result()
            key = None
            if nprocs > 1:
                key = _get_key(self._count)
                self._client.wait_at_barrier(key, self._timeout_in_ms)
            if process == 0:
                if self._on_commit_callback is not None:
                    self._on_commit_callback()
                if nprocs > 1:
                    self._client.key_value_set(key, _CHECKPOINT_SUCCESS)
            _monitoring.record_event_duration_secs(
                "/jax/checkpoint/write/async/thread_duration_sec", time.time() - started)
        except Exception as e:   # (re-raised in the caller's thread: check_for_errors)
            self._exception = e

    def _start_async_commit(self, on_commit_callback):
        self._count = next(_barrier_keys)
        self._on_commit_callback = on_commit_callback
        self._thread = threading.Thread(target=self._thread_func)
        self._thread.start()

    def check_for_errors(self):
        """Raise, once, what the background commit raised (a barrier that timed out
        as `BarrierTimeoutError`)."""
        if self._exception is None:
            return
        exc, self._exception = self._exception, None
        if "DEADLINE_EXCEEDED: Barrier timed out" in str(exc):
            raise BarrierTimeoutError("\n".join([str(exc), _BARRIER_TIMED_OUT_MSG]))
        raise exc

    def wait_until_finished(self):
        """Join the background commit, re-raise its error; in a job of several
        processes, wait until process 0 reports the checkpoint committed."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.check_for_errors()
        if _astjax.process_count() > 1 and self._count is not None:
            self._client.blocking_key_value_get(_get_key(self._count), self._timeout_in_ms)

    def _add_futures(self, futures):
        self._commit_futures = futures


class GlobalAsyncCheckpointManager(AsyncManager, GlobalAsyncCheckpointManagerBase):
    """Checkpoints arrays through tensorstore, committing in the background."""

    def serialize(self, arrays, tensorstore_specs, *, on_commit_callback=None,
                  transaction=None):
        """Write `arrays` to `tensorstore_specs` (each completed with its metadata):
        returns once the data is copied out of the arrays; the commit, then
        `on_commit_callback` (process 0, once every process committed), run in the
        background. `transaction`: a tensorstore transaction to write in."""
        self.wait_until_finished()
        commits = []

        async def write_all():
            return await asyncio.gather(*_tree_util.tree_map(
                lambda a, spec: async_serialize(a, spec, commit_future=commits,
                                                transaction=transaction),
                arrays, tensorstore_specs))
        asyncio.run(write_all())
        self._add_futures(commits)
        self._start_async_commit(on_commit_callback)

    def serialize_with_paths(self, arrays, paths, *, on_commit_callback=None,
                             transaction=None):
        """`serialize` to the `zarr` specs of `paths`."""
        return self.serialize(arrays, _tree_util.tree_map(get_tensorstore_spec, paths),
                              on_commit_callback=on_commit_callback, transaction=transaction)

    def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                    concurrent_gb: int = 32):
        """After any running serialization, the arrays at `tensorstore_specs` read into
        `shardings` (see `run_deserialization`)."""
        self.wait_until_finished()
        return run_deserialization(shardings, tensorstore_specs, global_shapes, dtypes,
                                   concurrent_gb)

    def deserialize_with_paths(self, shardings, paths, global_shapes=None, dtypes=None,
                               concurrent_gb: int = 32):
        """`deserialize` from the `zarr` specs of `paths`."""
        return self.deserialize(shardings, _tree_util.tree_map(get_tensorstore_spec, paths),
                                global_shapes, dtypes, concurrent_gb)
