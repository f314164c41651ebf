"""JAX's sharding in types: on a mesh whose axes are **Explicit** (`jax.make_mesh`'s
default in JAX 0.10.2) an array's layout is part of its type, each operation
computes its result's layout by a rule, and operations whose operands' layouts
cannot be reconciled without an implicit resharding raise JAX's
`ShardingTypeError` (`astjax.sharding.ShardingTypeError`) instead of letting the
partitioner choose.

astjax's IR types carry no layout, so the types are computed beside the IR: a
typed value is `Typed(aval, spec, mesh)` (one spec entry per dimension), and
`propagate` runs the rules below over a jaxpr from its arguments' types. It runs

- on a partitioned `jit`'s jaxpr (`codegen.spmd.jit_entry`), from the arguments'
  layouts (or their `in_shardings`), also on the program as staged (its dead code is
  checked too, as JAX checks every operation it traces): an error is raised located
  at the user's line that staged the operation, and each typed result is laid out by
  its type, as JAX lays it out;
- on one operation outside `jit` (`check`, from `spmd.eager_apply`);
- for `jax.typeof(x)` on a value staged inside such a `jit` (`typeof`), over the
  equations staged so far.

Rules (JAX's, `jax/_src/lax/lax.py`'s `*_sharding_rule`s): elementwise operations
broadcast (along each dimension at most one mesh axis among the operands whose
dimension is not a broadcast 1), `select_n` and `concatenate` need equal layouts,
`dot_general` keeps batch + free dimensions and rejects inconsistent or doubly
sharded contracting dimensions, reductions, `argmax`/`argmin` and `squeeze` drop
dimensions, cumulative reductions and `sort` need their axis unsharded,
`transpose` permutes, `broadcast_in_dim` adds replicated dimensions,
`reshape` splits or merges one dimension (JAX's algorithm, else its error), `gather`
/ `scatter` propagate the layout when the indexed dimensions are unsharded (or
taken whole) and the indices unsharded (else JAX's "Use `.at[...]...(out_sharding=)`"
error), `slice`
/ `dynamic_slice` / `pad` keep the layout where the mesh axes divide the new size,
`dynamic_update_slice` needs the update laid out as the operand, `rev` keeps it,
`expand_dims` adds replicated dimensions, a `sharding_constraint` (`reshard`) sets
it, and so does an `out_sharding` given to `dot_general`, `reshape` or
`broadcast_in_dim` (also of an untyped operand: `jnp.zeros(..., out_sharding=)`),
and a `shard_map`'s out_specs lay out its results; a result naming a mesh axis twice is
JAX's "illegally sharded result". A value made from no operand (`jnp.zeros`, an iota,
a constant's broadcast) under `set_mesh` of an Explicit mesh is replicated over it
(`made_mesh`), as JAX types it -- but not the constants derivative and batching rules
make, nor values laid out anew at once (`primitives/untyped_made.py`); `jnp.where`
broadcasts its operands to their common layout (`broadcast_layouts`). Values from any
other operation, host values and arrays on one device are untyped: no check can fail
on them wrongly -- but for an array `device_put` on one device from a typed one, which
keeps its type as in JAX (`explicit_types.OneDeviceTyped`). On a mesh of Explicit and
Auto axes (also inside `auto_axes(axes=...)`) the types name the Explicit axes only, as
JAX's: they are checked and constrained with every dimension open, but a result is not
laid out by its type (`all_explicit`: XLA chooses along the Auto axes).

Gradients: JAX gives every cotangent its primal's type. The backward equations are
typed from the forward ones of the same source position (see `propagate`); and `grad` / `value_and_grad` /
`vjp` constrain each input cotangent to its primal's layout (`like_primals`), so the
gradients come out laid out, and typed, as JAX's.
"""
from __future__ import annotations

import math
import threading

import numpy as np

from astjax import core, ir, util
from astjax.errors import AstjaxError
from astjax import sharding_impls as shd
from astjax.primitives.spmd import sharding_constraint_p
from astjax.primitives.untyped_made import is_untyped_made

from . import sharded
from .typed_avals import ManualAval, MeshAval, TypedAval, TypedRefAval, manual_typeof
from .explicit_indexing import SCATTERS, gather_rule, scatter_rule
from .explicit_reshape import reshape_rule as _reshape
from .explicit_types import (Typed, all_explicit, assert_layout, const_types, explicit_part,
                             is_explicit, made_mesh, typed, typed_abstract, typed_sharding)
from .unreduced import reduced_of, unreduced_of

__all__ = ["Typed", "check", "propagate", "typed", "typed_sharding", "staging", "typeof",
           "TypedAval", "is_elementwise", "NESTED", "like_primals", "layout_of", "with_types",
           "TypedClosedJaxpr", "ManualAval", "staging_nested",
           "layouts_of", "types_of", "nested_frame", "made_mesh", "typed_abstract",
           "broadcast_layouts", "const_types"]

#: JAX's elementwise primitives that are no `elementwise` ones here (`primitives/base.py`'s
#: `defvectorized` / `defbroadcasting` mark those): the result keeps the operand's layout
_LAYOUT_KEEPING = frozenset({"rev"})


def is_elementwise(prim) -> bool:
    """Whether `prim` is elementwise (its operands' layouts broadcast, JAX's default
    sharding rule for them)."""
    return getattr(prim, "elementwise", False)

_CUMULATIVE = frozenset({"cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"})
_REDUCERS = frozenset({"reduce_sum", "reduce_max", "reduce_min", "reduce_prod",
                       "reduce_and", "reduce_or", "reduce_xor", "argmax", "argmin"})


# ------------------------------------------------------------------------- rules


def _err(msg):
    raise shd.ShardingTypeError(msg)


def _broadcasting(name, ts, out_aval):
    typed_ = [t for t in ts if t is not None and t.aval.shape]
    if not typed_:      # (of typed scalars, a scalar on their mesh)
        return [] if not out_aval.ndim and any(t is not None for t in ts) else None
    ndim = out_aval.ndim
    spec = []
    for d in range(ndim):
        named = set()
        for t in typed_:
            k = d - (ndim - t.aval.ndim)
            if k >= 0 and t.aval.shape[k] != 1 and t.spec[k] is not None:
                named.add(t.spec[k])
        if len(named) > 1:
            _err(f"{name} got incompatible shardings for broadcasting: "
                 + ", ".join(str(t.spec) for t in typed_) + ".")
        spec.append(next(iter(named)) if named else None)
    return spec


def _fits(shape, out_shape) -> bool:
    """Whether an operand of `shape` broadcasts to `out_shape` by its size-1 dimensions
    (a batched binary operation's unbatched operand: JAX's `broadcast_batcher`)."""
    return len(shape) == len(out_shape) and all(n in (1, m) for n, m in zip(shape, out_shape))


def _same(ts, msg):
    typed_ = [t for t in ts if t is not None]
    if len({t.spec for t in typed_}) > 1:
        _err(msg(typed_))
    return list(typed_[0].spec) if typed_ else None


def _dot_general(ts, params):
    lhs, rhs = ts[:2]
    if lhs is None or rhs is None:
        return None
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    lb_spec = tuple(lhs.spec[d] for d in lb)
    rb_spec = tuple(rhs.spec[d] for d in rb)
    _match(lb_spec, rb_spec, "dot_general requires lhs batch dimensions and rhs batch "
           f"dimensions to have the consistent sharding, got {lb_spec} and {rb_spec}.")
    left = tuple(lhs.spec[d] for d in lc)
    right = tuple(rhs.spec[d] for d in rc)
    _match(left, right, "dot_general requires contracting dimensions to have consistent "
           f"sharding, got {left} and {right}.")
    if any(x is not None and y is not None for x, y in zip(left, right)):
        _err("Contracting dimensions are sharded and it is ambiguous how the output should "
             "be sharded. Please specify the output sharding via the `out_sharding` "
             f"parameter. Got lhs_contracting_spec={left!r} and rhs_contracting_spec="
             f"{right!r}")
    lfree = [e for d, e in enumerate(lhs.spec) if d not in set(lc) | set(lb)]
    rfree = [e for d, e in enumerate(rhs.spec) if d not in set(rc) | set(rb)]
    return list(lb_spec) + lfree + rfree


def _match(left, right, msg):
    if any(x is not None and y is not None and x != y for x, y in zip(left, right)):
        _err(msg)


def _axes_of(entry):
    return shd.PartitionSpec._axes(entry)


def _varying_shape(t, out_shape, what):
    """slice / pad: the operand's layout, where its mesh axes divide the new sizes."""
    for n, m, e in zip(t.aval.shape, out_shape, t.spec):
        k = math.prod(t.mesh.shape[a] for a in _axes_of(e))
        if n != m and e is not None and m % k:
            _err(f"{what} on sharded dims where out dim ({m}) is not divisible by mesh axes "
                 f"({k}) with spec ({e}) is not implemented. Got input type="
                 f"{t.str_short(True)} and output shape={tuple(out_shape)}")
    return list(t.spec)


def _rule(prim, ts, params, out_avals, avals=None):
    """The layout of the (first) result of primitive `prim` on typed operands `ts`
    (None: untyped), or None when it is not known. Raises ShardingTypeError."""
    first, name = ts[0] if ts else None, prim.name
    if name == "select_n":
        _same(ts[1:], lambda c: "select cases must have the same shardings, got ["
              + ", ".join(t.sharding_str() for t in c) + "].")
        return _broadcasting(name, ts, out_avals[0])
    if name == "concatenate":
        return _same(ts, lambda c: "All operands should have the same sharding. Got "
                     "shardings " + ", ".join(t.sharding_str() for t in c))
    if name == "sort":
        d = params["dimension"]
        for t in ts:
            if t is not None and t.spec[d] is not None:
                _err("Arguments to sort must be unsharded over the sorting dimension. Got "
                     f"arg sharding={t.sharding_str()} and sorting dimension={d}")
        return _same(ts, lambda c: "Arguments to sort must have equal shardings, got: "
                     + " ".join(t.sharding_str() for t in c))
    if name == "dot_general":
        s = params.get("out_sharding")
        if s is not None:   # JAX: the given layout, no check
            return list(s.spec._normalized(out_avals[0].ndim))
        return _dot_general(ts, params)
    if name == "gather":
        return gather_rule(ts, params, avals, out_avals[0])
    if name in SCATTERS:
        return scatter_rule(ts, params, avals)
    if is_elementwise(prim) and all(t is None or not t.aval.ndim or _fits(
            t.aval.shape, out_avals[0].shape) for t in ts):
        return _broadcasting(name, ts, out_avals[0])
    if first is None:
        return None
    if name in _LAYOUT_KEEPING:
        return list(first.spec)
    if name in _CUMULATIVE:
        if first.spec[params["axis"]] is not None:
            _err("Input should be unsharded over the axis being reduced. Got input type="
                 f"{first.str_short()} and axis={params['axis']}")
        return list(first.spec)
    if name in _REDUCERS:
        if params.get("out_sharding") is not None:
            return None
        return [e for d, e in enumerate(first.spec) if d not in set(params["axes"])]
    if name == "dynamic_slice":
        return _varying_shape(first, out_avals[0].shape, "dynamic_slice")
    if name == "dynamic_update_slice":
        if ts[1] is not None and ts[1].spec != first.spec:
            _err("dynamic_update_slice operand sharding must be equal to update sharding, got "
                 f"operand sharding {first.str_short(axis_types=True)} and update sharding "
                 f"{ts[1].str_short(axis_types=True)}.")
        return list(first.spec)
    if name == "squeeze":
        return [e for d, e in enumerate(first.spec) if d not in set(params["dimensions"])]
    if name == "transpose":
        return [first.spec[d] for d in params["permutation"]]
    if name in ("broadcast_in_dim", "reshape") and params.get("sharding") is not None:
        return list(params["sharding"].spec._normalized(out_avals[0].ndim))   # JAX: as given
    if name == "broadcast_in_dim":
        it = iter(first.spec)
        dims = set(params["broadcast_dimensions"])
        return [next(it) if d in dims else None for d in range(len(params["shape"]))]
    if name == "reshape":
        return _reshape(first, params["new_sizes"], params.get("dimensions"))
    if name == "slice":
        return _varying_shape(first, out_avals[0].shape, "slicing")
    if name == "pad":
        return _varying_shape(first, out_avals[0].shape, "padding")
    return None


def _result(prim, ts, params, out_avals, avals=None):
    """The Typed results of one equation (None: untyped), with JAX's check that no
    mesh axis is named twice. Of several results only `sort`'s are typed (alike)."""
    name = prim.name
    if name == "sharding_constraint":     # sets the type, whatever the operand's --
        if params.get("kind") in ("layout", "assert"):   # but an inner jit's layouts
            if params["kind"] == "assert" and ts[0] is not None:   # keep it (JAX's)
                assert_layout(ts[0], params["sharding"])
            return [None if ts[0] is None else Typed(out_avals[0], ts[0].spec, ts[0].mesh,
                                                     ts[0].unreduced, reduced=ts[0].reduced)]
        s = params["sharding"]
        if ("kind" not in params and ts[0] is not None and isinstance(s, shd.NamedSharding)
                and is_explicit(s.mesh) and not all_explicit(s.mesh)):
            # (`with_sharding_constraint` over Auto axes keeps the Explicit ones' type)
            return [Typed(out_avals[0], ts[0].spec, s.mesh, ts[0].unreduced,
                          reduced=ts[0].reduced)]
        return [typed_sharding(s, out_avals[0])]
    if name == "shard_map":               # its results are laid out by out_specs
        mesh = params["mesh"]
        if params.get("auto") or not is_explicit(mesh):
            return [None] * len(out_avals)
        return [Typed(a, explicit_part(s._normalized(a.ndim), mesh), mesh, s.unreduced,
                      given=s, reduced=s.reduced) for a, s in zip(out_avals, params["out_specs"])]
    if all(t is None for t in ts) and len(out_avals) == 1:   # (made inside: laid out as
        return [_given(params, out_avals[0])]                  # asked, else untyped)
    if all(t is None for t in ts) or (len(out_avals) != 1 and name != "sort"):
        return [None] * len(out_avals)
    meshes = {t.mesh for t in ts if t is not None}
    if len(meshes) != 1:
        return [None] * len(out_avals)
    mesh = next(iter(meshes))
    reduced = reduced_of(name, ts, mesh, is_elementwise(prim) and len(ts) > 1
                         or name in ("select_n", "concatenate"))
    unreduced = unreduced_of(name, ts, params, avals if avals is not None else
                             [None if t is None else t.aval for t in ts])
    if unreduced:
        reduced = frozenset()       # (mul: unreduced times reduced is unreduced)
    spec = _rule(prim, ts, params, out_avals, avals)
    if spec is None:
        return [None] * len(out_avals)
    out = Typed(out_avals[0], spec, mesh, unreduced, reduced=reduced)
    axes = [a for e in spec for a in _axes_of(e)]
    if len(axes) != len(set(axes)):
        ins = ", ".join(t.str_short(True) if t is not None else "?" for t in ts)
        _err(f"{name} operation with inputs: {ins} produces an illegally sharded result: "
             f"{out.str_short(True)}")
    return [Typed(a, spec, mesh, unreduced, reduced=reduced) for a in out_avals]


def _given(params, aval):
    """The type of a value made from no typed operand by an operation given a layout
    (`out_sharding=` of `jnp.zeros`, `jnp.arange`, ...: its `sharding` param)."""
    s = params.get("sharding", params.get("out_sharding"))
    return typed_sharding(s, aval) if isinstance(s, shd.NamedSharding) else None


def check(prim, args, params):
    """One primitive on concrete `args` outside `jit`: raise JAX's ShardingTypeError
    when their Explicit layouts are incompatible; returns the result's Typed (or None)."""
    ts = [typed(a) for a in args]
    if all(t is None for t in ts) and prim.name != "shard_map":   # (out_specs: a type)
        return None
    avals = [core.get_aval(a) for a in args]
    out = prim.abstract_eval(*avals, **params)
    out = out if prim.multiple_results else [out]
    nested = NESTED.get(prim.name)
    outs = (nested(ts, params, {}, propagate) if nested is not None
            else _result(prim, ts, params, out, avals))
    return outs[0] if len(outs) == 1 else None


#: primitive name -> the rule of a primitive with nested jaxprs (control flow, calls):
#: `rule(ts, params, env, propagate)` types its bodies from its operands' types `ts`
#: (their variables' types added to `env`) and returns its results' types
#: (`codegen/explicit_control.py` registers them)
NESTED: dict = {}


def propagate(eqns, env):
    """Run the rules over `eqns`, extending `env` (Var -> Typed), also over the
    bodies of control flow and calls (`NESTED`). An error is raised located at the
    equation's source line.

    Equations a transpose made (source phase 'backward') are typed but not checked:
    JAX gives the transposed `dot_general` its primal operand's layout as
    `out_sharding` (contracting a dimension sharded on both sides is then fine);
    astjax's transposed `dot_general` does not record it, so its type is read from
    the forward `dot_general` of the same source position (`_transposed_dot`), also
    when the two are in different bodies (a `scan`'s forward and reverse loops, the
    calls of an inner `jit` and of its transpose).

    Nothing is done while no mesh with an Explicit axis was made (no type has a
    layout): programs without one pay nothing."""
    if not shd.explicit_meshes[0]:
        return env
    if getattr(_forward, "dots", None) is not None:     # (a body: its program's table)
        return _propagate(eqns, env, _forward.dots)
    _forward.dots = {}
    try:
        return _propagate(eqns, env, _forward.dots)
    finally:
        _forward.dots = None


#: while `propagate` runs: source position -> the operand types of the forward
#: dot_general staged there, in the program or any of its bodies
_forward = threading.local()


def _propagate(eqns, env, dots):
    made = made_mesh()
    eqns = list(eqns)
    seen = {}   # source position -> the types of its forward equations' values
    for k, eqn in enumerate(eqns):
        ts = [env.get(a) if isinstance(a, core.Var) else None for a in eqn.invars]
        name = eqn.primitive.name
        src = eqn.source_info
        backward = src is not None and src.phase == "backward"
        # (source positions are read only where a type is involved: reading one builds
        # its code's position table, which a program that raises nothing never needs)
        if name == "dot_general" and src is not None and src.file:
            if backward:
                t = _transposed_dot(eqn, eqns[k + 1:], dots.get((src.file, src.line, src.col))
                                    if dots else None)
                if t is not None:
                    env[eqn.outvars[0]] = t
                continue
            if any(t is not None for t in ts[:2]):
                dots[(src.file, src.line, src.col)] = ts[:2]
        elif backward and name == "dot_general":
            continue
        nested = NESTED.get(name)
        if all(t is None for t in ts) and nested is None and not backward and name not in (
                "sharding_constraint", "shard_map") and not isinstance(
                eqn.params.get("sharding", eqn.params.get("out_sharding")), shd.NamedSharding):
            if made is not None and _made(eqn):
                for v in eqn.outvars:
                    if type(v.aval) is core.ShapedArray:
                        env[v] = Typed(v.aval, [None] * v.aval.ndim, made)
            continue
        try:
            outs = (nested(ts, eqn.params, env, propagate) if nested is not None else
                    _result(eqn.primitive, ts, eqn.params, [v.aval for v in eqn.outvars],
                            [core.get_aval(a) for a in eqn.invars]))
        except AstjaxError as e:
            if backward and isinstance(e, shd.ShardingTypeError):
                continue
            if src is not None and src.phase == "batched":
                # (vmap's function was typed as JAX traces it, unbatched: its errors
                # raised there, `explicit_control.check_mapped`; a batching rule's
                # values are not typed as JAX's are: the operands' layouts merged)
                merged = _merged(ts, eqn.outvars)
                if merged is not None:
                    env[eqn.outvars[0]] = merged
                continue
            if getattr(e, "at_operation", False):   # (located inside a body already)
                raise
            located = type(e)(e.message, hint=e.hint, loc=src if src is not None and src.file
                              else None)
            located.at_operation = True
            raise located from None
        if backward and len(outs) == 1 and (outs[0] is None or name == "broadcast_in_dim"):
            # (a reduction's transpose broadcasts to its primal operand's type, JAX's
            # out_sharding there: not the rule's replicated one)
            outs = [_cotangent(eqn.outvars[0].aval, seen.get((src.file, src.line, src.col))
                               if seen else None) or outs[0]]
        elif not backward and src is not None and src.file:
            known = [t for t in [*ts, *outs] if t is not None]
            if known:
                seen.setdefault((src.file, src.line, src.col), []).extend(known)
        for v, t in zip(eqn.outvars, outs):
            if t is not None:
                env[v] = t
    return env


def _merged(ts, outvars):
    """The type of a batched operation whose operands' layouts disagree only where a
    batching rule's value is replicated: along each dimension the one mesh axis the
    operands of the result's shape name (None when there are several)."""
    if len(outvars) != 1:
        return None
    same = [t for t in ts if t is not None and t.aval.shape == outvars[0].aval.shape]
    named = [{t.spec[d] for t in same} - {None} for d in range(outvars[0].aval.ndim)]
    if not same or len({t.mesh for t in same}) != 1 or any(len(n) > 1 for n in named):
        return None
    return Typed(outvars[0].aval, [next(iter(n), None) for n in named], same[0].mesh)


def _made(eqn) -> bool:
    """Whether `eqn` makes its results from no operand (only literals: `jnp.zeros`'s
    broadcast, an iota, a constant's conversion), not a callback's, and not marked
    as making them untyped (`primitives/untyped_made.py`)."""
    return (not any(isinstance(a, core.Var) for a in eqn.invars)
            and "callback" not in eqn.primitive.name and not is_untyped_made(eqn))


def _cotangent(aval, primals):
    """A backward value the rules do not type: JAX gives a cotangent its primal's
    type, so the one layout of the values of this shape that the forward equations
    of the same source position have (e.g. `reduce_sum`'s cotangent broadcast back);
    None when there is none or several."""
    fits = {(t.spec, t.mesh): t for t in primals or () if t.aval.shape == aval.shape
            and not t.unreduced and not t.reduced}
    if len(fits) != 1:
        return None
    t = next(iter(fits.values()))
    return Typed(aval, t.spec, t.mesh)


def _transposed_dot(eqn, later, operands):
    """The type of a transposed `dot_general` (a cotangent of one operand of the
    forward `dot_general` whose operand types are `operands`): that operand's layout,
    through the `transpose` that follows it (as JAX's transpose rule lays it out);
    None when no operand, or more than one with different layouts, fits."""
    if not operands:
        return None
    out = eqn.outvars[0]
    perm = next((e.params["permutation"] for e in later if e.primitive.name == "transpose"
                 and e.invars and e.invars[0] is out), tuple(range(out.aval.ndim)))
    shape = tuple(out.aval.shape[p] for p in perm)
    fits = {t.spec: t for t in operands if t is not None and tuple(t.aval.shape) == shape}
    if len(fits) != 1:
        return None
    t = next(iter(fits.values()))
    spec = [None] * len(perm)
    for i, p in enumerate(perm):
        spec[p] = t.spec[i]
    return Typed(out.aval, spec, t.mesh)

# ------------------------------------------------- jax.typeof inside a partitioned jit

_staging = threading.local()


class staging:
    """While a `jit` stages its function on arguments `leaves`: their types (`types`,
    else those of laid-out arrays), for `typeof` on the values staged from them."""

    def __init__(self, leaves, types=None):
        self.types = [typed(x) for x in leaves] if types is None else list(types)
        meshes = [x.sharding.mesh for x in leaves if not isinstance(x, core.Tracer)
                  and isinstance(getattr(x, "sharding", None), shd.NamedSharding)]
        self.mesh = meshes[0] if meshes else None
        # (host values and one-device arrays: their type names no mesh, no layout)
        self.plain = [t is None and (isinstance(x, (np.ndarray, np.generic, int, float, complex))
                                     or isinstance(x, sharded.runtime.Array)
                                     and type(x) is not sharded.GlobalArray)
                      for x, t in zip(leaves, self.types)]

    def __enter__(self):
        self._previous = (getattr(_staging, "types", None), getattr(_staging, "mesh", None),
                          getattr(_staging, "plain", None))
        _staging.types = self.types if any(t is not None for t in self.types) else None
        _staging.mesh, _staging.plain = self.mesh, self.plain
        return self

    def __exit__(self, *exc):
        _staging.types, _staging.mesh, _staging.plain = self._previous
        return False


def _plain_argument(x) -> bool:
    """Whether staged `x` is an outermost `jit`'s argument given an unsharded value."""
    builders, plain = core._state.builders, getattr(_staging, "plain", None)
    if not builders or not plain or x.builder is not builders[0] or len(
            builders[0].invars) != len(plain):
        return False
    return any(v is x._var and p for v, p in zip(builders[0].invars, plain))


def typeof(x, aval):
    """`jax.typeof(x)`: a TypedAval when `x` is an Explicit-laid-out array or a value
    staged from such arguments inside `jit` whose layout the rules know; else a
    MeshAval over the array's mesh, the mesh of the `jit`'s arguments or the current one."""
    t = typed(x)
    if type(aval) is core.AbstractRef and t is None:   # (an eager Ref: its value's type)
        t = typed(getattr(x, "_value", None))
        return aval if t is None else TypedRefAval(t)
    if t is None and isinstance(x, core.Tracer):
        manual = manual_typeof(x, aval)
        if manual is not None:
            return manual
        t = _staged_type(x)
    if t is not None:
        return TypedAval(t)
    if not isinstance(aval, core.ShapedArray) or type(aval) is not core.ShapedArray:
        return aval
    s = getattr(x, "sharding", None) if not isinstance(x, core.Tracer) else None
    mesh = (s.mesh if isinstance(s, shd.NamedSharding)
            else getattr(_staging, "mesh", None) if isinstance(x, core.Tracer) else None)
    return MeshAval(aval, mesh.abstract_mesh if mesh is not None else shd.get_abstract_mesh())


class TypedClosedJaxpr(core.ClosedJaxpr):
    """`make_jaxpr`'s result on arrays laid out over Explicit axes: the ClosedJaxpr,
    printed as JAX prints it, each variable whose layout the rules know typed with it
    (`a:f32[4@x,4@y]`)."""
    __slots__ = ("types",)

    def __init__(self, closed, types):
        super().__init__(closed.jaxpr, closed.consts)
        self.types = types

    def __str__(self):
        return ir.pp_jaxpr(self.jaxpr, types=self.types)

    __repr__ = __str__


def with_types(closed, leaves, types=None):
    """`closed` (staged from `leaves`, of `types` if given) with the layouts the rules
    give its variables, for printing (a TypedClosedJaxpr); `closed` itself when no
    argument is typed. Raises JAX's ShardingTypeError, located, where they do not fit."""
    types = [typed(x) for x in leaves] if types is None else types
    env = const_types(closed.jaxpr.constvars, closed.consts)
    if all(t is None for t in types) and not env:
        return closed
    env = propagate(closed.jaxpr.eqns, {**env, **{v: t for v, t in zip(closed.jaxpr.invars,
                                                                       types) if t is not None}})
    return TypedClosedJaxpr(closed, {v: t.str_short(True) for v, t in env.items()})


def layout_of(x, mesh):
    """The type of a `shard_map` argument with its layout over Explicit axes: a
    TypedAval for a laid-out array, a value staged from such arrays whose layout the
    rules know, or a host / one-device value (nothing sharded over `mesh`); None for a staged
    value whose layout is not known here (no check can fail on it wrongly)."""
    t = typed(x)
    if t is None and isinstance(x, core.Tracer):
        t = _staged_type(x)
        if t is None and not _plain_argument(x):
            return None
    if t is None:
        aval = core.get_aval(x)
        if mesh.empty or not isinstance(aval, core.ShapedArray):
            return None
        t = Typed(aval, [None] * aval.ndim, mesh)
    return TypedAval(t)


def _staged_type(tracer):
    return _staged_types([tracer])[0]


def _staged_types(tracers):
    """The Typed (or None) of each tracer staged from typed arguments -- of a
    partitioned `jit` (`staging`), of a transform's own staging (`staging_nested`) or
    of a control-flow body (`nested_frame`) -- with one pass of the rules per builder
    involved."""
    builders = core._state.builders
    if not shd.explicit_meshes[0]:      # (no layout in any type)
        return [None] * len(tracers)
    frames = {}     # id(builder) -> the types of its invars (or a function giving them)
    types = getattr(_staging, "types", None)
    if types is not None and builders and len(builders[0].invars) == len(types):
        frames[id(builders[0])] = types
    for depth, types in getattr(_staging, "nested", ()):
        if depth < len(builders):
            frames[id(builders[depth])] = types
    if not frames and builders:     # untyped arguments: only `out_sharding=` types values
        frames[id(builders[0])] = ()
    envs = {}

    def type_of(x):
        if not isinstance(x, core.Tracer) or not any(x.builder is b for b in builders):
            return None
        return env_of(x.builder).get(x._var)

    def env_of(b):
        if id(b) not in envs:
            env = {v: t for v, o in b.captures.values() if (t := type_of(o)) is not None}
            env.update(const_types(*zip(*b.consts.values())) if b.consts else ())
            given = frames.get(id(b), ())
            given = given(b.invars) if callable(given) else given
            if len(given) == len(b.invars):
                env.update((v, t) for v, t in zip(b.invars, given) if t is not None)
            envs[id(b)] = propagate(b.eqns, env) if env or id(b) in frames else {}
        return envs[id(b)]
    return [type_of(x) for x in tracers]


def types_of(values):
    """The Typed (or None) of each value: an array laid out over an Explicit mesh, or
    a value staged from such arrays whose layout the rules know."""
    types = [typed(x) for x in values]
    staged = [i for i, (x, t) in enumerate(zip(values, types))
              if t is None and isinstance(x, core.Tracer)]
    for i, t in zip(staged, _staged_types([values[i] for i in staged])):
        types[i] = t
    return types


def types_key(leaves) -> tuple:
    """() while no Explicit mesh is in use, else the layouts of `leaves`' types: part of
    the cache key of a function staged for them (an inner `jit`), whose staged
    equations carry the layouts they were staged with (a broadcast's `out_sharding`)."""
    if not shd.explicit_meshes[0]:
        return ()
    return (tuple(None if t is None else (t.spec, t.mesh, t.unreduced, t.reduced)
                  for t in types_of(leaves)),)


def nested_frame(types) -> util.pushed:
    """While the next builder stages a function whose arguments have `types` (a list
    of Typed / None, or a function of the builder's invars giving it when first
    asked)."""
    if not hasattr(_staging, "nested"):
        _staging.nested = []
    return util.pushed(_staging.nested, (len(core._state.builders), types))


class staging_nested:
    """While a transform (`grad`, `vjp`, ...) stages a function on `leaves` in a
    builder of its own: their types (arrays laid out over Explicit axes, or values
    staged from such arrays), for `typeof` on the values staged from them."""

    def __init__(self, leaves):
        types = types_of(leaves)
        self.types = types if any(t is not None for t in types) else None

    def __enter__(self):
        self._frame = nested_frame(self.types) if self.types is not None else None
        if self._frame is not None:
            self._frame.__enter__()
        return self

    def __exit__(self, *exc):
        if self._frame is not None:
            self._frame.__exit__(*exc)
        return False


def layouts_of(primals):
    """The NamedSharding of each value in `primals` laid out over an Explicit mesh --
    an array, or a value staged from such arrays inside `jit` -- else None."""
    return [None if t is None or not is_explicit(t.mesh) else t.sharding
            for t in types_of(primals)]


def broadcast_layouts(values, shape):
    """JAX's `broadcast_shardings` for `jnp.where` / `broadcast_arrays`: the layout
    each of `values` is broadcast to `shape` with (an `out_sharding`), from the
    types of those laid out over Explicit axes (rank 0 ones name no axis); None for a
    value left as it is (of that shape and type already, or nothing typed)."""
    if not shd.explicit_meshes[0] or (
            getattr(_staging, "types", None) is None and not getattr(_staging, "nested", None)
            and made_mesh() is None and not any(typed(v) is not None for v in values)):
        return [None] * len(values)     # (nothing here can be typed)
    types = types_of(list(values))
    ranked = [t for t in types if t is not None and t.aval.ndim and is_explicit(t.mesh)]
    if not ranked or len({t.mesh for t in ranked}) != 1:
        return [None] * len(values)
    nd = len(shape)
    specs = [(None,) * (nd - t.aval.ndim) + t.spec for t in ranked]
    dims = [(1,) * (nd - t.aval.ndim) + tuple(t.aval.shape) for t in ranked]
    out = []
    for d in range(nd):
        entries = [sp[d] for sp in specs]
        wide = {e for e, n in zip(entries, dims) if not (n[d] == 1 and e is None)}
        if len(set(entries)) == 1 or len(wide) <= 1:
            out.append(entries[0] if len(set(entries)) == 1 else next(iter(wide), None))
            continue
        named = {e for e in entries if e is not None}
        if len(named) > 1:
            _err("broadcast_shardings got incompatible shardings for broadcasting: "
                 + ", ".join(str(tuple(sp[nd - t.aval.ndim:])) for sp, t in zip(specs, ranked))
                 + ".")
        out.append(next(iter(named)))
    target = shd.NamedSharding(ranked[0].mesh, shd.PartitionSpec(*out))
    return [None if core.get_aval(v).shape == tuple(shape) and t is not None
            and t.spec == tuple(out) else target for v, t in zip(values, types)]


def like_primals(cts, layouts):
    """JAX's invariant that a cotangent has its primal's type: each cotangent in `cts`
    whose primal was laid out over an Explicit mesh (`layouts`, from `layouts_of`) is
    constrained to that layout (JAX's transpose rules produce it, e.g. the transposed
    `dot_general` gets the primal's layout as `out_sharding`); the others pass, and
    so does a cotangent whose type already is that layout (as JAX's jaxpr has no
    constraint there)."""
    todo = [i for i, (c, s) in enumerate(zip(cts, layouts)) if not (
        s is None or c is None or isinstance(c, (core.Zero, np.ndarray)))]
    staged = [i for i in todo if isinstance(cts[i], core.Tracer)]
    types = dict(zip(staged, _staged_types([cts[i] for i in staged])))
    out = list(cts)
    for i in todo:
        t = types.get(i) if i in types else typed(cts[i])
        if t is None or not t.sharding.is_equivalent_to(layouts[i], t.aval.ndim) or (
                t.unreduced != layouts[i].spec.unreduced):
            out[i] = sharding_constraint_p.bind(cts[i], sharding=layouts[i], **(
                {} if all_explicit(layouts[i].mesh) else {"kind": "reshard"}))  # (open
    return out                                                      # along Auto axes)

