"""Unreduced and reduced mesh axes in types (JAX 0.10.2's `*_ur_rule`s and
`default_*_reduced_rule`s in `jax/_src/lax/lax.py`), run by `codegen/explicit.py`
beside the layouts (`Typed.unreduced`, `Typed.reduced`).

A value laid out `P(..., unreduced={'y'})` over an Explicit mesh holds, on each device
along `y`, a partial sum of its value -- what `jnp.dot(..., out_sharding=P('x', None,
unreduced={'y'}))` makes when its contracting dimension is sharded over `y`, without
the all-reduce; `jax.reshard` to a spec without `y` sums the parts. A value
`P(..., reduced={'y'})` is replicated over `y` and marks where a cotangent will be
unreduced.

`unreduced_of`: `dot_general`'s rule is here; the others are shared with the manual
axes of `shard_map` bodies (`primitives/vma.py`'s `unreduced_rule`): `add` keeps
operands unreduced alike, `mul` (bilinear) refuses one unless the other is reduced
over the same axes, linear maps of each shard keep it, and any other operation
raises JAX's NotImplementedError -- never a silently wrong partial sum.
`reduced_of`: the reduced axes of a result, with JAX's errors.
"""
from __future__ import annotations

from astjax import sharding_impls as shd
from astjax.primitives.vma import unreduced_rule

__all__ = ["unreduced_of", "reduced_of"]


def _err(msg):
    raise shd.ShardingTypeError(msg)


def _axes_of(entry):
    return shd.PartitionSpec._axes(entry)


def unreduced_of(name, ts, params, avals):
    """The unreduced axes of the result of `name` on typed operands `ts`, or JAX's
    error: `dot_general` makes them from its contracting axes when its
    `out_sharding` says so; the other operations follow `vma.unreduced_rule`."""
    us = [t.unreduced if t is not None else frozenset() for t in ts]
    if name == "dot_general":
        return _dot_general_unreduced(ts, us, params, avals)
    return unreduced_rule(name, us, lambda: [_type_str(t, a) for t, a in zip(ts, avals)],
                          rs=[t.reduced if t is not None else frozenset() for t in ts])


def _dot_general_unreduced(ts, us, params, avals):
    if any(us):
        lhs, rhs = (_type_str(t, a) for t, a in zip(ts, avals))
        _err(f"lhs or rhs passed to dot_general cannot be unreduced. Got "
             f"lhs=ShapedArray({lhs}) and rhs=ShapedArray({rhs})")   # (JAX's reprs)
    s = params.get("out_sharding")
    if s is None or not s.spec.unreduced or ts[0] is None or ts[1] is None:
        return frozenset()
    (lc, rc), _ = params["dimension_numbers"]
    left = tuple(ts[0].spec[d] for d in lc)
    right = tuple(ts[1].spec[d] for d in rc)
    if left != right:
        _err("lhs and rhs contracting dims should be sharded identically when out_sharding "
             "provided to dot_general mentions unreduced_axes. Got "
             f"lhs_contracting_spec={left!r}, rhs_contracting_spec={right!r}")
    flat = frozenset(a for e in left for a in _axes_of(e))
    if s.spec.unreduced != flat:
        _err("out_sharding's unreduced axes should be equal to the contracting specs. Got "
             f"unreduced axes={s.spec.unreduced} and contracting spec={left!r}")
    return s.spec.unreduced


def _type_str(t, aval):
    """An operand's type as JAX's messages print it (`float32[4@x,4]{U:y}`)."""
    if t is not None:
        return t.str_short()
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def reduced_of(name, ts, mesh, nary):
    """The reduced axes of a result of `name` (JAX's `default_*_reduced_rule`): an
    operation of one operand keeps them; operands of an n-ary one (`nary`:
    elementwise, `select_n`, `concatenate`) are reduced alike, and the
    others may be neither replicated nor sharded over those axes (JAX's errors);
    `dot_general` drops them, as JAX 0.10.2's does."""
    rs = [t.reduced if t is not None else frozenset() for t in ts]
    if name == "dot_general" or not any(rs):
        return frozenset()
    if not nary:
        return rs[0]
    sets = {r for r in rs if r}
    if len(sets) > 1:
        _err(f"All inputs should be reduced across the same mesh axes. Got specs: {sets}")
    red = sets.pop()
    for t in ts:
        if t is None:
            continue
        flat = {a for e in t.spec for a in _axes_of(e)}
        if (set(mesh.axis_names) - flat - t.unreduced - t.reduced) & red:
            _err("Inputs cannot be replicated on the same axes that another input is "
                 f"reduced on. Got input type: {t.str_short()} and reduced spec: {red}")
        if flat & red:
            _err("Inputs cannot be sharded/varying on the same axes that another input "
                 "is reduced on. Reshard the input which is reduced to be sharded on the "
                 "mesh axes it is reduced on via `jax.sharding.reshard(inp, jax.P(...))`. "
                 f"Got input type: {t.str_short()} and reduced spec: {red}")
    return red
