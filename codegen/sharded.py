"""Arrays that know their layout: `GlobalArray`, one jaxlib buffer per device.

A `GlobalArray` is a global value laid out over several devices as an
`astjax.sharding` `NamedSharding` says: device d holds `x[index]` for the index
`sharding.devices_indices_map(shape)[d]` (several devices hold the same part when
the layout replicates it). The buffers of this process's devices form one
multi-device jaxlib array whose devices are in the order of the sharding's device
assignment (the mesh's devices, row-major), which is the argument form of a
program partitioned over that mesh (`codegen.spmd`). In a multi-process job
(`astjax.distributed`) the other processes hold the other buffers; only a fully
replicated array can then be read whole.

- `put(x, sharding)`: a host value (or any Array) laid out as `sharding`; each
  device's part is put separately.
- `from_callback`, `from_single_device_arrays`: JAX's `make_array_from_callback` and
  `make_array_from_single_device_arrays`.
- `np.asarray`, printing and operations that are not SPMD-aware gather the shards
  to the host; `addressable_shards` gives each device's part without copying.
"""
from __future__ import annotations

import math

import numpy as np

from astjax import core, dtypes, tree_util
from astjax.core import ShapedArray
from astjax.errors import ArgumentTypeError, ArgumentValueError
from astjax.ir import in_memory_space
from astjax.memory import kind_to_space
from astjax.primitives.spmd import layouts_per_leaf, resolve_sharding
from astjax.sharding_impls import (NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding,
                             hlo_sharding)

from . import runtime
from .runtime import Shard, xc

__all__ = ["GlobalArray", "put", "put_tree", "from_callback", "from_single_device_arrays",
           "assignment_of", "xla_sharding", "make_array_from_callback",
           "make_array_from_single_device_arrays", "make_array_from_process_local_data",
           "GSPMDSharding", "maximal_array"]


class _XlaSharding(xc.GSPMDSharding):
    """What jaxlib's C++ side asks of the sharding of a multi-device array."""

    @property
    def memory_kind(self):
        return self._memory_kind

    def _to_xla_hlo_sharding(self, ndim):
        return self._hlo_sharding


_xla_cache: dict = {}


def xla_sharding(devs, hlo_text="{replicated}", kind=None):
    """jaxlib's sharding object for buffers on `devs` (in this order), in memory
    `kind` (None: device memory; `codegen/host_sharded.py`)."""
    key = (tuple(devs), hlo_text, kind)
    s = _xla_cache.get(key)
    if s is None:
        s = _xla_cache[key] = _XlaSharding(xc.DeviceList(tuple(devs)),
                                           xc.HloSharding.from_string(hlo_text),
                                           memory_kind=kind)
    return s


def assignment_of(sharding) -> tuple:
    """The devices of `sharding` in its device-assignment order (the mesh's devices,
    row-major; JAX's `_device_assignment`)."""
    if isinstance(sharding, NamedSharding):
        return tuple(sharding.mesh.devices.flat)
    if isinstance(sharding, SingleDeviceSharding):
        return (sharding._device,)
    raise ArgumentTypeError(f"astjax lays arrays out by NamedSharding or "
                            f"SingleDeviceSharding, got {sharding!r}")


def local(devs):
    """The devices of `devs` this process owns (all of them in a one-process job)."""
    me = runtime.client().process_index()
    return tuple(d for d in devs if d.process_index == me)


class GlobalArray(runtime.Array):
    """A global array laid out over several devices by an `astjax.sharding`
    sharding (see the module docstring). Results of sharded `jit`, `shard_map`
    and `device_put(x, NamedSharding(...))` are GlobalArrays."""
    __slots__ = ("_arr", "_sharding", "_devices", "_single", "_local")

    def __init__(self, arr, aval: ShapedArray, sharding, devs):
        # `aval` is the global aval and deliberately not interned: the jit fast path
        # keys on interned avals and must never hand `_arr` to a 1-device program.
        # `_arr` holds the buffers of this process's devices (`_local`) only.
        self._arr, self.aval, self._npy = arr, aval, None
        self._sharding, self._devices, self._single = sharding, tuple(devs), None
        self._local = local(self._devices)

    @property
    def _buf(self):
        """A single-device copy on the default device (for code that is not SPMD-aware)."""
        if self._single is None:
            value = self._reduced_value() if self._unreduced() else self._value()
            self._single = runtime.put_host(value, self.aval)
        return self._single

    def _reduced_value(self) -> np.ndarray:
        """The value an unreduced array stands for: its shards summed over the
        unreduced mesh axes (each device along them holds a partial sum)."""
        s = self._sharding
        mesh, unreduced = s.mesh, s.spec.unreduced
        named = {a for e in s.spec.partitions for a in PartitionSpec._axes(e)}
        index = NamedSharding(mesh, s.spec.update(unreduced=frozenset())).devices_indices_map(
            self.shape)
        where = {mesh.devices[p]: dict(zip(mesh.axis_names, p))
                 for p in np.ndindex(*mesh.devices.shape)}
        out = np.zeros(self.shape, self.dtype)
        shard_aval = ShapedArray(s.shard_shape(self.shape), self.dtype)
        for d, buf in zip(self._local, self._buffers()):
            if any(k for a, k in where[d].items() if a not in named and a not in unreduced):
                continue        # a copy along a replicated axis
            out[index[d]] += runtime.Array(buf, shard_aval)._value()
        return out

    @property
    def sharding(self):
        """The layout (a NamedSharding)."""
        return self._sharding

    def _unreduced(self):
        return isinstance(self._sharding, NamedSharding) and bool(self._sharding.spec.unreduced)

    def __repr__(self):     # an unreduced array has no value to show without a reduction
        if self._unreduced():
            return (f"Array(shape={self.aval.shape}, dtype={self.aval.dtype.name}, "
                    f"sharding={self._sharding})")
        return super().__repr__()

    def __str__(self):
        return repr(self) if self._unreduced() else super().__str__()

    def __format__(self, spec):
        return repr(self) if self._unreduced() else super().__format__(spec)

    @property
    def is_fully_replicated(self) -> bool:
        return self._sharding.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        return self._sharding.is_fully_addressable

    @property
    def committed(self) -> bool:
        """True: a laid-out array stays on its devices (as JAX's)."""
        return True

    def addressable_data(self, index: int) -> runtime.Array:
        """Shard `index`'s data, in the sharding's device order (fully replicated: the
        first shard's, whatever `index`), committed to its device."""
        shards = self.addressable_shards
        return shards[0 if self.is_fully_replicated else index].data

    def on_device_size_in_bytes(self) -> int:
        """The bytes of every device's part together (jaxlib's figure per part)."""
        return self._buffers()[0].on_device_size_in_bytes() * len(self._devices)

    def unsafe_buffer_pointer(self) -> int:
        """jaxlib's error: only a one-device array has one buffer address."""
        return self._arr.unsafe_buffer_pointer()

    def _check_live(self):
        """JAX's RuntimeError for a deleted (e.g. donated) array, instead of handing
        deleted buffers to XLA."""
        if self._arr.is_deleted():
            raise RuntimeError(f"Array has been deleted with shape={self.dtype.name}"
                               f"[{','.join(map(str, self.shape))}].")

    def _buffers(self):
        self._check_live()
        return runtime.shards_of(self._arr)

    @property
    def addressable_shards(self):
        """Each device's part, in the sharding's device order."""
        shard_aval = runtime.intern_aval(ShapedArray(
            self._sharding.shard_shape(self.shape), self.dtype, self.weak_type))
        # (in host memory: HostMemoryArrays, typed as the device's, as in JAX)
        cls = runtime.CommittedArray if host_kind(self._sharding) is None \
            else runtime.memory_rule[1]
        index = self._sharding.devices_indices_map(self.shape)
        seen: dict = {}
        out = []
        for d, buf in zip(self._local, self._buffers()):
            idx = index[d]
            key = tuple((s.start, s.stop) for s in idx)
            out.append(Shard(d, idx, cls(buf, shard_aval), seen.get(key, 0)))
            seen[key] = seen.get(key, 0) + 1
        return out

    def __array__(self, dtype=None, copy=None):
        return runtime.host_array(self._value(), dtype, copy)

    def _value(self) -> np.ndarray:
        if self._npy is None:
            if len(self._local) < len(self._devices) and not self.is_fully_replicated:
                raise RuntimeError(
                    "Fetching value for `jax.Array` that spans non-addressable (non "
                    "process local) devices is not possible. Use `.addressable_shards` "
                    "to inspect this process's shards.")
            index = self._sharding.devices_indices_map(self.shape)
            out = np.empty(self.shape, self.dtype)
            shard_aval = ShapedArray(self._sharding.shard_shape(self.shape), self.dtype)
            done = set()
            for d, buf in zip(self._local, self._buffers()):
                idx = index[d]
                key = tuple((s.start, s.stop) for s in idx)
                if key in done:
                    continue
                done.add(key)
                out[idx] = runtime.Array(buf, shard_aval)._value()
            out.flags.writeable = False
            self._npy = out
        return self._npy

    @property
    def device(self):
        """The device of a one-device layout (JAX's ValueError for several)."""
        if len(self._devices) == 1:
            return self._devices[0]
        raise ValueError("Length of devices is greater than 1. Please use `.devices()`.")

    def devices(self):
        return set(self._devices)

    def block_until_ready(self):
        self._arr.block_until_ready()
        return self

    def is_ready(self):
        return self._arr.is_ready()

    def is_deleted(self):
        return self._arr.is_deleted()

    def delete(self):
        self._arr.delete()

    def copy_to_host_async(self):
        for s in self._buffers():
            s._copy_single_device_array_to_host_async()

    def on_devices(self, devs):
        """The multi-device jaxlib array with the shards in `devs` order (the same
        buffers, no copy), for a program whose device assignment is `devs`."""
        devs = tuple(devs)
        self._check_live()
        if devs == self._devices:
            return self._arr
        by_dev = dict(zip(self._local, self._buffers()))
        return xc.ArrayImpl(self.aval, xla_sharding(devs, kind=host_kind(self._sharding)),
                            [by_dev[d] for d in local(devs)], committed=True,
                            _skip_checks=True)


def _host_value(x, dtype=None):
    if isinstance(x, core.Tracer):
        raise ArgumentTypeError("a staged value cannot be laid out on devices while staging; "
                                "use lax.with_sharding_constraint inside jit")
    if isinstance(x, runtime.Array):
        return x._value(), x.aval
    aval = runtime._aval_of_host(x)
    return np.asarray(x, aval.dtype), aval


def _check_rank(sharding, shape, what="device_put"):
    if isinstance(sharding, NamedSharding) and len(sharding.spec) > len(shape):
        raise ArgumentValueError(
            f"One of {what} got sharding {sharding!r} which implies that it has a rank of "
            f"at least {len(sharding.spec)}, but the value has shape {tuple(shape)} (rank "
            f"{len(shape)})", hint="give the PartitionSpec at most one entry per dimension")


def assemble(aval, sharding, bufs, devs) -> runtime.Array:
    """The buffers of this process's devices of `devs` (in `devs` order) -> a
    GlobalArray; for a SingleDeviceSharding, an Array committed to its device. (A
    NamedSharding over a one-device mesh stays one, as JAX keeps it.)"""
    if isinstance(sharding, SingleDeviceSharding):
        return runtime.CommittedArray(bufs[0], runtime.intern_aval(aval))
    hlo = hlo_sharding(sharding, aval.ndim, devs) if isinstance(sharding, NamedSharding) \
        else "{replicated}"
    kind = host_kind(sharding)
    arr = xc.ArrayImpl(aval, xla_sharding(devs, hlo, kind), list(bufs), committed=True,
                       _skip_checks=True)
    return GlobalArray(arr, aval, sharding, devs)


def put(x, sharding) -> runtime.Array:
    """`device_put(x, sharding)` for one leaf."""
    if not isinstance(sharding, Sharding):
        raise ArgumentTypeError(f"device_put needs a Device or a Sharding, got {sharding!r}")
    if isinstance(sharding, SingleDeviceSharding):
        return runtime.device_put(x, sharding._device)
    if (type(x) is GlobalArray and x._sharding == sharding):
        return x
    value, aval = _host_value(x)
    aval = aval.update(weak_type=aval.weak_type)
    _check_rank(sharding, aval.shape)
    devs = assignment_of(sharding)
    spec = sharding.spec if isinstance(sharding, NamedSharding) else None
    if spec is not None and spec.unreduced:
        value = _partial_sums(value, sharding)
        sharding_ = NamedSharding(sharding.mesh, spec.update(unreduced=frozenset()))
    else:
        value, sharding_ = {d: value for d in devs}, sharding
    index = sharding_.devices_indices_map(aval.shape)   # IndivisibleError when it must
    shard_aval = ShapedArray(sharding.shard_shape(aval.shape), aval.dtype, aval.weak_type)
    kind = host_kind(sharding)   # (a host memory: the global type says which space)
    bufs = [runtime.put_host(np.ascontiguousarray(value[d][index[d]]), shard_aval, d, kind)
            for d in local(devs)]
    return assemble(in_memory_space(ShapedArray(aval.shape, aval.dtype, aval.weak_type),
                                    kind_to_space(kind)), sharding, bufs, devs)


def host_kind(sharding):
    """The host memory kind `sharding` names (None: device memory)."""
    kind = getattr(sharding, "memory_kind", None)
    return None if kind in (None, "device") else kind


def _partial_sums(value, sharding):
    """Per device, its part of a value laid out unreduced over some mesh axes: the
    devices at the first position along those axes hold the value, the others
    zeros, so the sum over them (what a `reshard` computes) is the value."""
    mesh, unreduced = sharding.mesh, sharding.spec.unreduced
    zeros = np.zeros_like(value)
    out = {}
    for pos in np.ndindex(*mesh.devices.shape):
        first = all(k == 0 for a, k in zip(mesh.axis_names, pos) if a in unreduced)
        out[mesh.devices[pos]] = value if first else zeros
    return out


def from_callback(shape, sharding, data_callback, dtype=None) -> runtime.Array:
    """`make_array_from_callback`: device d's part is `data_callback(index_d)`."""
    shape = tuple(int(s) for s in shape)
    _check_rank(sharding, shape, "make_array_from_callback")
    devs = assignment_of(sharding)
    index = sharding.devices_indices_map(shape)
    want = tuple(sharding.shard_shape(shape))
    parts = []
    for d in local(devs):
        v, a = _host_value(data_callback(index[d]))
        if tuple(v.shape) != want:
            raise ArgumentValueError(
                f"make_array_from_callback: the callback returned shape {tuple(v.shape)} for "
                f"index {index[d]} of device {d}, but the sharding's shard shape is {want}")
        parts.append((v, a))
    if dtype is not None:
        parts = [(v.astype(dtypes.canonicalize(dtype)), a) for v, a in parts]
    dt = parts[0][0].dtype
    shard_aval = ShapedArray(want, dt)
    bufs = [runtime.put_host(np.ascontiguousarray(v), shard_aval, d)
            for (v, _), d in zip(parts, local(devs))]
    return assemble(ShapedArray(shape, dt), sharding, bufs, devs)


def from_single_device_arrays(shape, sharding, arrays) -> runtime.Array:
    """`make_array_from_single_device_arrays`: one Array per device of `sharding`,
    each already holding that device's part (no copy when it is on that device)."""
    shape = tuple(int(s) for s in shape)
    devs = assignment_of(sharding)
    arrays = list(arrays)
    mine = local(devs)
    if len(arrays) != len(mine):
        raise ArgumentValueError(
            f"make_array_from_single_device_arrays: got {len(arrays)} arrays for a sharding "
            f"over {len(mine)} devices of this process",
            hint="pass one array per (local) device of the sharding")
    want = tuple(sharding.shard_shape(shape))
    by_dev = {}
    for a in arrays:
        if not isinstance(a, runtime.Array) or isinstance(a, GlobalArray):
            raise ArgumentTypeError("make_array_from_single_device_arrays needs single-device "
                                    f"Arrays, got {type(a).__name__}")
        if tuple(a.shape) != want:
            raise ArgumentValueError(
                f"make_array_from_single_device_arrays: an array has shape {a.shape}, but the "
                f"sharding's shard shape is {want}")
        by_dev[a.device] = a
    missing = [d for d in mine if d not in by_dev]
    if missing:
        raise ArgumentValueError(f"make_array_from_single_device_arrays: no array on "
                                 f"device(s) {missing} of the sharding")
    dt = arrays[0].dtype
    bufs = [by_dev[d]._buf for d in mine]
    return assemble(ShapedArray(shape, dt, arrays[0].weak_type), sharding, bufs, devs)


# ------------------------------------------------------------- JAX's constructors

def put_tree(x, shardings, loc=None):
    """`device_put(x, shardings)`: `shardings` is one Sharding (or a bare
    PartitionSpec under a mesh context) for every leaf, or a pytree prefix of `x`."""
    leaves, tree = tree_util.flatten_for_staging(x)
    out = []
    for v, s in zip(leaves, layouts_per_leaf(shardings, x, "device_put: the shardings", loc)):
        out.append(runtime.device_put(v) if s is None
                   else put(v, resolve_sharding(s, "device_put", loc)))
    return tree_util.tree_unflatten(tree, out)


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """A global array of `shape` laid out as `sharding`, each device's part made by
    `data_callback(index)` (`index`: a tuple of slices into the global value)."""
    return from_callback(shape, sharding, data_callback, dtype)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None):
    """A global array of `shape` laid out as `sharding` from one single-device Array
    per device, each holding that device's part."""
    out = from_single_device_arrays(shape, sharding, arrays)
    if dtype is not None and np.dtype(dtype) != out.dtype:
        raise ArgumentValueError(f"make_array_from_single_device_arrays: dtype {dtype} "
                                 f"differs from the arrays' {out.dtype}")
    return out


def _global_shape(sharding, local_shape, mine):
    """The global shape whose block on this process's devices has `local_shape`:
    each dimension scaled by its tiling factor over the number of its tiles held
    here."""
    if not isinstance(sharding, NamedSharding):
        return tuple(local_shape)
    factors = [math.prod(sharding.mesh.shape[a] for a in PartitionSpec._axes(e))
               for e in sharding.spec._normalized(len(local_shape))]
    probe = sharding.devices_indices_map(tuple(factors))   # one element per tile
    out = []
    for k, (n, f) in enumerate(zip(local_shape, factors)):
        held = len({probe[d][k].indices(f)[0] for d in mine})
        out.append(n // held * f)
    return tuple(out)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """A global array of `global_shape` from the data of this process's devices:
    `local_data` is the block of the global value that this process's devices hold
    (the whole value in a one-process job; by default the global shape scales each
    dimension this process splits by the number of processes that split it)."""
    value, _ = _host_value(local_data)
    devs = assignment_of(sharding)
    mine = local(devs)
    if global_shape is None:
        global_shape = _global_shape(sharding, value.shape, mine)
    global_shape = tuple(int(n) for n in global_shape)
    index = sharding.devices_indices_map(global_shape)
    lo = [min(index[d][k].indices(n)[0] for d in mine) for k, n in enumerate(global_shape)]
    hi = [max(index[d][k].indices(n)[1] for d in mine) for k, n in enumerate(global_shape)]
    if tuple(h - l for l, h in zip(lo, hi)) != tuple(value.shape):
        raise ArgumentValueError(
            f"make_array_from_process_local_data: this process's devices hold a block of "
            f"shape {tuple(h - l for l, h in zip(lo, hi))} of the global shape "
            f"{global_shape}, but the local data has shape {tuple(value.shape)}")

    def part(idx):
        return value[tuple(slice(s.indices(n)[0] - l, s.indices(n)[1] - l)
                           for s, n, l in zip(idx, global_shape, lo))]
    return from_callback(global_shape, sharding, part, value.dtype)


class GSPMDSharding(Sharding):
    """XLA's own layout of a partitioned program's result that no `NamedSharding`
    describes: the maximal layout of a host callback's result (`{maximal device=0}`),
    which JAX shows as `GSPMDSharding`. The value is on the program's first device;
    every other device of `devices` holds zeros, and reading it reads the first."""

    def __init__(self, devices, hlo: str, *, memory_kind=None):
        self._devices, self._hlo = tuple(devices), hlo
        self._memory_kind = memory_kind or "device"

    @property
    def device_set(self):
        return set(self._devices)

    @property
    def _device_assignment(self):
        return self._devices

    @property
    def is_fully_replicated(self):   # (JAX's answer for a maximal layout)
        return True

    def devices_indices_map(self, global_shape):
        return {d: (slice(None),) * len(global_shape) for d in self._devices}

    def shard_shape(self, global_shape):
        return tuple(global_shape)

    def is_equivalent_to(self, other, ndim) -> bool:
        """Only the same maximal layout: the value is on one device, not on each (XLA's
        comparison, as JAX's)."""
        return self == other

    def __eq__(self, other):
        return (isinstance(other, GSPMDSharding) and self._devices == other._devices
                and self._hlo == other._hlo and self._memory_kind == other._memory_kind)

    def __hash__(self):
        return hash((self._devices, self._hlo, self._memory_kind))

    def __repr__(self):
        return f"GSPMDSharding({self._hlo}, memory_kind={self._memory_kind})"


def maximal_array(value, devs) -> GlobalArray:
    """`value` laid out as a host callback's result of a program over `devs` (as JAX
    runs an eager callback under `set_mesh`): on the first device, zeros elsewhere."""
    value, aval = _host_value(value)
    zeros = np.zeros_like(value)
    bufs = [runtime.put_host(np.ascontiguousarray(value if d == devs[0] else zeros), aval, d)
            for d in local(devs)]
    sharding = GSPMDSharding(devs, "{maximal device=0}")
    arr = xc.ArrayImpl(aval, xla_sharding(devs, sharding._hlo), bufs, committed=True,
                       _skip_checks=True)
    return GlobalArray(arr, aval, sharding, devs)
