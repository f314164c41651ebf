"""Unreduced mesh axes in types (JAX 0.10.2's `*_ur_rule`s in `jax/_src/lax/lax.py`):
a value laid out `P(..., unreduced={'y'})` over an Explicit mesh holds, on each
device along `y`, a partial sum of its value -- what `jnp.dot(..., out_sharding=
P('x', None, unreduced={'y'}))` makes when its contracting dimension is sharded over
`y`, without the all-reduce; `jax.reshard` to a spec without `y` sums the parts.

`unreduced_of` is the rule per operation, run by `codegen/explicit.py` beside the
layouts (`Typed.unreduced`): `dot_general`'s here, the others shared with the
manual axes of `shard_map` bodies (`primitives/vma.py`'s `unreduced_rule`): `add`
keeps operands unreduced alike, `mul` (bilinear) refuses one, linear maps of each
shard (`reduce_sum`, `reshape`, `transpose`, `convert_element_type`, slicing, ...)
keep it, and any other operation raises JAX's NotImplementedError -- never a
silently wrong partial sum.
"""
from __future__ import annotations

from astjax import sharding as shd
from astjax.primitives.vma import UnreducedRuleError, unreduced_rule

__all__ = ["unreduced_of", "UnreducedRuleError"]


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
    return unreduced_rule(name, us, lambda: [_type_str(t, a) for t, a in zip(ts, avals)])


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
