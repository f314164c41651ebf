"""The type of a value with its layout on a mesh of Explicit axes (sharding in types,
`codegen/explicit.py`): `Typed` -- an aval, one spec entry per dimension, the mesh,
the unreduced / reduced axes -- printed as JAX prints such types (`f32[4@x,2]`), and
the Typed of a sharding (`typed_sharding`), of a concrete array (`typed`) or of an
argument of an abstract evaluation (`typed_abstract`); `with_sharding_constraint`'s
assertion of a type's layout (`assert_layout`)."""
from __future__ import annotations

from astjax import core, dtypes
from astjax.config import config
from astjax import sharding_impls as shd

from astjax.primitives.spmd import ShardingAssertionError

from . import sharded

__all__ = ["Typed", "is_explicit", "all_explicit", "typed_sharding", "typed", "made_mesh",
           "typed_abstract", "assert_layout", "OneDeviceTyped", "keep_type", "explicit_part",
           "const_types"]


class Typed:
    """A value's type with its layout: aval, one spec entry per dimension, mesh, and
    the mesh axes it is unreduced over (each device holds a partial sum)."""
    __slots__ = ("aval", "spec", "mesh", "unreduced", "reduced", "given")

    def __init__(self, aval, spec, mesh, unreduced=frozenset(), given=None,
                 reduced=frozenset()):
        self.aval, self.spec, self.mesh = aval, tuple(spec), mesh
        self.unreduced, self.reduced = frozenset(unreduced), frozenset(reduced)
        self.given = given      # the spec as written, where JAX keeps it (out_specs)

    @property
    def pspec(self):
        return shd.PartitionSpec(*self.spec, unreduced=self.unreduced, reduced=self.reduced)

    @property
    def sharding(self):
        return shd.NamedSharding(self.mesh, self.pspec if self.given is None else self.given)

    def str_short(self, short_dtypes=False, axis_types=False):
        """JAX's `f32[4@x,4]`, `f32[4]{U:y}` when unreduced (`float32[...]` without
        `short_dtypes`), followed by the mesh's axes by type with `axis_types`
        (`({Explicit: ('x', 'y')})`)."""
        name = dtypes.short_name(self.aval.dtype) if short_dtypes else self.aval.dtype.name
        parts = []
        for tag, axes in (("U", self.unreduced), ("R", self.reduced)):
            names = [a for a in self.mesh.axis_names if a in axes] if axes else []
            if names:
                parts.append(f"{tag}:" + (names[0] if len(names) == 1
                                          else f"({','.join(names)})"))
        extra = "{" + ", ".join(parts) + "}" if parts else ""
        kinds = {}
        for a, k in zip(self.mesh.axis_names, self.mesh.axis_types) if axis_types else ():
            kinds.setdefault(k.name, []).append(a)
        mesh = "({" + ", ".join(f"{k}: {tuple(a)}" for k, a in kinds.items()) + "})" \
            if axis_types else ""
        return f"{name}[{_dims(self.aval.shape, self.spec)}]{extra}{mesh}"

    def sharding_str(self):
        """How JAX prints this type's sharding in its messages (over the AbstractMesh,
        with the devices' kind and platform)."""
        return repr(shd.NamedSharding(self.mesh.abstract_mesh, self.pspec))


def _dims(shape, spec):
    out = []
    for n, e in zip(shape, spec):
        axes = shd.PartitionSpec._axes(e)
        out.append(str(n) if not axes else f"{n}@{axes[0]}" if isinstance(e, str)
                   else f"{n}@({','.join(axes)})")
    return ",".join(out)


def is_explicit(mesh) -> bool:
    """Whether layouts over `mesh` are part of the types: it has Explicit axes (the
    types name those only, as JAX's on a mesh of Explicit and Auto axes) and no Manual
    one."""
    kinds = set(mesh.axis_types)
    return shd.AxisType.Explicit in kinds and shd.AxisType.Manual not in kinds


def all_explicit(mesh) -> bool:
    """Whether every axis of `mesh` is Explicit: a type then says the whole layout (a
    result is laid out by it); with Auto axes too, XLA chooses along those."""
    return bool(mesh.axis_types) and all(t == shd.AxisType.Explicit for t in mesh.axis_types)


def typed_sharding(sharding, aval):
    """The Typed of a value of `aval` laid out as `sharding`, when that is a
    NamedSharding over a mesh with Explicit axes (`is_explicit`; its Auto axes are left
    out of the type, as JAX's: also inside `auto_axes(axes=...)`); else None."""
    if not isinstance(sharding, shd.NamedSharding) or not is_explicit(sharding.mesh):
        return None
    spec = sharding.spec._normalized(aval.ndim)
    spec = explicit_part(spec, sharding.mesh)
    if config.read("jax_remove_size_one_mesh_axis_from_type"):
        spec = tuple(_without_size_one(e, sharding.mesh.shape) for e in spec)
    return Typed(aval, spec, sharding.mesh, sharding.spec.unreduced,
                 reduced=sharding.spec.reduced)


def explicit_part(spec, mesh):
    """The entries of a normalized `spec` over `mesh` with its Explicit axes only (what
    a type names, as JAX's on a mesh of Explicit and Auto axes)."""
    if all_explicit(mesh):
        return tuple(spec)
    keep = {a for a, k in zip(mesh.axis_names, mesh.axis_types) if k == shd.AxisType.Explicit}
    return tuple(_kept_axes(e, keep) for e in spec)


def _kept_axes(entry, keep):
    """A spec entry with only the mesh axes in `keep`."""
    if entry is None or entry is shd.PartitionSpec.UNCONSTRAINED:
        return None
    axes = [a for a in ((entry,) if isinstance(entry, str) else entry) if a in keep]
    return None if not axes else axes[0] if len(axes) == 1 else tuple(axes)


def _without_size_one(entry, sizes):
    """A spec entry without the mesh axes of size 1 (config
    `jax_remove_size_one_mesh_axis_from_type`)."""
    if entry is None:
        return None
    axes = [a for a in ((entry,) if isinstance(entry, str) else entry) if sizes[a] != 1]
    return None if not axes else axes[0] if isinstance(entry, str) or len(axes) == 1 \
        else tuple(axes)


def typed(x):
    """The Typed of a concrete value: a GlobalArray over an all-Explicit mesh, or a
    OneDeviceTyped (its kept type); else None."""
    if type(x) is OneDeviceTyped:
        return typed_sharding(x.type_sharding, core.get_aval(x))
    if type(x) is not sharded.GlobalArray:
        return None
    return typed_sharding(x._sharding, core.get_aval(x))


def const_types(constvars, consts):
    """Var -> Typed of each of `constvars` whose value in `consts` is an array laid out
    over an Explicit mesh: a program's closed-over arrays are typed as JAX types them
    (as its arguments are)."""
    return {v: t for v, c in zip(constvars, consts) if (t := typed(c)) is not None}


class OneDeviceTyped(sharded.runtime.CommittedArray):
    """An array `device_put` on one device from an array typed over a mesh of several
    devices: as in JAX, it keeps that type (`jax.typeof`: `float32[8@a,8@b]`), so an
    operation on it is typed by the rules (JAX's ShardingTypeError) and then refused
    (its one device is not the type's mesh: JAX's ValueError), until it is put on a
    mesh again; reading it (`np.asarray`, `device_get`) works."""
    __slots__ = ("type_sharding",)


def keep_type(src, device, put):
    """`put(src, device)` (runtime's one-device `device_put`), with `src`'s type kept
    when that is laid out over a mesh of more than one device and the result is
    committed to `device`."""
    t = typed(src)
    if type(src) is OneDeviceTyped:
        src = sharded.runtime.CommittedArray(src._buf, src.aval)
    out = put(src, device)
    if t is None or type(out) is not sharded.runtime.CommittedArray or t.mesh.size == 1:
        return out
    kept = OneDeviceTyped(out._buf, out.aval)
    kept.type_sharding = t.sharding
    return kept


def made_mesh():
    """The mesh JAX types a value made from no operand over (replicated): `set_mesh`'s
    mesh when all its axes are Explicit; else None (such values are untyped)."""
    m = shd.context_mesh() if shd.context_meshes[0] else None
    return m if m is not None and is_explicit(m) else None


def typed_abstract(sharding, aval):
    """The Typed JAX gives an argument of an abstract evaluation (`eval_shape`,
    `jit(f).trace` / `.lower`) of `aval` laid out as `sharding`: that of a
    NamedSharding over an all-Explicit mesh; with no NamedSharding (a host value, a
    one-device array, a ShapeDtypeStruct without one), replicated over `set_mesh`'s
    all-Explicit mesh (JAX types every value under it so); else None."""
    if isinstance(sharding, shd.NamedSharding):
        return typed_sharding(sharding, aval)
    mesh = made_mesh()
    if mesh is None or type(aval) is not core.ShapedArray:
        return None
    return Typed(aval, [None] * aval.ndim, mesh)


def assert_layout(t, sharding):
    """JAX's AssertionError for `with_sharding_constraint` under a mesh of Explicit
    axes when the value's type `t` is laid out otherwise than `sharding` says
    (UNCONSTRAINED entries match anything)."""
    want = typed_sharding(sharding, t.aval)
    given = want.spec if want is not None else sharding.spec._normalized(t.aval.ndim)
    if any(g is not shd.PartitionSpec.UNCONSTRAINED and g != h for g, h in zip(given, t.spec)):
        raise ShardingAssertionError(
            "`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
            f"`Explicit`. The array sharding: {shd.PartitionSpec(*t.spec)} did not match the "
            f"sharding provided: {shd.PartitionSpec(*given)}. Please use "
            "`jax.sharding.reshard` to shard your input to the sharding you want.",
            hint="use jax.reshard(x, spec) to change the layout")
