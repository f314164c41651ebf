"""The `sharding_constraint` primitive of partitioned programs, with every rule and
its wrappers: `lax.with_sharding_constraint` and `jax.reshard`.

A partitioned program (sharded `jit`, `codegen/spmd.py`) is one global program
whose values XLA's SPMD partitioner splits over the devices of its device
assignment. Annotations number devices by their place in that assignment
(`sharding.lowering_assignment`, set around the lowering).

`sharding_constraint` pins the layout of one value: `sdy.sharding_constraint`
(Shardy, the default) or the `Sharding` custom call with an `mhlo.sharding`
attribute (GSPMD, `jax_use_shardy_partitioner=False`). The value is unchanged: its
NumPy reference is the identity, it is linear (its transpose constrains the
cotangent the same way), under `vmap` the batch dimension is left unconstrained.
Outside `jit` it lays a concrete array out as `device_put` would.

Also here: reading what a user passed as a layout (`resolve_sharding`, a pytree
prefix of layouts `layouts_per_leaf`) and checking it fits a value. `shard_map`,
the other partitioning primitive, is `primitives/shard_map.py`.
"""
from __future__ import annotations

from .. import core, tree_util
from ..config import config
from .. import sharding_impls as shd
from ..errors import ArgumentError, ArgumentTypeError, ArgumentValueError, caller_location
from .base import deflinear, is_zero, register, shown_params
from .structural import out_layout

__all__ = ["MeshContextError", "ShardingAssertionError", "sharding_constraint_p", "with_sharding_constraint",
           "resolve_sharding", "check_sharding_fits", "is_partial", "reshard", "constrain_op",
           "shardy_lowering", "is_layout", "layouts_per_leaf", "constrain_layouts"]


class MeshContextError(ArgumentError, RuntimeError):
    """A bare PartitionSpec was given where no mesh is in context (JAX: RuntimeError)."""


class ShardingAssertionError(ArgumentError, AssertionError):
    """`with_sharding_constraint` under a mesh of Explicit axes asserts the value's type
    has the given layout; it has another (JAX: AssertionError)."""


def resolve_sharding(s, what, loc=None):
    """A NamedSharding / SingleDeviceSharding from what a user passed: a Sharding,
    or a bare PartitionSpec under a mesh context (`with mesh:` / `set_mesh`)."""
    if isinstance(s, shd.PartitionSpec):
        mesh = shd.get_mesh()
        if mesh.empty:
            api, arg = what.split(" ", 1) if " " in what else (what, "shardings")
            raise MeshContextError(
                f"{api} requires a non-empty mesh in context if you are passing "
                f"`PartitionSpec`s to {arg}. You can define a context mesh via "
                f"`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to {arg} and "
                "then the mesh context manager is not required.",
                hint=f"got {s!r} outside `with jax.set_mesh(mesh):`", loc=loc)
        return shd.NamedSharding(mesh, s)
    if isinstance(s, (shd.NamedSharding, shd.SingleDeviceSharding)):
        return s
    raise ArgumentTypeError(f"{what} needs a NamedSharding, SingleDeviceSharding or "
                            f"PartitionSpec, got {s!r:.80}", loc=loc)


def check_sharding_fits(s, aval, what, loc=None):
    """A located ValueError when `s` cannot lay out a value of `aval`: a spec longer
    than the rank, or a dimension its mesh axes do not divide."""
    if not isinstance(s, shd.NamedSharding):
        return
    if len(s.spec) > aval.ndim:
        raise ArgumentValueError(
            f"{what}: the sharding {s!r} implies that the array has a rank of at least "
            f"{len(s.spec)}, but the value has shape {tuple(aval.shape)} (rank {aval.ndim})",
            hint="give the PartitionSpec at most one entry per dimension", loc=loc)
    try:
        s.shard_shape(aval.shape)
    except shd.IndivisibleError as e:
        raise shd.IndivisibleError(f"{what}: {e}") from None


def is_partial(sharding, ndim, kind=None) -> bool:
    """Whether a constraint leaves some dimension to the partitioner (its result's
    layout is then XLA's choice, read back from the executable): an UNCONSTRAINED
    entry, or a `reshard` over a mesh with Auto axes (`typed_constraint_op`: nothing
    pinned, or every dimension open -- eagerly too, as JAX's `reshard` inside
    `auto_axes` keeps the array's layout along the Auto axes)."""
    return bool(_unconstrained_dims(sharding, ndim)) or (
        kind == "reshard" and isinstance(sharding, shd.NamedSharding)
        and shd.AxisType.Auto in sharding.mesh.axis_types)

# ------------------------------------------------------------ sharding_constraint


sharding_constraint_p = core.new_primitive("sharding_constraint")


def _constraint_lowering(ctx, x, *, sharding, kind=None):
    if kind == "assert":    # (the type was checked: nothing to lay out, as JAX)
        return x
    if kind == "reshard":
        return typed_constraint_op(ctx, x, ctx.avals_in[0], sharding)
    return constrain_op(ctx, x, ctx.avals_in[0], sharding)


def typed_constraint_op(ctx, x, aval, sharding):
    """`x` (of `aval`) laid out as a type with `sharding` is, as JAX lowers a `reshard`
    (`mlir.lower_with_sharding_in_types`): unchanged over a mesh without axes or whose
    axes are all Auto (inside `auto_axes`) or all Manual; over a mesh with some Auto
    axes, constrained with every dimension open to the partitioner and the Explicit
    axes the layout leaves unused replicated; else constrained to `sharding`."""
    if not isinstance(sharding, shd.NamedSharding):
        return constrain_op(ctx, x, aval, sharding)
    kinds = set(sharding.mesh.axis_types)
    if kinds <= {shd.AxisType.Auto} or kinds == {shd.AxisType.Manual}:
        return x
    return constrain_op(ctx, x, aval, sharding, open_all=shd.AxisType.Auto in kinds)


def constrain_op(ctx, x, aval, sharding, open_all=False):
    """The op pinning the value `x` (of `aval`) to `sharding` in the partitioned
    program being lowered: `sdy.sharding_constraint` (Shardy) or the `Sharding`
    custom call (GSPMD). With `open_all`, every dimension is left open to the
    partitioner and the Explicit mesh axes `sharding` does not name are replicated."""
    devs = shd.current_assignment()
    if devs is None:
        raise ArgumentValueError("with_sharding_constraint is lowered outside a partitioned "
                                 "program (astjax's internal lowering lost the device "
                                 "assignment)")
    if shardy_lowering():
        opened = {}
        if open_all:
            spec, mesh = sharding.spec, sharding.mesh
            used = {a for e in spec for a in shd.PartitionSpec._axes(e)}
            opened = {"open_dims": range(aval.ndim), "replicated": {
                a for a, t in zip(mesh.axis_names, mesh.axis_types) if t == shd.AxisType.Explicit
                and a not in used | spec.unreduced | spec.reduced}}
        return ctx.op1("sdy.sharding_constraint", [x], aval, attrs={
            "sharding": "#sdy.sharding" + shd.sdy_sharding(sharding, aval.ndim, devs, **opened)})
    text = shd.hlo_sharding(sharding, aval.ndim, devs, unconstrained_ok=True)
    free = list(range(aval.ndim)) if open_all else _unconstrained_dims(sharding, aval.ndim)
    config = "unspecified_dims=[" + ",".join(map(str, free)) + "]" if free else ""
    return ctx.op1("stablehlo.custom_call", [x], aval, attrs={
        "call_target_name": '"Sharding"', "backend_config": f'"{config}"',
        "mhlo.sharding": f'"{text}"'})


def shardy_lowering():
    """Whether partitioned programs are lowered with Shardy (see `codegen.spmd`)."""
    return bool(config.read("jax_use_shardy_partitioner"))


def _unconstrained_dims(sharding, ndim):
    """Dimensions a constraint leaves to the partitioner (PartitionSpec.UNCONSTRAINED)."""
    if not isinstance(sharding, shd.NamedSharding):
        return []
    return [i for i, e in enumerate(sharding.spec._normalized(ndim))
            if e is shd.PartitionSpec.UNCONSTRAINED]


def _constraint_batch(args, dims, *, sharding, **kind):
    x, d = args[0], dims[0]
    if d is None or not isinstance(sharding, shd.NamedSharding):
        return sharding_constraint_p.bind(x, sharding=sharding, **kind), d
    spec = list(sharding.spec._normalized(core.get_aval(x).ndim - 1))
    spec.insert(d, None)
    new = shd.NamedSharding(sharding.mesh, shd.PartitionSpec(*spec),
                            memory_kind=sharding.memory_kind)
    return sharding_constraint_p.bind(x, sharding=new, **kind), d


# `kind` (absent for `with_sharding_constraint`): "reshard" (`jax.reshard`: lowered as
# JAX lowers a type's layout, `typed_constraint_op`), "layout" (an inner sharded
# `jit`'s in_shardings / out_shardings: the value keeps its type, as in JAX, where
# those only constrain the layout: codegen/explicit.py) or "assert" (a
# `with_sharding_constraint` under a context mesh of Explicit axes: JAX asserts the
# type has that layout, codegen/explicit.py, and lowers nothing)
register(sharding_constraint_p,
         impl=lambda x, *, sharding, kind=None: x,
         abstract_eval=lambda x, *, sharding, kind=None: x,
         lowering=_constraint_lowering,
         batch=_constraint_batch).pp_shown = lambda params: (
             {} if params.get("kind") == "reshard" else shown_params(("kind",))(params))
# (JAX's `reshard_p`: printed `reshard`, its layout in the result's type)
sharding_constraint_p.pp_name = lambda params: (
    "reshard" if params.get("kind") == "reshard" else "sharding_constraint")
deflinear(sharding_constraint_p, lambda ct, x, *, sharding, **kind: [
    None if is_zero(ct) else sharding_constraint_p.bind(ct, sharding=sharding, **kind)])


def is_layout(s):
    """A leaf of a sharding pytree: a Sharding, a PartitionSpec or None."""
    return s is None or isinstance(s, (shd.Sharding, shd.PartitionSpec))


def layouts_per_leaf(spec, tree, what, loc=None):
    """The entry of the pytree prefix `spec` (Shardings, PartitionSpecs or None) that
    covers each leaf of `tree`, in leaf order, unresolved; `what` starts the error."""
    pdef = tree_util.tree_structure(spec, is_leaf=is_layout)
    prefix = tree_util.tree_leaves(spec, is_leaf=is_layout)
    try:
        subtrees = tree_util._flatten_up_to(pdef, tree)
    except ValueError as e:
        raise ArgumentValueError(f"{what} {spec!r:.80} are not a pytree prefix of the "
                                 f"value: {e}", loc=loc) from None
    out = []
    for s, sub in zip(prefix, subtrees):
        out += [s] * len(tree_util.tree_leaves(sub))
    return out


def with_sharding_constraint(x, shardings):
    """`lax.with_sharding_constraint`: lay each leaf of `x` out as its sharding says
    (`shardings` is one sharding for every leaf or a pytree prefix of `x`; a bare
    PartitionSpec names axes of the current mesh). A spec with unreduced / reduced
    axes raises JAX 0.10.2's ValueError (use `jax.reshard`)."""
    return _constrain(x, shardings, caller_location(), "with_sharding_constraint")


def _constrain(x, shardings, loc, what, checked=False, kind=None):
    leaves, tree = tree_util.flatten_for_staging(x)
    per_leaf = layouts_per_leaf(shardings, x, f"{what}: the shardings", loc)
    outs = []
    for v, s in zip(leaves, per_leaf):
        if s is None:
            outs.append(v)
            continue
        if checked:     # (JAX's canonical `out_sharding`: its errors, not wsc's)
            s = out_layout(s, what)
        s = resolve_sharding(s, what, loc)
        if isinstance(s, shd.NamedSharding) and isinstance(s.mesh, shd.AbstractMesh):
            s = _concrete_layout(v, s, loc)
        if what == "with_sharding_constraint" and isinstance(s, shd.NamedSharding) and (
                s.spec.unreduced or s.spec.reduced):
            raise ArgumentValueError(   # (JAX iterates the spec there)
                "Using *pspec is dangerous when PartitionSpec has non-empty unreduced/reduced "
                "set. Please use *spec.partitions", hint="use jax.reshard(x, spec)", loc=loc)
        check_sharding_fits(s, core.get_aval(v), what, loc)
        this = kind
        if what == "with_sharding_constraint" and isinstance(s, shd.NamedSharding):
            if shd.AxisType.Auto not in s.mesh.axis_types and any(
                    e is shd.PartitionSpec.UNCONSTRAINED for e in s.spec):
                raise ArgumentValueError(
                    f"{s.spec} cannot contain `P.UNCONSTRAINED` when no mesh axis_types are "
                    f"`Auto`. Got mesh axis_types: {tuple(s.mesh.axis_types)}",
                    hint="name the axes or use None", loc=loc)
            if shd.get_abstract_mesh().are_all_axes_explicit:
                this = "assert"     # (JAX's: the type is checked, nothing constrained)
            else:
                _check_auto_axes(s, loc)
        outs.append(sharding_constraint_p.bind(v, sharding=s, **({"kind": this} if this
                                                                 else {})))
    return tree_util.tree_unflatten(tree, outs)


def _check_auto_axes(s, loc):
    """JAX's ValueError for a `with_sharding_constraint` layout naming a mesh axis that
    is not Auto (outside a context mesh of Explicit axes: `reshard` lays those out)."""
    mesh = s.mesh if isinstance(s.mesh, shd.AbstractMesh) else s.mesh.abstract_mesh
    kinds = dict(zip(mesh.axis_names, mesh.axis_types))
    if any(kinds.get(a) != shd.AxisType.Auto for e in s.spec
           if e is not shd.PartitionSpec.UNCONSTRAINED for a in shd.PartitionSpec._axes(e)):
        raise ArgumentValueError(
            "The spec of NamedSharding passed to with_sharding_constraint can only refer to "
            f"Auto axes of the mesh. Got spec={s.spec} and mesh={mesh}. You probably meant "
            "to use `reshard` API?", hint="use jax.reshard for Explicit axes", loc=loc)


def _concrete_layout(v, s, loc):
    """A constraint's layout `s` over an AbstractMesh made concrete, as JAX's: on the
    devices of `set_mesh`'s mesh (of the same shape); eagerly, first of `v`'s own mesh.
    Staged without a context mesh, `s` stays as it is."""
    have = getattr(v, "sharding", None) if core.current_builder() is None else None
    if isinstance(have, shd.NamedSharding) and not isinstance(have.mesh, shd.AbstractMesh):
        if have.mesh.axis_sizes != s.mesh.axis_sizes:
            raise ArgumentValueError(
                f"Mesh shape of the input {have.mesh.axis_sizes} does not match the mesh "
                f"shape of the target sharding {s.mesh.axis_sizes}", loc=loc,
                hint="constrain to a sharding over the mesh the value lives on")
        return shd.NamedSharding(have.mesh, s.spec, memory_kind=s.memory_kind)
    ctx = shd.context_mesh()
    if ctx is not None and ctx.axis_sizes == s.mesh.axis_sizes:
        return shd.NamedSharding(ctx, s.spec, memory_kind=s.memory_kind)
    if core.current_builder() is not None:
        return s
    raise ArgumentTypeError(
        "The sharding on the input must be a `NamedSharding` since the target sharding has "
        f"an `AbstractMesh` in it. Got sharding type {type(have).__name__}", loc=loc,
        hint="call it under `with jax.set_mesh(mesh):` or put the value on the mesh first")



def reshard(xs, out_shardings):
    """`jax.reshard`: lay each leaf of `xs` out as `out_shardings` says (a NamedSharding
    or bare PartitionSpec for every leaf, or a pytree prefix): a layout change
    outside `jit`, a sharding constraint inside. As JAX's, a layout may name Explicit
    axes only (its ValueError for an Auto or Manual one; its TypeError for another
    kind of sharding)."""
    return _constrain(xs, out_shardings, caller_location(), "reshard", checked=True,
                      kind="reshard")


def constrain_layouts(xs, shardings):
    """`xs` laid out as `shardings` says, as `reshard` does but over mesh axes of any
    type and keeping their types: an inner sharded `jit`'s in_shardings /
    out_shardings inside another program (JAX's sharding constraints there)."""
    return _constrain(xs, shardings, caller_location(), "reshard", kind="layout")
