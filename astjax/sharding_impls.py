"""`astjax.sharding_impls`: JAX's data model of device layouts — `Mesh`, `AxisType`,
`PartitionSpec` (also `astjax.P`), `SingleDeviceSharding` and `NamedSharding` with the
methods users call (`devices_indices_map`, `is_equivalent_to`, ...), as JAX computes them.

This module describes layouts; it does not move data. It also translates them to
XLA's view for partitioned programs: `sdy_sharding` writes a layout as Shardy's
`<@mesh, [{"x"}, {}]>` (registering the `sdy.mesh` symbols `sdy_mesh_decls`
declares), `hlo_sharding` as a GSPMD `mhlo.sharding` string over a program's
device assignment (also the runtime's view of a multi-device array), `named_from_tiles`
reads XLA's choice back as a NamedSharding, and the thread-local contexts
`lowering_assignment` / `manual_axes` tell lowering rules which devices the
program runs on and which mesh a `shard_map` body is manual over. Arrays laid out
over several devices are `codegen.sharded.GlobalArray`s; partitioned programs are
compiled by `codegen.spmd`.

Layer L0: every layer imports it. The public face is `astjax.sharding` (as
`jax.sharding` is of `jax._src.sharding_impls`), which adds what needs the layers
above: `reshard`, `auto_axes`, `explicit_axes`.
"""
from __future__ import annotations

import dataclasses
import math
import threading
from collections import OrderedDict

import numpy as np

from .errors import DuplicateSpecError, IndivisibleError, ShardingTypeError
from .mesh_axes import AxisType, AxisTypeQueries
from .partition_spec import PartitionSpec

__all__ = ["Sharding", "SingleDeviceSharding", "NamedSharding", "PartitionSpec", "Mesh",
           "AbstractMesh", "AxisType", "set_mesh", "get_mesh", "get_abstract_mesh",
           "IndivisibleError", "DuplicateSpecError", "hlo_sharding", "named_from_tiles",
           "lowering_assignment", "current_assignment", "manual_axes", "current_manual_mesh",
           "current_auto_axes", "manual_groups", "axis_index_table", "ShardingTypeError",
           "sdy_sharding", "sdy_mesh_decls", "ManualAxisType", "manual_abstract_mesh",
           "AbstractDevice", "make_single_device_sharding", "use_abstract_mesh"]


explicit_meshes = [0]   # meshes made with an Explicit axis (none: no layout in a type)


class Mesh(AxisTypeQueries):
    """An n-d array of devices with a name per axis; also a context manager that
    makes it the current mesh (see `set_mesh`)."""

    def __init__(self, devices, axis_names, axis_types=None):
        devices = np.asarray(devices, dtype=object)
        axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if devices.ndim != len(axis_names):
            raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to "
                             f"equal the length of its second argument (`axis_names`), got "
                             f"devices.ndim == {devices.ndim} and len(axis_names) == "
                             f"{len(axis_names)}.")
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(axis_names)
        axis_types = tuple(axis_types)
        if len(axis_types) != len(axis_names) or not all(isinstance(t, AxisType)
                                                         for t in axis_types):
            raise ValueError(f"axis_types must be one AxisType per axis name, got {axis_types}")
        self.devices, self.axis_names, self.axis_types = devices, axis_names, axis_types
        self._contexts = []
        explicit_meshes[0] += AxisType.Explicit in axis_types

    @property
    def shape(self):
        """OrderedDict axis name -> size."""
        return OrderedDict(zip(self.axis_names, self.devices.shape))

    @property
    def size(self):
        return 0 if self.empty else int(self.devices.size)

    @property
    def axis_sizes(self):
        return self.devices.shape

    @property
    def shape_tuple(self):
        return tuple(self.shape.items())

    @property
    def empty(self):
        return not self.axis_names

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self):
        return [d for d in self.devices.flat if d.process_index == d.client.process_index()]

    @property
    def abstract_mesh(self):
        d = self.devices.flat[0] if self.devices.size else None
        kind = None if d is None else AbstractDevice(d.device_kind, getattr(d, "num_cores", None),
                                                     d.platform)
        return AbstractMesh(self.devices.shape, self.axis_names, self.axis_types,
                            abstract_device=kind)

    def __eq__(self, other):
        if self is other:
            return True
        return (isinstance(other, Mesh) and self.axis_names == other.axis_names
                and self.axis_types == other.axis_types
                and self.devices.shape == other.devices.shape
                and all(a == b for a, b in zip(self.devices.flat, other.devices.flat)))

    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:       # (a mesh is immutable; jit's dispatch key hashes it per call)
            h = self.__dict__["_hash"] = hash((   # (an empty mesh's one device: None)
                self.axis_names, self.axis_types, self.devices.shape,
                tuple(getattr(d, "id", d) for d in self.devices.flat)))
        return h

    def __repr__(self):
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        types = ", ".join(repr(t) for t in self.axis_types)
        return f"Mesh({axes}, axis_types=({types}{',' if len(self.axis_types) == 1 else ''}))"

    def __enter__(self):
        ctx = set_mesh.__new__(set_mesh)
        ctx._legacy = True   # (JAX's legacy mesh context: not the devices `jit` runs on)
        ctx.__init__(self)
        self._contexts.append(ctx)
        _entered().append(self)
        return self

    def __exit__(self, *exc):
        _entered().pop()
        return self._contexts.pop().__exit__(*exc)


def _entered() -> list:
    """This thread's meshes entered by `with mesh:` (innermost last)."""
    return _current.__dict__.setdefault("entered", [])


def entered_mesh():
    """The innermost mesh this thread entered by `with mesh:` (not by `set_mesh`),
    or None: what JAX's legacy `thread_resources.env.physical_mesh` reads."""
    return _entered()[-1] if _entered() else None


@dataclasses.dataclass(frozen=True)
class AbstractDevice:
    """What an `AbstractMesh` knows of its devices: their kind, core count and
    platform (a program staged for it is lowered for that platform)."""
    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self):
        return f"AbstractDevice({self._fields()})"

    def _fields(self):
        return (f"device_kind={self.device_kind}, num_cores={self.num_cores}, "
                f"platform={self.platform}")


class AbstractMesh(AxisTypeQueries):
    """A mesh's shape, axis names and types without devices (what staged types see);
    `abstract_device` (an `AbstractDevice`, or None) says what kind of devices."""

    def __init__(self, axis_sizes, axis_names, axis_types=None, *, abstract_device=None,
                 _kind=None):
        self.axis_sizes = tuple(axis_sizes)
        self.axis_names = tuple(axis_names)
        self.axis_types = tuple(axis_types or (AxisType.Auto,) * len(self.axis_names))
        explicit_meshes[0] += AxisType.Explicit in self.axis_types
        if abstract_device is None and _kind is not None:   # (device_kind, num_cores, platform)
            abstract_device = AbstractDevice(*_kind)
        if abstract_device is not None and not isinstance(abstract_device, AbstractDevice):
            raise TypeError("abstract_device must be a jax.sharding.AbstractDevice, got "
                            f"{type(abstract_device).__name__}")
        self.abstract_device = abstract_device

    @property
    def _kind(self):
        d = self.abstract_device
        return None if d is None else (d.device_kind, d.num_cores, d.platform)

    @property
    def shape(self):
        return OrderedDict(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self):
        return math.prod(self.axis_sizes)

    @property
    def empty(self):
        return not self.axis_names

    @property
    def abstract_mesh(self):   # (JAX's: an AbstractMesh is its own)
        return self

    def __eq__(self, other):
        return (isinstance(other, AbstractMesh) and self.axis_sizes == other.axis_sizes
                and self.axis_names == other.axis_names and self.axis_types == other.axis_types
                and self.abstract_device == other.abstract_device)

    def __hash__(self):
        return hash((self.axis_sizes, self.axis_names, self.axis_types, self.abstract_device))

    def __repr__(self):
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        types = ", ".join(repr(t) for t in self.axis_types)
        kind = "" if self.abstract_device is None else ", " + self.abstract_device._fields()
        return (f"AbstractMesh({axes or '()'}, axis_types=({types}"   # as JAX's
                f"{',' if len(self.axis_types) == 1 else ''}){kind})")


class Sharding:
    """Base class of layouts: which device holds which part of an array."""

    @property
    def device_set(self) -> set:
        raise NotImplementedError

    @property
    def is_fully_replicated(self) -> bool:
        raise NotImplementedError

    @property
    def memory_kind(self):
        return self._memory_kind

    def with_memory_kind(self, kind: str):
        """This layout in memory `kind` (`codegen/host_memory.py`): a copy."""
        new = object.__new__(type(self))
        new.__dict__.update({**self.__dict__, "_memory_kind": kind, "_hash": None})
        return new

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    @property
    def is_fully_addressable(self) -> bool:
        return all(d.process_index == d.client.process_index() for d in self.device_set)

    @property
    def addressable_devices(self) -> set:
        return {d for d in self.device_set if d.process_index == d.client.process_index()}

    _addressable_device_assignment = property(   # (JAX's; orbax reads it)
        lambda self: tuple(d for d in self._device_assignment if d in self.addressable_devices))

    def devices_indices_map(self, global_shape) -> dict:
        """device -> tuple of slices: the part of a `global_shape` array it holds."""
        raise NotImplementedError

    def addressable_devices_indices_map(self, global_shape) -> dict:
        local = self.addressable_devices
        return {d: i for d, i in self.devices_indices_map(global_shape).items() if d in local}

    def shard_shape(self, global_shape) -> tuple:
        """The shape of each device's part of a `global_shape` array."""
        raise NotImplementedError

    def is_equivalent_to(self, other, ndim) -> bool:
        """Same devices holding the same parts of any rank-`ndim` array."""
        if not isinstance(other, Sharding) or self.memory_kind != other.memory_kind:
            return False
        shape = tuple(2 * 3 * 5 * 7 * max(1, self.num_devices) for _ in range(ndim))
        mine, theirs = _unreduced_of(self), _unreduced_of(other)
        if mine or theirs:      # a partial sum per device is a different layout
            if mine != theirs:
                return False
            return _without_unreduced(self).is_equivalent_to(_without_unreduced(other), ndim)
        try:
            return self.devices_indices_map(shape) == other.devices_indices_map(shape)
        except ValueError:
            return False


class SingleDeviceSharding(Sharding):
    """The whole array on one device."""

    def __init__(self, device, *, memory_kind=None):
        self._device = device
        self._memory_kind = memory_kind or "device"

    @property
    def device_set(self):
        return {self._device}
    _device_assignment = property(lambda self: (self._device,))

    @property
    def is_fully_replicated(self):
        return True

    def devices_indices_map(self, global_shape):
        return {self._device: (slice(None),) * len(global_shape)}

    def shard_shape(self, global_shape):
        return tuple(global_shape)

    def __eq__(self, other):
        return (isinstance(other, SingleDeviceSharding) and self._device == other._device
                and self._memory_kind == other._memory_kind)

    def __hash__(self):
        return hash((self._device, self._memory_kind))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self._memory_kind})"


def make_single_device_sharding(device, *, memory_kind=None):
    """A `SingleDeviceSharding` of `device` (`memory_kind` keyword-only, as JAX's)."""
    return SingleDeviceSharding(device, memory_kind=memory_kind)


class NamedSharding(Sharding):
    """An array split over the axes of a `Mesh` as a `PartitionSpec` says."""

    def __init__(self, mesh, spec, *, memory_kind=None):
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f"NamedSharding needs a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec) if isinstance(spec, (tuple, list)) else spec
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"NamedSharding needs a PartitionSpec, got {spec!r}")
        seen = set()
        for entry in spec.partitions:
            for name in PartitionSpec._axes(entry):
                if name not in mesh.axis_names:
                    raise ValueError(f"Resource axis: {name} of {spec!r} is not found in mesh: "
                                     f"{mesh.axis_names}.")
                if name in seen:
                    raise DuplicateSpecError(
                        "A single NamedSharding spec specification can map every mesh axis to "
                        f"at most one positional dimension, but {spec!r} has duplicate "
                        f"entries for `{name}`")
                seen.add(name)
        _check_mesh_unreduced(mesh, spec)
        self.mesh = mesh
        self.spec = spec
        # (over an AbstractMesh there are no devices, and no memory kind: JAX's None)
        self._memory_kind = memory_kind or (None if isinstance(mesh, AbstractMesh)
                                            else "device")

    @property
    def device_set(self):
        return set(self.mesh.devices.flat)
    _device_assignment = property(lambda self: tuple(self.mesh.devices.flat))  # row-major

    @property
    def is_fully_replicated(self):
        sizes = self.mesh.shape
        if self.mesh.size == 1:
            return True
        return not self.spec.unreduced and all(
            sizes[n] == 1 for e in self.spec.partitions for n in PartitionSpec._axes(e))

    def _factors(self, global_shape):
        spec = self.spec._normalized(len(global_shape))
        sizes = self.mesh.shape
        factors = [math.prod(sizes[n] for n in PartitionSpec._axes(e)) for e in spec]
        for dim, (n, f) in enumerate(zip(global_shape, factors)):
            if n % f:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {dim} is partitioned {f} "
                    f"times, but the dimension size is {n} (full shape: {tuple(global_shape)}, "
                    f"per-dimension tiling factors: {factors} should evenly divide the shape)")
        return spec, factors

    def shard_shape(self, global_shape):
        _, factors = self._factors(global_shape)
        return tuple(n // f for n, f in zip(global_shape, factors))

    def devices_indices_map(self, global_shape):
        if self.spec.unreduced:    # (JAX's error: a shard holds a partial sum)
            raise NotImplementedError(
                "device_indices_map doesn't work with unreduced. Please file a bug at "
                "https://github.com/jax-ml/jax/issues")
        spec, factors = self._factors(global_shape)
        names = self.mesh.axis_names
        out = {}
        for pos in np.ndindex(*self.mesh.devices.shape):
            coord = dict(zip(names, pos))
            index = []
            for n, f, entry in zip(global_shape, factors, spec):
                axes = PartitionSpec._axes(entry)
                if f == 1:
                    index.append(slice(None))
                    continue
                k = 0  # the shard number: major-to-minor over the entry's mesh axes
                for a in axes:
                    k = k * self.mesh.shape[a] + coord[a]
                size = n // f
                index.append(slice(k * size, (k + 1) * size))
            out[self.mesh.devices[pos]] = tuple(index)
        return out

    def __eq__(self, other):
        if self is other:
            return True
        return (isinstance(other, NamedSharding) and self.mesh == other.mesh
                and self.spec == other.spec and self._memory_kind == other._memory_kind)

    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:       # (immutable; hashed per call by jit's dispatch key)
            h = self.__dict__["_hash"] = hash((self.mesh, self.spec, self._memory_kind))
        return h

    def __repr__(self):
        kind = "" if self._memory_kind is None else f", memory_kind={self._memory_kind}"
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r}{kind})"


class ManualAxisType:
    """JAX's `typeof(x).mat`: the mesh axes a value inside a manual computation
    (`shard_map`) varies over, and its unreduced / reduced axes."""
    __slots__ = ("varying", "unreduced", "reduced")

    def __init__(self, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
        varying, unreduced, reduced = map(frozenset, (varying, unreduced, reduced))
        for name, other in (("unreduced", unreduced), ("reduced", reduced)):
            if varying & other:
                raise ValueError(f"varying and {name} cannot have common mesh axes. Got "
                                 f"varying={varying} and {name}={other}")
        self.varying, self.unreduced, self.reduced = varying, unreduced, reduced

    @property
    def empty(self):
        return not (self.varying or self.unreduced or self.reduced)

    def __eq__(self, other):
        return (isinstance(other, ManualAxisType) and self.varying == other.varying
                and self.unreduced == other.unreduced and self.reduced == other.reduced)

    def __hash__(self):
        return hash((self.varying, self.unreduced, self.reduced))

    def __repr__(self):
        return (f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
                f"reduced={self.reduced})")


def manual_abstract_mesh(mesh, auto=frozenset()):
    """The AbstractMesh a shard_map body sees: its manual axes typed Manual."""
    a = mesh.abstract_mesh if isinstance(mesh, Mesh) else mesh
    types = tuple(t if n in auto else AxisType.Manual
                  for n, t in zip(a.axis_names, a.axis_types))
    return AbstractMesh(a.axis_sizes, a.axis_names, types, _kind=a._kind)


def _unreduced_of(s):
    """The unreduced mesh axes of size > 1 of a sharding (XLA's view of it)."""
    return frozenset(a for a in s.spec.unreduced if s.mesh.shape[a] != 1) \
        if isinstance(s, NamedSharding) else frozenset()


def _without_unreduced(s):
    if not isinstance(s, NamedSharding):
        return s
    return NamedSharding(s.mesh, s.spec.update(unreduced=frozenset(), reduced=frozenset()),
                         memory_kind=s.memory_kind)


def _check_mesh_unreduced(mesh, spec):
    """JAX's checks: unreduced / reduced axes are Explicit axes of `mesh`."""
    types = dict(zip(mesh.axis_names, mesh.axis_types or ()))
    for word, axes in (("Unreduced", spec.unreduced), ("Reduced", spec.reduced)):
        for a in axes:
            if a not in mesh.axis_names:
                raise ValueError(f"{word} axes {a} is not found in mesh.axis_names="
                                 f"{mesh.axis_names!r}. Got pspec={spec!r}")
            if types.get(a) != AxisType.Explicit:
                raise ValueError(
                    f"{word} axes can only refer to mesh axes that is of type `Explicit`. "
                    f"Got {word.lower()} axes: {frozenset(axes)!r} and mesh: {mesh!r}")


# ------------------------------------------------------------------ the current mesh

_current = threading.local()
context_meshes = [0]   # set_mesh contexts not left, in any thread: jit's fast paths step aside


def get_mesh():
    """The mesh set by `set_mesh` / `with mesh:` in this thread, else an empty Mesh."""
    mesh = getattr(_current, "mesh", None)
    return mesh if mesh is not None else Mesh(np.empty((), object), ())


def context_mesh():
    """The mesh `set_mesh` (not `with mesh:`) made current here, or None: jit's devices."""
    return getattr(_current, "context", None)


def get_abstract_mesh():
    """The mesh `use_abstract_mesh` set, else the current mesh's `AbstractMesh`."""
    abstract = getattr(_current, "abstract", None)
    return abstract if abstract is not None else get_mesh().abstract_mesh


class set_mesh:
    """Make `mesh` the current mesh of this thread, at once (a global setter) and, used
    as a context manager, only until the `with` block ends."""

    def __init__(self, mesh):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"set_mesh needs a Mesh, got {type(mesh).__name__}")
        self.mesh, self._legacy = mesh, self.__dict__.get("_legacy", False)
        self._previous = getattr(_current, "mesh", None)
        self._previous_abstract = getattr(_current, "abstract", None)
        self._previous_context = context_mesh()
        _current.mesh = mesh
        _current.abstract = None    # the new mesh's own abstract mesh
        if not self._legacy:
            _current.context = None if mesh.empty else mesh
            context_meshes[0] += 1

    def __enter__(self):
        return self.mesh

    def __exit__(self, *exc):
        _current.mesh = self._previous
        _current.abstract = self._previous_abstract
        if not self._legacy:
            _current.context, context_meshes[0] = self._previous_context, context_meshes[0] - 1
        return False


class use_abstract_mesh:
    """Within the `with` block, `get_abstract_mesh()` (what staged types and explicit
    shardings are checked against) is `mesh`, an `AbstractMesh` of the same size as
    the current one; the concrete mesh (`get_mesh()`) is unchanged."""

    def __init__(self, mesh):
        if not isinstance(mesh, AbstractMesh):
            raise ValueError("Expected mesh of type `jax.sharding.AbstractMesh`. Got type: "
                             f"{type(mesh)}")
        self.mesh = mesh

    def __enter__(self):
        prev = get_abstract_mesh()
        if not prev.empty and not self.mesh.empty and prev.size != self.mesh.size:
            raise ValueError(
                f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
                f"{self.mesh} with size={self.mesh.size} and prev mesh: {prev} with "
                f"size={prev.size}")
        self._previous = getattr(_current, "abstract", None)
        _current.abstract = self.mesh

    def __exit__(self, *exc):
        _current.abstract = self._previous
        return False


# ------------------------------------------------------- XLA's view (GSPMD shardings)
# A program partitioned over N devices numbers them 0..N-1 by their place in its
# device assignment ("logical ids"). An HLO sharding tiles each array dimension and
# lists, in tile order, the logical id holding each tile; a trailing replication
# dimension (`last_tile_dim_replicate`) lists the devices that hold the same tile.


def _tiles(sharding, ndim, assignment, unconstrained_ok=False):
    """(tile dims, replication count, logical-id array of shape dims + [replication])
    of a NamedSharding over devices numbered by their index in `assignment`
    (`unconstrained_ok`: UNCONSTRAINED entries count as untiled)."""
    mesh = sharding.mesh
    where = {d: i for i, d in enumerate(assignment)}
    try:
        ids = np.vectorize(lambda d: where[d], otypes=[np.int64])(mesh.devices)
    except KeyError:
        raise ValueError(f"{sharding!r} uses devices outside the program's device "
                         f"assignment {list(assignment)}") from None
    spec = sharding.spec._normalized(ndim)
    names = list(mesh.axis_names)
    sizes = mesh.shape
    order, dims = [], []
    for entry in spec:
        if entry is PartitionSpec.UNCONSTRAINED and not unconstrained_ok:
            raise ValueError("PartitionSpec.UNCONSTRAINED is only supported in "
                             "with_sharding_constraint; name the axes or use None")
        axes = PartitionSpec._axes(entry)
        order += [names.index(a) for a in axes]
        dims.append(math.prod(sizes[a] for a in axes))
    rest = [i for i in range(len(names)) if i not in order]
    rep = math.prod(mesh.devices.shape[i] for i in rest)
    tiled = np.transpose(ids, order + rest).reshape(dims + [rep])
    return dims, rep, tiled


def hlo_sharding(sharding, ndim, assignment, unconstrained_ok=False) -> str:
    """The `mhlo.sharding` text of `sharding` for a rank-`ndim` value of a program
    whose device assignment is `assignment` (a sequence of devices). With
    `unconstrained_ok`, UNCONSTRAINED dimensions are written untiled (the caller
    lists them as `unspecified_dims`)."""
    if isinstance(sharding, SingleDeviceSharding):   # (JAX's: replicated, not maximal)
        return "{replicated}"
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"cannot annotate a program with {sharding!r}")
    dims, rep, tiled = _tiles(sharding, ndim, assignment, unconstrained_ok)
    if all(d == 1 for d in dims):
        return "{replicated}"
    shape = dims + [rep] if rep > 1 else dims
    suffix = " last_tile_dim_replicate" if rep > 1 else ""
    return ("{devices=[" + ",".join(map(str, shape)) + "]"
            + ",".join(str(int(i)) for i in tiled.reshape(-1)) + suffix + "}")


def named_from_tiles(mesh, ndim, dims, tile_ids, replicate_last, assignment):
    """The NamedSharding over `mesh` that XLA's tiled sharding (tile dims `dims`,
    logical ids `tile_ids` in tile order, a trailing replication dimension when
    `replicate_last`) describes, or None when no PartitionSpec over `mesh` does.
    Each mesh axis is placed on the dimension its devices are tiled along, major
    axes first, and the result is checked by tiling it again."""
    dims = list(dims)
    if not replicate_last:
        dims = dims + [1]
    grid = np.asarray(tile_ids, np.int64).reshape(dims)
    where = {d: i for i, d in enumerate(assignment)}
    ids = np.vectorize(lambda d: where.get(d, -1), otypes=[np.int64])(mesh.devices)
    if (ids < 0).any():
        return None
    coord = {int(i): c for c, i in np.ndenumerate(grid)}
    origin = coord.get(int(ids.flat[0]))
    if origin is None:
        return None
    entries = [[] for _ in range(ndim)]
    for k, name in enumerate(mesh.axis_names):
        if mesh.devices.shape[k] == 1:
            continue
        step = [0] * ids.ndim
        step[k] = 1
        moved = [a - b for a, b in zip(coord[int(ids[tuple(step)])], origin)]
        nz = [j for j, m in enumerate(moved) if m]
        if len(nz) != 1:
            return None
        if nz[0] < ndim:
            entries[nz[0]].append((-abs(moved[nz[0]]), name))
    spec = [tuple(n for _, n in sorted(e)) or None for e in entries]
    while spec and spec[-1] is None:
        spec.pop()
    out = NamedSharding(mesh, PartitionSpec(*spec))
    _, _, again = _tiles(out, ndim, assignment)
    if again.shape[:ndim] != grid.shape[:ndim] or again.size != grid.size:
        return None
    n = math.prod(grid.shape[:ndim])
    same = (np.sort(again.reshape(n, -1), 1) == np.sort(grid.reshape(n, -1), 1)).all()
    return out if same else None


class lowering_assignment:
    """While a program partitioned over `devices` is lowered: its device assignment,
    which sharding annotations inside it (`with_sharding_constraint`, `shard_map`)
    number their devices by (see `hlo_sharding`), and the Shardy meshes they name
    (`sdy_sharding`, declared by `sdy_mesh_decls`)."""

    def __init__(self, devices):
        self.devices = tuple(devices)
        self.meshes, self.lifted = {}, {}     # Shardy mesh key -> (symbol, declaration)

    def __enter__(self):
        self._previous = getattr(_current, "assignment", None), getattr(_current, "sdy", None)
        _current.assignment, _current.sdy = self.devices, self
        return self.devices

    def __exit__(self, *exc):
        _current.assignment, _current.sdy = self._previous
        return False


def current_assignment():
    """The device assignment of the program being lowered, or None outside one."""
    return getattr(_current, "assignment", None)

# ------------------------------------------------------ Shardy's view (the sdy dialect)
# Shardy names a mesh symbol per layout: `sdy.mesh @mesh = <["x"=2, "y"=2]>`, whose
# devices are the program's logical ids in row-major order (`device_ids=[...]` when
# the mesh orders them otherwise), and writes a layout as one list of axes per
# dimension: `<@mesh, [{"x"}, {}]>`; `?` marks a dimension left open to propagation.


def _sdy_mesh(key, decl):
    ctx = getattr(_current, "sdy", None)
    if ctx is None:
        raise ValueError("a Shardy sharding is written outside a partitioned program's "
                         "lowering (no device assignment in scope)")
    kind = {"maximal": f"maximal_mesh_{key[-1]}", "empty": "empty_mesh"}.get(key[0])
    table = ctx.lifted if kind else ctx.meshes   # (those named by kind: declared last)
    if key not in table:
        name = kind or ("mesh" if not table else f"mesh_{len(table)}")
        table[key] = (name, f"sdy.mesh @{name} = {decl}")
    return table[key][0]


def sdy_sharding(sharding, ndim, assignment, open_dims=(), replicated=()) -> str:
    """The Shardy layout `<@mesh, [...]>` of `sharding` for a rank-`ndim` value of a
    program on devices `assignment`, registering its mesh; UNCONSTRAINED entries and
    `open_dims` are open (`?`), the mesh axes `replicated` closed (`replicated={"x"}`).
    None and a SingleDeviceSharding: replicated over the empty mesh, as JAX writes."""
    if sharding is None or isinstance(sharding, SingleDeviceSharding):
        return f"<@{_sdy_mesh(('empty',), '<[]>')}, [{', '.join(['{}'] * ndim)}]>"
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"cannot annotate a program with {sharding!r}")
    mesh = sharding.mesh
    where = {d: i for i, d in enumerate(assignment)}
    try:
        ids = [where[d] for d in mesh.devices.flat]
    except KeyError:
        raise ValueError(f"{sharding!r} uses devices outside the program's device "
                         f"assignment {list(assignment)}") from None
    axes = ", ".join(f'"{n}"={s}' for n, s in mesh.shape.items())
    order = "" if ids == list(range(len(ids))) else \
        ", device_ids=[" + ", ".join(map(str, ids)) + "]"
    name = _sdy_mesh((mesh.axis_names, mesh.axis_sizes, tuple(ids)), f"<[{axes}]{order}>")
    dims = []
    for d, entry in enumerate(sharding.spec._normalized(ndim)):
        names = [f'"{a}"' for a in PartitionSpec._axes(entry)]
        if entry is PartitionSpec.UNCONSTRAINED or d in open_dims:
            names.append("?")
        dims.append("{" + ", ".join(names) + "}")
    extra = ""
    for tag, axes in (("replicated", replicated), ("unreduced", sharding.spec.unreduced)):
        named = [f'"{a}"' for a in mesh.axis_names if a in axes]
        extra += f", {tag}={{{', '.join(named)}}}" if named else ""
    return f"<@{name}, [{', '.join(dims)}]{extra}>"


def sdy_maximal(device, assignment) -> str:
    """The Shardy layout `<@maximal_mesh_k, []>` on the one device `device` of the
    program on `assignment` (a host callback's, as JAX's), registering its mesh."""
    k = list(assignment).index(device)
    return f"<@{_sdy_mesh(('maximal', k), f'<[], device_ids=[{k}]>')}, []>"


def sdy_mesh_decls() -> list:
    """The `sdy.mesh` declarations of the meshes the current lowering has named."""
    ctx = getattr(_current, "sdy", None)
    return [d for _, d in (*ctx.meshes.values(), *ctx.lifted.values())] if ctx else []


class manual_axes:
    """While the body of a `shard_map` over `mesh` is lowered: collectives over
    the mesh's axes are cross-partition ops over the program's device assignment
    (`manual_groups`); `auto` are the mesh axes left automatic (partially manual)."""

    def __init__(self, mesh, auto=frozenset()):
        self.mesh, self.auto = mesh, frozenset(auto)

    def __enter__(self):
        self._previous = getattr(_current, "manual", None)
        _current.manual = self
        return self.mesh

    def __exit__(self, *exc):
        _current.manual = self._previous
        return False


def current_manual_mesh():
    """The mesh of the `shard_map` body being lowered, or None."""
    m = getattr(_current, "manual", None)
    return m.mesh if m is not None else None


def current_auto_axes():
    """The mesh axes the `shard_map` body being lowered leaves automatic."""
    m = getattr(_current, "manual", None)
    return m.auto if m is not None else frozenset()


def manual_groups(mesh, names, assignment):
    """Logical device ids grouped for a collective over mesh axes `names`: one row
    per combination of the other axes, ordered by the position along `names`
    (first name major)."""
    where = {d: i for i, d in enumerate(assignment)}
    ids = np.vectorize(lambda d: where[d], otypes=[np.int64])(mesh.devices)
    axes = [mesh.axis_names.index(n) for n in names]
    rest = [i for i in range(ids.ndim) if i not in axes]
    size = math.prod(ids.shape[i] for i in axes)
    return np.transpose(ids, rest + axes).reshape(-1, size)


def axis_index_table(mesh, name, assignment):
    """Per logical device id: its index along mesh axis `name`."""
    k = mesh.axis_names.index(name)
    table = np.zeros(len(assignment), np.int32)
    for pos, d in np.ndenumerate(mesh.devices):
        table[list(assignment).index(d)] = pos[k]
    return table
