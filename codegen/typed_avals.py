"""The abstract values `jax.typeof` returns where the layout is part of the type
(`codegen/explicit.py` computes which): `TypedAval` (an array laid out over
Explicit mesh axes: `float32[4@x,4]`, `{U:y}` when unreduced), `MeshAval` (a value
whose layout is not in its type: its `.sharding` names the mesh, nothing sharded)
and `ManualAval` (a value inside a `shard_map` body: per-device shape, `.mat.varying`
the manual axes it varies over, `float32[2,2]{V:(x,y)}`). Each equals the plain
ShapedArray of the same shape and dtype where JAX's do, and has `.mat`.
"""
from __future__ import annotations

from astjax import core, dtypes
from astjax import sharding_impls as shd
from astjax.errors import NotImplementedInAstjaxError
from astjax.primitives import vma

__all__ = ["TypedAval", "TypedRefAval", "MeshAval", "ManualAval", "manual_typeof"]

class TypedAval(core.ShapedArray):
    """`jax.typeof(x)` of a value laid out over an Explicit mesh: its aval and
    `.sharding` (a NamedSharding whose spec has one entry per dimension), printed
    as JAX prints it (`float32[4@x,4]`)."""
    __slots__ = ("_typed",)

    def __init__(self, t):      # (a codegen.explicit.Typed)
        a = t.aval
        super().__init__(a.shape, a.dtype, a.weak_type)
        self._typed = t

    @property
    def sharding(self):
        t = self._typed
        return shd.NamedSharding(t.mesh.abstract_mesh, t.pspec)

    def __str__(self):
        return ("~" if self.weak_type else "") + self._typed.str_short()

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self._typed.str_short()}{weak})"

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        """`f32[4@x,4]` with `short_dtypes` (`float32[...]` without), with the layout."""
        return self._typed.str_short(short_dtypes)

    mat = manual_axis_type = property(lambda self: _NO_MANUAL_AXES,
                                      doc="JAX's manual axis type: none outside shard_map")

    def __eq__(self, other):
        return (isinstance(other, TypedAval) and super().same_type(other)
                and self._typed.spec == other._typed.spec)

    def __hash__(self):
        return hash((self.shape, self.dtype, self._typed.spec))


class TypedRefAval(core.AbstractRef):
    """`jax.typeof(r)` of a `Ref` whose value is laid out over an Explicit mesh:
    `Ref{float32[4@x]}`, its `.sharding` the value's type's."""
    __slots__ = ()

    def __init__(self, t):      # (the value's codegen.explicit.Typed)
        super().__init__(TypedAval(t))

    sharding = property(lambda self: self.inner_aval.sharding)

    def __str__(self):
        return f"Ref{{{self.inner_aval._typed.str_short()}}}"


class MeshAval(core.ShapedArray):
    """`jax.typeof(x)` of a value whose layout is not in its type (one device, an Auto
    mesh): its `.sharding` is JAX's, a NamedSharding over the value's (or the current)
    AbstractMesh with no dimension sharded; it equals the plain ShapedArray."""
    __slots__ = ("_mesh",)

    def __init__(self, aval, mesh):
        super().__init__(aval.shape, aval.dtype, aval.weak_type)
        self._mesh = mesh

    @property
    def sharding(self):
        return shd.NamedSharding(self._mesh, shd.PartitionSpec(*[None] * self.ndim))

    mat = manual_axis_type = property(lambda self: _NO_MANUAL_AXES,
                                      doc="JAX's manual axis type: none outside shard_map")

    def __eq__(self, other):
        if isinstance(other, MeshAval) and other._mesh != self._mesh:
            return False
        return (isinstance(other, core.ShapedArray) and not isinstance(other, TypedAval)
                and self.shape == other.shape and self.dtype == other.dtype
                and self.weak_type == other.weak_type)

    def __hash__(self):
        return super().__hash__()


_NO_MANUAL_AXES = shd.ManualAxisType()


class ManualAval(core.ShapedArray):
    """`jax.typeof(x)` of a value inside a `shard_map` body: its per-device aval,
    `.sharding` over the mesh with its manual axes typed Manual, and `.mat`: the
    manual axes it varies over and those it is unreduced over (JAX's check_vma
    types), printed as JAX prints it (`float32[2,2]{V:(x,y)}`, `float32[2,4]{V:x, U:y}`);
    it equals the plain ShapedArray."""
    __slots__ = ("_mesh", "_vma", "_unreduced", "_reduced")

    def __init__(self, aval, mesh, vma, unreduced=frozenset(), reduced=frozenset()):
        super().__init__(aval.shape, aval.dtype, aval.weak_type)
        self._mesh, self._vma, self._unreduced = mesh, vma, unreduced
        self._reduced = reduced

    @property
    def sharding(self):
        return shd.NamedSharding(self._mesh, shd.PartitionSpec(*[None] * self.ndim))

    @property
    def mat(self):
        if self._vma is None:
            raise NotImplementedInAstjaxError(
                "the varying manual axes of a value computed from a loop carry or branch "
                "operand inside shard_map are not known while the loop body is staged",
                hint="call jax.typeof on the loop's result, after the loop")
        return shd.ManualAxisType(varying=self._vma, unreduced=self._unreduced,
                                  reduced=self._reduced)

    manual_axis_type = mat

    def _long(self):
        return self.str_short(short_dtypes=False)

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        """`f32[2,2]{V:x}` with `short_dtypes` (`float32[...]` without)."""
        text = vma.vma_str(core.ShapedArray(self.shape, self.dtype), self._vma or (),
                           self._mesh, self._unreduced, self._reduced)
        if short_dtypes:
            return text
        return text.replace(dtypes.short_name(self.dtype) + "[", self.dtype.name + "[", 1)

    __eq__ = core.ShapedArray.__eq__
    __hash__ = core.ShapedArray.__hash__


def manual_typeof(x, aval):
    """`jax.typeof(x)` of a value staged inside a `shard_map` body, else None."""
    where = vma.current_manual_mesh(x)
    if where is None or not isinstance(aval, core.ShapedArray):
        return None
    mesh, auto = where
    reduced = vma.staged_reduced(x)     # (first: its errors are JAX's first, vma.rd_env)
    return ManualAval(aval, shd.manual_abstract_mesh(mesh, auto), vma.staged_vma(x),
                      vma.staged_unreduced(x), reduced)
