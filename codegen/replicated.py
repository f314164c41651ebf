"""pmap's runtime: programs run by N replicas, one per device
(`ReplicatedExecutable`), and the multi-device jaxlib arrays they take and return
(`assemble`, `put_sharded`; their jaxlib sharding is `sharded.xla_sharding`'s). The
client, single-device arrays and `shards_of` are `runtime`'s."""
from __future__ import annotations

import numpy as np

from astjax.core import ShapedArray

from .runtime import compile_mlir, put_host, xc
from .sharded import xla_sharding


def assemble(global_aval, bufs, devs):
    """Single-device buffers (one per device, in `devs` order) -> a multi-device
    jaxlib array, the argument form of a ReplicatedExecutable."""
    return xc.ArrayImpl(global_aval, xla_sharding(devs), list(bufs), committed=True,
                        _skip_checks=True)


def put_sharded(x, shard_aval: ShapedArray, devs, axis):
    """A host value (or any Array) -> a multi-device jaxlib array: slice i of `x` along
    `axis` on device i (`axis=None`: the whole of `x` on every device). Each shard is
    put separately (a replicated batched put would copy the first one everywhere)."""
    v = np.asarray(x, shard_aval.dtype)
    if axis is None:
        parts = [v] * len(devs)
    else:
        parts = [np.take(v, i, axis) for i in range(len(devs))]
    bufs = [put_host(p, shard_aval, d) for p, d in zip(parts, devs)]
    return assemble(ShapedArray(v.shape, shard_aval.dtype, shard_aval.weak_type), bufs, devs)


class ReplicatedExecutable:
    """One program run by N replicas, replica i on `devices[i]` (pmap). Arguments are
    multi-device arrays with one shard per device; `out_axes[k]` says where the device
    axis goes in result k's global shape (None: replicated, device 0's value).

    `sync`: on the CPU, a program with collectives waits for its results before
    returning. XLA's CPU runtime (jaxlib 0.10.2) deadlocks in its collective
    rendezvous when several such programs are in flight on a machine with few cores
    (measured on 2 cores; `jax.pmap` hangs the same way); one at a time is safe and
    on the CPU no slower."""

    def __init__(self, text: str, in_avals, out_avals, devs, out_axes, sync=False):
        self.text = text
        self.devices = tuple(devs)
        n = len(self.devices)
        self.in_avals = list(in_avals)
        self.out_avals = list(out_avals)            # per device
        self.out_axes = list(out_axes)
        opts = xc.CompileOptions()
        opts.num_replicas = n
        opts.num_partitions = 1
        opts.device_assignment = xc.DeviceAssignment.create(
            np.array([[d.id] for d in self.devices]))
        self.exe = compile_mlir(text, self.devices, opts)
        self.global_avals = []
        for a, ax in zip(self.out_avals, self.out_axes):
            shape = list(a.shape)
            if ax is not None:
                shape.insert(ax, n)
            self.global_avals.append(ShapedArray(shape, a.dtype, a.weak_type))
        sh = xla_sharding(self.devices)
        self.handlers = [xc.array_result_handler(g, sh, committed=True, _skip_checks=True)
                         for g in self.global_avals]
        self.sync = sync and self.devices[0].platform == "cpu"

    def as_text(self):
        return self.text
