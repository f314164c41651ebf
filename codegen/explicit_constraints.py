"""The sharding constraints JAX 0.10.2 lowers a program on a mesh of Explicit axes
with (`mlir.lower_with_sharding_in_types`): after each operation whose results'
types (`codegen/explicit.py`) name the mesh -- also inside control-flow bodies and
calls -- an `sdy.sharding_constraint` to each type, an elementwise operation's
rank-0 operands first broadcast and constrained the same way, and its operands not
known to have the result's type (constants, callbacks' results, other layouts)
constrained to it; a typed `scan` lowered as JAX lowers it
(`codegen/explicit_scan.py`); and, for values typed
unreduced, a constraint where they are made (`constrain_unreduced`). `codegen/spmd.py`
runs them on a partitioned `jit`'s jaxpr (and on one eager operation)."""
from __future__ import annotations

from astjax import core
from astjax import sharding_impls as shd
from astjax.primitives.device_put import device_put_p
from astjax.primitives.spmd import sharding_constraint_p
from astjax.primitives.structural import broadcast_in_dim_p

from . import explicit
from .explicit_scan import as_loop

__all__ = ["constrain_typed", "constrain_unreduced", "out_sharding"]


def out_sharding(eqn):
    """The layout an equation asks for its result (`lax.dot_general` / `reshape` /
    `broadcast_in_dim`'s `out_sharding`, a param `out_sharding` or `sharding`)."""
    s = eqn.params.get("out_sharding", eqn.params.get("sharding"))
    if s is None and eqn.primitive is device_put_p:   # (a layout: codegen/host_sharded.py)
        s = next((d for d in eqn.params["devices"] if isinstance(d, shd.NamedSharding)), None)
    return s if isinstance(s, shd.NamedSharding) else None


# JAX 0.10.2 lowers an operation whose results' types name a mesh of Explicit axes
# with a sharding constraint to each type (`mlir.lower_with_sharding_in_types`),
# elementwise ones first broadcasting a rank-0 operand, constrained the same way; but not these: calls and `shard_map` (their bodies' operations are
# constrained), layout-setting ones, no-ops, and the special functions JAX lowers as
# compositions (their parts are constrained).
_UNCONSTRAINED = frozenset({
    "copy", "copy_p", "stop_gradient", "sharding_constraint", "shard_map", "jit",
    "remat2", "custom_jvp_call", "custom_vjp_call", "custom_vmap_call",
    "closed_call", "remat_opt", "igamma", "igammac", "polygamma", "zeta"})
_MULTIPLE = frozenset({"while", "cond", "scan"})   # each typed result constrained
# comparisons: JAX constrains the operands it broadcasts, not the result
_COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "eq_to", "lt_to", "le_to"})


def constrain_typed(closed, env):
    """`closed` with a `sharding_constraint` to its type after each operation -- also
    inside control-flow bodies and calls -- whose result is typed over a mesh of
    Explicit axes (`env`: Var -> Typed), as JAX lowers them (`sdy.sharding_constraint`s
    the partitioner follows)."""
    if not env:
        return closed
    return core.ClosedJaxpr(_constrained(closed.jaxpr, env, {}), closed.consts)


def _laid_out(t):
    return (t is not None and not t.unreduced and not t.reduced
            and explicit.is_explicit(t.mesh))


def _constrained(j, env, memo):
    eqns = []
    for eqn in _expanded(j.eqns, env, memo.setdefault("functions", {})):
        eqn = _with_bodies(eqn, env, memo)
        name, ts = eqn.primitive.name, [env.get(v) for v in eqn.outvars]
        if name == "sharding_constraint" and "kind" not in eqn.params:
            eqn = _over_type(eqn, env)
        if (name in _UNCONSTRAINED or (len(ts) != 1 and name not in _MULTIPLE)
                or not any(map(_laid_out, ts)) or out_sharding(eqn) is not None):
            eqns.append(eqn)
            continue
        src, invars = eqn.source_info, list(eqn.invars)
        t = ts[0]
        for i, a in enumerate(invars):
            if len(ts) != 1 or not explicit.is_elementwise(eqn.primitive) or not t.aval.ndim:
                break
            if a.aval.shape == t.aval.shape and _other_type(a, t, env):
                # (JAX lays an operand of another type out as the result first)
                invars[i] = core.Var(a.aval)
                eqns.append(core.Eqn(sharding_constraint_p, [a], [invars[i]], _to_type(t),
                                     src))
            elif not a.aval.ndim and not (i == 0 and name == "select_n"):
                # (a rank-0 select_n predicate is taken as it is, in JAX's lowering)
                wide = core.Var(a.aval.update(shape=t.aval.shape))
                invars[i] = core.Var(wide.aval)
                eqns += [core.Eqn(broadcast_in_dim_p, [a], [wide], {
                    "shape": t.aval.shape, "broadcast_dimensions": (), "sharding": None}, src),
                    core.Eqn(sharding_constraint_p, [wide], [invars[i]], _to_type(t), src)]
        made = [core.Var(v.aval) if _laid_out(t) and name not in _COMPARISONS else v
                for v, t in zip(eqn.outvars, ts)]
        eqns.append(core.Eqn(eqn.primitive, invars, made, eqn.params, src))
        eqns += [core.Eqn(sharding_constraint_p, [m], [v], _to_type(t), src)
                 for m, v, t in zip(made, eqn.outvars, ts) if m is not v]
    return core.Jaxpr(j.constvars, j.invars, j.outvars, eqns)


def _over_type(eqn, env):
    """A `with_sharding_constraint` over the Auto axes of a mesh of Explicit and Auto
    axes, of a typed operand: its layout merged with the type's, the type's Explicit
    axes first in each dimension (JAX's lowering of it); else `eqn` itself."""
    s, t = eqn.params["sharding"], env.get(eqn.invars[0])
    if (t is None or not isinstance(s, shd.NamedSharding) or explicit.all_explicit(s.mesh)
            or not any(t.spec)):
        return eqn
    spec = []
    for asked, have in zip(s.spec._normalized(t.aval.ndim), t.spec):
        have = shd.PartitionSpec._axes(have)
        if have and asked is shd.PartitionSpec.UNCONSTRAINED:
            raise NotImplementedError(   # (JAX's: no message)
                "with_sharding_constraint: an UNCONSTRAINED dimension of a value typed "
                "along Explicit mesh axes")
        merged = tuple(have) + tuple(shd.PartitionSpec._axes(asked))
        spec.append(asked if not have else merged[0] if len(merged) == 1 else merged)
    return eqn.replace(params={**eqn.params, "sharding": shd.NamedSharding(
        s.mesh, shd.PartitionSpec(*spec), memory_kind=s.memory_kind)})


def _to_type(t):
    """The params of a constraint to type `t`, lowered as JAX lowers a type's layout
    (over a mesh with Auto axes too: its dimensions open, `typed_constraint_op`)."""
    return {"sharding": shd.NamedSharding(t.mesh, t.pspec), "kind": "reshard"}


def _other_type(a, t, env):
    """Whether operand `a` is not known to have the type `t` (a constant, a callback's
    result, a value of another layout)."""
    u = env.get(a) if isinstance(a, core.Var) else None
    return u is None or (u.spec, u.mesh, u.unreduced, u.reduced) != (
        t.spec, t.mesh, t.unreduced, t.reduced)


def _expanded(eqns, env, functions):
    """`eqns`, each typed `scan` replaced by the operations JAX lowers it with."""
    for eqn in eqns:
        loop = as_loop(eqn, env, functions) if eqn.primitive.name == "scan" else None
        yield from (eqn,) if loop is None else loop


def _with_bodies(eqn, env, memo):
    """`eqn` with its nested jaxprs constrained (those whose variables are typed), one
    object per body (`memo`: a function called twice is lowered once; its entry
    "functions": `explicit_scan`'s)."""
    new = {}
    for k, v in eqn.params.items():
        bodies = v if isinstance(v, tuple) else (v,)
        if not bodies or not all(isinstance(b, (core.ClosedJaxpr, core.Jaxpr)) for b in bodies):
            continue
        if not any(u in env for b in bodies for u in getattr(b, "jaxpr", b).invars):
            continue
        done = tuple(_body(b, env, memo) for b in bodies)
        new[k] = done if isinstance(v, tuple) else done[0]
    return eqn.replace(params={**eqn.params, **new}) if new else eqn


def _body(b, env, memo):
    if id(b) not in memo:
        memo[id(b)] = (b, core.ClosedJaxpr(_constrained(b.jaxpr, env, memo), b.consts)
                       if isinstance(b, core.ClosedJaxpr) else _constrained(b, env, memo))
    return memo[id(b)][1]


def constrain_unreduced(closed, env):
    """`closed` with each result typed unreduced (`env`: Var -> Typed) constrained to
    its type where it is made, as JAX lowers every typed result: left to its
    propagation, the partitioner may reduce over the wrong mesh axes."""
    if not any(t.unreduced for t in env.values()):
        return closed
    eqns = []
    for eqn in closed.jaxpr.eqns:
        typed = [env.get(v) for v in eqn.outvars]
        lays_out = (eqn.primitive is sharding_constraint_p   # (it lays itself out)
                    or eqn.params.get("out_sharding", eqn.params.get("sharding")) is not None)
        if lays_out or not any(t is not None and t.unreduced for t in typed):
            eqns.append(eqn)
            continue
        made = [core.Var(v.aval) if t is not None and t.unreduced else v
                for v, t in zip(eqn.outvars, typed)]
        eqns.append(core.Eqn(eqn.primitive, eqn.invars, made, eqn.params, eqn.source_info))
        eqns += [core.Eqn(sharding_constraint_p, [m], [v], {"sharding": t.sharding},
                          eqn.source_info)
                 for m, v, t in zip(made, eqn.outvars, typed) if m is not v]
    j = closed.jaxpr
    return core.ClosedJaxpr(core.Jaxpr(j.constvars, j.invars, j.outvars, eqns), closed.consts)
