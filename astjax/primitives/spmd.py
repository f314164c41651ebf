"""Layout primitives of partitioned programs: `sharding_constraint`
(`lax.with_sharding_constraint`), each with every rule and its `lax` wrapper.

A partitioned program (sharded `jit`, `codegen/spmd.py`) is one global program
whose values XLA's SPMD partitioner splits over the devices of its device
assignment. `sharding_constraint` pins the layout of one value: it lowers to the
`Sharding` custom call with an `mhlo.sharding` attribute (GSPMD's annotation),
numbering devices by their place in the program's device assignment
(`sharding.lowering_assignment`, set around the lowering). The value itself is
unchanged: its NumPy reference is the identity, it is linear (its transpose
constrains the cotangent the same way) and under `vmap` the batch dimension is
left unconstrained (a `None` is inserted into the spec). Outside `jit` the
constraint lays a concrete array out as `device_put` would.
"""
from __future__ import annotations

from .. import core, tree_util
from .. import sharding as shd
from ..errors import ArgumentTypeError, ArgumentValueError, caller_location
from .base import deflinear, is_zero, register

__all__ = ["sharding_constraint_p", "with_sharding_constraint", "resolve_sharding",
           "check_sharding_fits", "SPMD_PRIMITIVES"]


def resolve_sharding(s, what, loc=None):
    """A NamedSharding / SingleDeviceSharding from what a user passed: a Sharding,
    or a bare PartitionSpec under a mesh context (`with mesh:` / `set_mesh`)."""
    if isinstance(s, shd.PartitionSpec):
        mesh = shd.get_mesh()
        if mesh.empty:
            raise ArgumentValueError(
                f"{what} got the PartitionSpec {s!r} outside a mesh context: a bare "
                "PartitionSpec needs a mesh to name its axes",
                hint="wrap the call in `with jax.set_mesh(mesh):` or pass "
                     "NamedSharding(mesh, spec)", loc=loc)
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

# ------------------------------------------------------------ sharding_constraint


sharding_constraint_p = core.new_primitive("sharding_constraint")


def _constraint_lowering(ctx, x, *, sharding):
    devs = shd.current_assignment()
    if devs is None:
        raise ArgumentValueError("with_sharding_constraint is lowered outside a partitioned "
                                 "program (astjax's internal lowering lost the device "
                                 "assignment)")
    text = shd.hlo_sharding(sharding, ctx.avals_in[0].ndim, devs)
    return ctx.op1("stablehlo.custom_call", [x], attrs={
        "call_target_name": '"Sharding"', "backend_config": '""',
        "mhlo.sharding": f'"{text}"'})


def _constraint_batch(args, dims, *, sharding):
    x, d = args[0], dims[0]
    if d is None or not isinstance(sharding, shd.NamedSharding):
        return sharding_constraint_p.bind(x, sharding=sharding), d
    spec = list(sharding.spec._normalized(core.get_aval(x).ndim - 1))
    spec.insert(d, None)
    new = shd.NamedSharding(sharding.mesh, shd.PartitionSpec(*spec),
                            memory_kind=sharding.memory_kind)
    return sharding_constraint_p.bind(x, sharding=new), d


register(sharding_constraint_p,
         impl=lambda x, *, sharding: x,
         abstract_eval=lambda x, *, sharding: x,
         lowering=_constraint_lowering,
         batch=_constraint_batch)
deflinear(sharding_constraint_p, lambda ct, x, *, sharding: [
    None if is_zero(ct) else sharding_constraint_p.bind(ct, sharding=sharding)])


def with_sharding_constraint(x, shardings):
    """`lax.with_sharding_constraint`: lay each leaf of `x` out as its sharding says
    (`shardings` is one sharding for every leaf or a pytree prefix of `x`; a bare
    PartitionSpec names axes of the current mesh)."""
    loc = caller_location()

    def is_leaf(s):
        return s is None or isinstance(s, (shd.Sharding, shd.PartitionSpec))
    leaves, tree = tree_util.tree_flatten(x)
    prefix = tree_util.tree_leaves(shardings, is_leaf=is_leaf)
    pdef = tree_util.tree_structure(shardings, is_leaf=is_leaf)
    try:
        subtrees = tree_util._flatten_up_to(pdef, x)
    except ValueError as e:
        raise ArgumentValueError(f"with_sharding_constraint: the shardings {shardings!r:.80} "
                                 f"are not a pytree prefix of the value: {e}", loc=loc) from None
    per_leaf = []
    for s, sub in zip(prefix, subtrees):
        per_leaf += [s] * len(tree_util.tree_leaves(sub))
    outs = []
    for v, s in zip(leaves, per_leaf):
        if s is None:
            outs.append(v)
            continue
        s = resolve_sharding(s, "with_sharding_constraint", loc)
        check_sharding_fits(s, core.get_aval(v), "with_sharding_constraint", loc)
        outs.append(sharding_constraint_p.bind(v, sharding=s))
    return tree_util.tree_unflatten(tree, outs)


# The primitives that make a program a partitioned one (codegen/spmd.py compiles a
# jaxpr containing one with SPMD partitioning over its device assignment).
SPMD_PRIMITIVES = {sharding_constraint_p}
