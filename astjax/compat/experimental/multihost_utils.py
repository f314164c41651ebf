"""`jax.experimental.multihost_utils`: host values across the processes of a job
(`astjax.distributed`): `process_allgather`, `broadcast_one_to_all`,
`sync_global_devices`, `host_local_array_to_global_array`,
`global_array_to_host_local_array`, `reached_preemption_sync_point`.

Each is one partitioned program over every device of the job: a process's value
is laid out on its own devices (one row per device), the program replicates the
rows everywhere (XLA's all-gather crosses the processes), and each process reads
its local copy. In a one-process job they return the obvious answers.
"""
from __future__ import annotations

import numpy as np

import astjax as _astjax
from astjax import distributed as _distributed
from astjax import tree_util as _tree_util
from astjax.codegen import sharded as _sharded
from astjax.errors import (NotImplementedInAstjaxError as _NotImplementedInAstjaxError,
                           caller_location as _caller_location)
from astjax.sharding import (Mesh as _Mesh, NamedSharding as _NamedSharding,
                             PartitionSpec as _PartitionSpec)

__all__ = ["process_allgather", "broadcast_one_to_all", "sync_global_devices",
           "host_local_array_to_global_array", "global_array_to_host_local_array",
           "reached_preemption_sync_point"]

_AXIS = "processes"


def _job_mesh():
    devs = _astjax.devices()
    return _Mesh(np.array(devs, dtype=object), (_AXIS,))


def _replicate(x, mesh):
    """A GlobalArray spanning other processes -> its whole value, on this host."""
    out = _astjax.jit(lambda v: v, out_shardings=_NamedSharding(mesh, _PartitionSpec()))(x)
    return np.asarray(out)


def _rows_per_process(value):
    """Every process's `value` (numpy), stacked: shape (process_count, *shape)."""
    mesh = _job_mesh()
    devs = list(mesh.devices.flat)
    v = np.asarray(value)
    row = v[None]
    g = _sharded.make_array_from_callback(
        (len(devs),) + v.shape, _NamedSharding(mesh, _PartitionSpec(_AXIS)), lambda idx: row)
    rows = _replicate(g, mesh)
    first = {}
    for i, d in enumerate(devs):
        first.setdefault(d.process_index, i)
    return np.stack([rows[first[p]] for p in sorted(first)])


def process_allgather(in_tree, tiled=False):
    """Every process's value of each leaf: a global array's whole value, or the
    host-local values stacked along a new leading axis (concatenated if `tiled`)."""
    def gather(x):
        if isinstance(x, _sharded.GlobalArray):
            return _replicate(x, _job_mesh()) if not x.is_fully_addressable else np.asarray(x)
        rows = _rows_per_process(x)
        return np.concatenate(list(rows)) if tiled else rows
    return _tree_util.tree_map(gather, in_tree)


def broadcast_one_to_all(in_tree, is_source=None):
    """Process 0's value of each leaf (or the process with `is_source=True`), on
    every process."""
    src = _astjax.process_index() == 0 if is_source is None else bool(is_source)
    flags = _rows_per_process(np.int32(src))
    k = int(np.argmax(flags))
    return _tree_util.tree_map(lambda x: _rows_per_process(x)[k], in_tree)


def sync_global_devices(name):
    """A barrier: returns once every process has reached it (with the same name)."""
    h = np.frombuffer(name.encode()[:8].ljust(8, b"\0"), np.int64)[0] & 0x7FFFFFFF
    got = _rows_per_process(np.int64(h))
    if not (got == got[0]).all():
        raise AssertionError(f"sync_global_devices name mismatch ('{name}')")


def host_local_array_to_global_array(local_inputs, global_mesh, pspecs):
    """Per leaf: the global array whose block on this process's devices is the
    host-local value (`make_array_from_process_local_data`)."""
    return _tree_util.tree_map(
        lambda x, s: _sharded.make_array_from_process_local_data(
            _NamedSharding(global_mesh, s), x), local_inputs, pspecs,
        is_leaf=lambda s: isinstance(s, _PartitionSpec))


def global_array_to_host_local_array(global_inputs, global_mesh, pspecs):
    """Per leaf: this process's block of a global array, as a host value."""
    def local(x, s):
        shards = sorted(x.addressable_shards, key=lambda sh: tuple(
            (i.start or 0) for i in sh.index))
        lo = [min((sh.index[k].start or 0) for sh in shards) for k in range(x.ndim)]
        hi = [max(sh.index[k].stop if sh.index[k].stop is not None else x.shape[k]
                  for sh in shards) for k in range(x.ndim)]
        out = np.empty([h - l for l, h in zip(lo, hi)], x.dtype)
        for sh in shards:
            idx = tuple(slice((i.start or 0) - l, (i.stop if i.stop is not None else n) - l)
                        for i, l, n in zip(sh.index, lo, x.shape))
            out[idx] = np.asarray(sh.data)
        return out
    return _tree_util.tree_map(local, global_inputs, pspecs,
                              is_leaf=lambda s: isinstance(s, _PartitionSpec))


def reached_preemption_sync_point(step_id: int) -> bool:
    """Whether every process reached the step at which to checkpoint after a
    preemption notice (orbax's `CheckpointManager.should_save` asks at each save).
    Alone (no `jax.distributed.initialize`): False, as JAX. In a job, JAX asks its
    preemption sync manager; astjax's distributed runtime starts none: a located
    NotImplementedError (a RuntimeError, as JAX's for a disabled preemption service,
    which orbax reads as "no preemption")."""
    if not _distributed.is_initialized():
        return False
    raise _NotImplementedInAstjaxError(
        "Preemption sync manager has not been initialized: astjax's distributed "
        "runtime has no preemption service.", loc=_caller_location())
