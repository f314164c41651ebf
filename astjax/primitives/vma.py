"""Varying manual axes (JAX's `vma`): inside a `shard_map` body (`primitives/shard_map.py`)
a value *varies* over the manual mesh axes along which devices may hold different
values: an argument over the axes its in_spec names, `axis_index`, `all_gather`,
`ppermute`, `all_to_all` and `lax.pcast(to='varying')` over theirs; `psum` / `pmax`
/ `pmin` (and `all_gather(to='invarying')`) make a value invariant over the axes
they reduce (gather); anything else varies
where an operand does (with `jax_auto_pcast` off, its operands must vary alike: JAX's
ValueError), followed into `cond` / `scan` / `while` bodies.

Used four ways, all computed beside the IR from the jaxpr (astjax's avals carry no
vma):
- `check_vma_types` is shard_map's `check_vma`: a result whose out_spec leaves a
  mesh axis out must not vary over it, and a loop carry must keep its varying axes
  (JAX's errors, word for word); `check_branches`: `lax.cond` / `lax.switch` branches
  must vary alike (JAX's TypeError);
- `staged_vma` answers `jax.typeof(x).mat.varying` for a value staged inside a body
  (the body's equations so far; `staging_body` marks the body being staged);
- `vma_env` / `vma_str` give the printed types of a body's variables
  (`f32[2,2]{V:(x,y)}`, shard_map's `pp_types`);
- `primitives/vma_reverse.py` gives a reverse mode taken inside a body JAX's typed
  cotangents from them (`staging_inputs`: the axes of a function's arguments while it
  is staged inside a body).

While a `check_vma` body is staged, `_implicit_pvary` (`core.operand_hook`) casts the
less varying operands of an operation to vary as the others, as `pvary` equations (JAX's
implicit pvary under `jax_auto_pcast`, as its jaxprs show them).

Unreduced and reduced axes (`ur_env`, `rd_env`: partial sums, and values the same on
every device along axes whose cotangents are unreduced) follow JAX's rules for them
the same way; `typed_like` types a value made like another (`zeros_like`) as it.
"""
from __future__ import annotations

import contextlib
import threading

from .. import core
from .. import sharding_impls as shd
from ..config import config
from ..core import bind
from ..errors import ArgumentValueError, AstjaxError, JAXTypeError
from .collectives import (all_gather_p, all_to_all_p, axis_index_p, pmax_p, pmin_p,
                          ppermute_p, psum_p)
from .collectives_scatter import reduce_scatter_p, unreduced_reduce_scatter_p
from .collectives_typed import (all_gather_invariant_p, all_gather_reduced_p,
                                psum_invariant_p, pvary_p, typed_transposes)
from .vma_errors import branch_error, carry_error
from .vma_errors import type_str as _vma_str

__all__ = ["unmentioned", "vma_jaxpr", "vma_env", "vma_env_nested", "in_vmas", "vma_str", "staged_vma",
           "staged_vmas", "staging_inputs", "current_manual_mesh", "enclosing_body", "staging_body", "check_vma_types", "unreduced_rule",
           "UnreducedRuleError", "ur_env", "in_urs", "staged_unreduced", "rd_env",
           "staged_reduced", "inputs_key", "with_inputs", "typed_like", "check_branches",
           "psum_typing"]

def unmentioned(mesh, spec, auto=frozenset()):
    """The manual mesh axes `spec` does not mention (the ones a value laid out by it
    is replicated over inside the manual computation)."""
    used = {a for e in spec.partitions for a in shd.PartitionSpec._axes(e)} | spec.unreduced
    return tuple(a for a in mesh.axis_names if a not in used and a not in auto)


# ---------------------------------------------------- the rules of varying axes


#: call-like primitives -> the param holding the body they run (on their operands)
_CALLS = {"jit": "jaxpr", "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
          "closed_call": "call_jaxpr", "remat2": "jaxpr", "compute_on": "jaxpr"}


def _vma_eqn(eqn, ins):
    """The mesh axes an equation's results vary over, given its operands' (JAX's
    rules: a reduction over axes (or `all_gather_invariant`) makes its result
    invariant over them; `axis_index`, `all_gather`, `ppermute` and `all_to_all` make
    it vary over theirs; control flow and inner `jit`s are followed into their bodies;
    anything else varies where an operand does)."""
    p, params = eqn.primitive, eqn.params
    union = set().union(*ins) if ins else set()
    if p in (psum_p, psum_invariant_p, pmax_p, pmin_p):
        return [union - set(params["axes"])] * len(eqn.outvars)
    if p in (all_gather_invariant_p, all_gather_reduced_p):   # (Varying -> Invariant)
        return [union - set(params["axis_name"])]
    if p is axis_index_p:
        return [{params["axis_name"]}]
    if p in (all_gather_p, ppermute_p, all_to_all_p):
        return [union | set(_names(params["axis_name"]))] * len(eqn.outvars)
    if p in (pvary_p, unreduced_reduce_scatter_p):   # (Invariant / Unreduced -> Varying)
        return [union | set(_names(params.get("axes", params.get("axis_name"))))]
    name = p.name
    if name in ("psend", "precv"):  # (a later family) one-sided: JAX's results are invariant
        return [set()] * len(eqn.outvars)
    if name in ("pure_callback", "io_callback"):    # typed by their result_shape_dtypes
        return [set()] * len(eqn.outvars)
    if name == "cond":
        outs = [set(ins[0]) for _ in eqn.outvars]
        for br in params["branches"]:
            for o, v in zip(outs, vma_jaxpr(br.jaxpr, ins[1:])):
                o |= v
        return outs
    if name == "shard_map":     # nested: its body followed, its own manual axes dropped
        own = set(params["mesh"].axis_names) - set(params.get("auto", ()))
        outs = vma_jaxpr(params["jaxpr"].jaxpr, [
            set(v) | (in_vmas(params["mesh"], [s], params.get("auto", frozenset()), True)[0])
            for v, s in zip(ins, params["in_specs"])])
        return [set(o) - own for o in outs]
    body = params.get(_CALLS.get(name, ""))
    body = getattr(body, "jaxpr", body)
    if isinstance(body, core.Jaxpr) and len(body.invars) == len(ins) \
            and len(body.outvars) == len(eqn.outvars):   # an inner call: its body followed
        return vma_jaxpr(body, ins)
    if name == "scan":
        k, c = params["num_consts"], params["num_carry"]
        carry = _vma_loop(eqn, params["jaxpr"].jaxpr, ins[:k], ins[k:k + c], ins[k + c:],
                          "scan")
        return carry + vma_jaxpr(params["jaxpr"].jaxpr, ins[:k] + carry + ins[k + c:])[c:]
    if name == "while":
        cn, bn = params["cond_nconsts"], params["body_nconsts"]
        carry = _vma_loop(eqn, params["body_jaxpr"].jaxpr, ins[cn:cn + bn], ins[cn + bn:],
                          [], "while_loop")
        pred, = vma_jaxpr(params["cond_jaxpr"].jaxpr, ins[:cn] + carry)
        return [v | pred for v in carry]
    if len({frozenset(m) for m in ins}) > 1 and not config.read("jax_auto_pcast"):
        # jax_auto_pcast=False: no implicit pvary of the less varying operands
        raise ArgumentValueError(
            f"Primitive {name} requires varying manual axes to match, but got "
            f"{[frozenset(m) for m in ins]}. Please open an issue at "
            "https://github.com/jax-ml/jax/issues and as a temporary workaround pass the "
            "check_vma=False argument to `jax.shard_map`", loc=eqn.source_info,
            hint="make the operands vary alike with lax.pcast(x, axes, to='varying')")
    return [union] * len(eqn.outvars)


def vma_jaxpr(jaxpr, in_vmas):
    """The varying axes of `jaxpr`'s outputs, given its inputs'."""
    env = vma_env(jaxpr.invars, jaxpr.eqns, in_vmas)
    return [env.get(v, set()) if isinstance(v, core.Var) else set() for v in jaxpr.outvars]


def vma_env(invars, eqns, in_vmas, env=None):
    """Var -> the mesh axes it varies over, for `eqns` given `invars`' (and `env`'s).
    An unknown input (None) makes what depends on it unknown."""
    env = dict(env or {})
    env.update((v, None if m is None else set(m)) for v, m in zip(invars, in_vmas))
    for eqn in eqns:
        ins = [env.get(a, set()) if isinstance(a, core.Var) else set() for a in eqn.invars]
        outs = ([None] * len(eqn.outvars) if any(m is None for m in ins)
                else _vma_eqn(eqn, ins))
        env.update(zip(eqn.outvars, outs))
    seen = getattr(_local, "seen", None)
    if seen is not None:        # (`vma_env_nested`: the bodies' variables too)
        seen.update(env)
    return env


def vma_env_nested(invars, eqns, in_vmas):
    """`vma_env` with the variables of the bodies inside the equations too (`cond` /
    `scan` / `while` / call bodies followed: a loop body's with its carry's final axes),
    for printing their types."""
    _local.seen = seen = {}
    try:
        vma_env(invars, eqns, in_vmas)
    finally:
        _local.seen = None
    return seen


def in_vmas(mesh, specs, auto, check_vma):
    """The varying axes of a shard_map body's inputs: the manual axes their specs
    name (none without check_vma: JAX then tracks nothing)."""
    if not check_vma:
        return [set() for _ in specs]
    return [{a for e in spec.partitions for a in shd.PartitionSpec._axes(e) if a not in auto}
            for spec in specs]


def in_urs(specs, check_vma):
    """The unreduced axes of a shard_map body's inputs (their specs' `unreduced`)."""
    return [spec.unreduced if check_vma else frozenset() for spec in specs]


def vma_str(aval, vma, mesh, unreduced=frozenset(), reduced=frozenset()):
    """JAX's printed type of a value inside a manual computation: `f32[2,2]{V:(x,y)}`,
    `f32[2,4]{V:x, U:y}`, `f32[4,2]{V:y, R:x}`, the axes in mesh order."""
    parts = []
    for tag, axes in (("V", vma), ("U", unreduced), ("R", reduced)):
        names = [a for a in mesh.axis_names if a in axes]
        if names:
            parts.append(f"{tag}:" + (names[0] if len(names) == 1
                                      else "(" + ",".join(names) + ")"))
    return aval.str_short(True) + ("{" + ", ".join(parts) + "}" if parts else "")

# ---- unreduced axes: which mesh axes a value holds partial sums over


#: operations that keep their operand's unreduced axes (a linear map of each shard)
_KEEPS_UNREDUCED = frozenset({"convert_element_type", "reshape", "transpose", "squeeze",
                              "reduce_precision", "slice", "pad", "dynamic_slice",
                              "reduce_sum", "copy", "copy_p"})


class UnreducedRuleError(shd.ShardingTypeError, NotImplementedError):
    """JAX's NotImplementedError for an operation on an unreduced value that has no
    rule for unreduced axes (e.g. `sin`): reduce it first (`jax.reshard`, `psum`)."""


def _ur_err(msg, loc=None):
    raise shd.ShardingTypeError(msg, loc=loc)


def unreduced_rule(name, us, type_strs, loc=None, rs=None):
    """JAX's unreduced rule of primitive `name` whose operands are unreduced over
    `us` (`type_strs()`: the operands' types for a message): the result's unreduced
    axes, or JAX's error. `add` keeps operands unreduced alike, `mul` (bilinear)
    refuses one unless the other is reduced over those axes (`rs`: the operands'
    reduced axes), linear maps of each shard keep it, anything else is JAX's
    NotImplementedError."""
    if not any(us):
        return frozenset()
    if name in ("add", "add_any"):
        if us[0] and us[1]:
            if us[0] != us[1]:
                _ur_err("lhs and rhs to `add` must be unreduced along the same mesh axes. "
                        f"Got lhs={us[0]}, rhs={us[1]}", loc)
            return us[0]
        one, other = ("lhs", "rhs") if us[0] else ("rhs", "lhs")
        _ur_err(f"{one} is unreduced while {other} is not. `add` operation does not allow "
                "this because there will be implicit communication. Please reduce "
                f"{one} via `reshard` before calling `add`.", loc)
    if name == "mul":
        if us[0] and us[1]:
            _ur_err("lhs and rhs to `mul` cannot be unreduced since mul is bilinear. Got "
                    f"lhs={us[0]}, rhs={us[1]}", loc)
        rs = rs or [frozenset(), frozenset()]
        if us[0] and us[0] == rs[1] or us[1] and us[1] == rs[0]:
            return us[0] or us[1]
        lhs, rhs = type_strs()[:2]
        side = ("RHS", "LHS") if us[0] else ("LHS", "RHS")
        _ur_err(f"{side[0]} should be reduced along the same axes {side[1]} is unreduced "
                f"on. Got lhs={lhs} and rhs={rhs}", loc)
    if name in ("concatenate", "select_n"):
        if len({u for u in us[1 if name == "select_n" else 0:] if u}) > 1:
            _ur_err("All operands should be unreduced along the same mesh axes. Got "
                    f"unreduced specs: {set(u for u in us if u)}", loc)
        return next(u for u in us if u)
    if name in _KEEPS_UNREDUCED:
        return us[0]
    raise UnreducedRuleError(f"unreduced rule for {name} is not implemented. Please file "
                             "an issue at https://github.com/jax-ml/jax/issues", loc=loc)


def ur_env(invars, eqns, in_urs_, mesh, vmas=None, env=None):
    """Var -> the mesh axes a value inside a shard_map body is unreduced over, with
    JAX's errors located at the equation: `psum` over them reduces them, the other
    collectives refuse them, other operations follow `unreduced_rule`."""
    env = dict(env or {})
    env.update((v, frozenset(u)) for v, u in zip(invars, in_urs_))
    for eqn in eqns:
        ins = [env.get(a, frozenset()) if isinstance(a, core.Var) else frozenset()
               for a in eqn.invars]
        out = frozenset()
        if any(ins) and eqn.primitive.name == "jit":   # an inner jit: its body followed
            body = eqn.params["jaxpr"].jaxpr
            sub = ur_env(body.invars, body.eqns, ins, mesh, vmas)
            env.update((v, sub.get(o, frozenset()) if isinstance(o, core.Var) else frozenset())
                       for v, o in zip(eqn.outvars, body.outvars))
            continue
        if any(ins):
            p, loc = eqn.primitive, eqn.source_info
            if p in (psum_p, psum_invariant_p, reduce_scatter_p, unreduced_reduce_scatter_p):
                out = ins[0] - set(_names(eqn.params.get("axes", eqn.params.get("axis_name"))))
            elif p in (pmax_p, pmin_p, all_gather_p, ppermute_p, all_to_all_p, pvary_p,
                       all_gather_invariant_p, all_gather_reduced_p):
                axes = set(_names(eqn.params.get("axes", eqn.params.get("axis_name"))))
                v = eqn.invars[0]
                vma = (vmas or {}).get(v, set()) if isinstance(v, core.Var) else set()
                raise ArgumentValueError(  # (JAX's ValueError, from the pvary it inserts)
                    f"pvary cannot accept args which are unreduced. Got "
                    f"{vma_str(v.aval, vma, mesh, ins[0])} and axes={axes}", loc=loc)
            else:
                out = unreduced_rule(p.name, ins, lambda: [str(a.aval) for a in eqn.invars],
                                     loc)
        env.update((v, out) for v in eqn.outvars)
    return env



# ---- jax.typeof(x) inside a shard_map body: the varying manual axes so far

_local = threading.local()


def _bodies() -> list:
    """(builder depth, mesh, auto, in_vmas, in_urs, in_rds) of the bodies this thread
    stages."""
    stack = getattr(_local, "bodies", None)
    if stack is None:
        stack = _local.bodies = []
    return stack


def current_manual_mesh(tracer):
    """(mesh, auto) of the innermost shard_map body `tracer` is staged in, or None."""
    if not _bodies() or not isinstance(tracer, core.Tracer):
        return None
    _, mesh, auto = _bodies()[-1][:3]
    return mesh, auto


def enclosing_body():
    """(mesh, auto, manual axes) of the innermost shard_map body being staged (the
    manual axes: those of every enclosing body), or None outside any."""
    if not _bodies():
        return None
    _, mesh, auto = _bodies()[-1][:3]
    return mesh, auto, frozenset(a for b in _bodies() for a in b[1].axis_names
                                 if a not in b[2])


def staged_vma(tracer):
    """The mesh axes a value staged inside the innermost shard_map body varies over
    (JAX's `typeof(x).mat.varying`), from the body's equations so far; None when it
    depends on the arguments of a function staged inside it whose axes are not known
    (one staged without `staging_inputs`, e.g. a custom_jvp's)."""
    return staged_vmas([tracer])[0]


def staged_vmas(tracers):
    """`staged_vma` of each of `tracers` (the body's equations followed once; the
    body's own from where the last call left them: its equations are only appended)."""
    return _staged(tracers, _top_vmas, _top_vmas, 3)


def _top_vmas(b, ins, outer):
    """The body's (or a builder's inside it) env, from where the last question left it
    (its equations are only appended; `outer`: its captured values' axes, fixed once
    captured)."""
    cache = _bodies()[-1][6]
    got = cache.get(id(b))
    n = len(b.eqns)
    if got is None or got[0] is not b or got[1] > n or (
            got[4] is not ins and got[4] != ins) or (
            got[1] and b.eqns[got[1] - 1] is not got[2]):
        got = (b, 0, None, vma_env(b.invars, [], ins, outer), ins)
    env = got[3]
    if outer:
        env.update((v, None if m is None else set(m)) for v, m in outer.items())
    for eqn in b.eqns[got[1]:]:     # (vma_env's loop, on the cached env in place)
        xs = [env.get(a, set()) if isinstance(a, core.Var) else set() for a in eqn.invars]
        env.update(zip(eqn.outvars, [None] * len(eqn.outvars) if any(m is None for m in xs)
                       else _vma_eqn(eqn, xs)))
    cache[id(b)] = (b, n, b.eqns[n - 1] if n else None, env, got[4])
    return env


def staged_unreduced(tracer):
    """The mesh axes a value staged inside the innermost shard_map body is unreduced
    over (JAX's `typeof(x).mat.unreduced`); empty for a nested body's values."""
    mesh, vmas = _bodies()[-1][1], _bodies()[-1][3]
    return _staged([tracer], lambda b, ins, outer: ur_env(
        b.invars, b.eqns, ins, mesh, vma_env(b.invars, b.eqns, vmas)),
        lambda b, ins, outer: {}, 4)[0] or frozenset()


def staged_reduced(tracer):
    """The mesh axes a value staged inside the innermost shard_map body is reduced over
    (JAX's `typeof(x).mat.reduced`, `rd_env`); empty for a nested body's values."""
    mesh, vmas = _bodies()[-1][1], _bodies()[-1][3]
    return _staged([tracer], lambda b, ins, outer: rd_env(b.invars, b.eqns, ins, vmas, mesh),
                   lambda b, ins, outer: {}, 5)[0] or frozenset()


def _staged(tracers, top_env, nested_env, field):
    depth, ins = _bodies()[-1][0], _bodies()[-1][field]
    builders = core._state.builders
    if ins is None or len(builders) <= depth:
        return [frozenset()] * len(tracers)
    top = builders[depth]
    envs = {id(top): top_env(top, ins, None)}
    inside = builders[depth:]

    def of(x):      # (values from outside the body are invariant)
        if not isinstance(x, core.Tracer) or not any(x.builder is b for b in inside):
            return set()
        return env_of(x.builder).get(x._var, set())

    def env_of(b):
        if id(b) not in envs:
            k = next(k for k, c in enumerate(builders) if c is b)
            args = next((v for d, v in reversed(_inputs()) if d == k and len(v) == len(b.invars)),
                        [None] * len(b.invars))   # (unknown: a loop carry)
            envs[id(b)] = nested_env(b, args, {v: of(o) for v, o in b.captures.values()})
        return envs[id(b)]
    return [None if m is None else frozenset(m) for m in map(of, tracers)]


def _inputs() -> list:
    """(builder index, arguments' varying axes) of the functions `staging_inputs` stages."""
    stack = getattr(_local, "inputs", None)
    if stack is None:
        stack = _local.inputs = []
    return stack


@contextlib.contextmanager
def staging_inputs(leaves, unknown=0):
    """While a function of `leaves` (after `unknown` arguments whose axes are not known)
    is staged inside a `check_vma` body: its arguments vary as the leaves do (so that
    `reverse_typed` types a gradient taken inside another, or inside a loop body).
    Also enters each of `input_hooks`."""
    with contextlib.ExitStack() as hooks:
        for hook in input_hooks:
            hooks.enter_context(hook(leaves, unknown))
        yield from _staging_inputs(leaves, unknown)


#: Context managers `hook(leaves, unknown)` entered while a function of `leaves` is
#: staged (`staging_inputs`): `codegen/explicit_control.py` registers the leaves'
#: layouts over Explicit mesh axes, for `jax.typeof` inside (a loop body, a branch, an
#: inner `jit`, a transform's function)
input_hooks: list = []


def _staging_inputs(leaves, unknown):
    if not _bodies() or _bodies()[-1][3] is None:
        yield
        return
    _inputs().append((len(core._state.builders), [None] * unknown + staged_vmas(leaves)))
    try:
        yield
    finally:
        _inputs().pop()


@contextlib.contextmanager
def staging_body(mesh, auto, specs, check_vma, leaves=()):
    """While a shard_map body over `specs` (of its arguments `leaves`) is staged; yields
    a dict that holds, after, the body's varying axes as staging followed them ("env":
    (its arguments', every variable's)), for `check_vma_types`."""
    # (without check_vma JAX tracks no varying axes: in_vmas None says so; nested in
    # another body, an argument still varies over the outer axes it varies over there)
    outer = [v or set() for v in staged_vmas(leaves)] if _bodies() and leaves else []
    ins = [set(v) | set(o) for v, o in zip(in_vmas(mesh, specs, auto, True),
                                           outer or [set()] * len(specs))]
    _bodies().append((len(core._state.builders), mesh, auto, ins if check_vma else None,
                    in_urs(specs, True) if check_vma else None,
                    [s.reduced for s in specs] if check_vma else None, {}))
    hook, core.operand_hook[0] = core.operand_hook[0], _implicit_pvary
    staged = {}
    try:
        with typed_transposes(False):   # (a body transposed per device: spmd's shard_map)
            yield staged
        top = _bodies()[-1]
        for b, *_, got in list(top[6].values()):    # (the body's own env, if followed:
            if got is top[3]:                        # brought up to its last equation;
                try:                                 # its errors: check_vma_types's)
                    staged["env"] = (got, _top_vmas(b, got, None))
                except AstjaxError:
                    pass
    finally:
        core.operand_hook[0] = hook
        _bodies().pop()


#: primitives whose operands are independent of each other (no implicit pvary: JAX
#: binds them as they are), besides the higher-order ones and references'
_OWN_OPERANDS = frozenset({
    "psum", "psum_invariant", "pmax", "pmin", "pvary", "all_gather", "all_gather_invariant",
    "all_gather_reduced", "all_to_all", "ppermute", "reduce_scatter", "unreduced_reduce_scatter",
    "pbroadcast", "psend", "precv", "ragged_all_to_all", "axis_index", "optimization_barrier", "dce_sink", "device_put",
    "debug_callback", "debug_print", "io_callback", "pure_callback", "call_exported",
    "composite", "custom_lin", "after_all"})


def _implicit_pvary(prim, args):
    """JAX's implicit `pvary` (`jax_auto_pcast`): inside a `check_vma` body, the
    operands of an operation that vary over fewer manual axes than the others (Python
    scalars and constants too) are cast to vary over them all, each by a `pvary`
    equation before the operation, as JAX's jaxprs show them. Operands whose axes are
    not known (`staged_vma`: None) leave the operation as it is."""
    if prim.higher_order or prim.takes_refs or prim.name in _OWN_OPERANDS:
        return args
    bodies, builders = _bodies(), core._state.builders
    if not bodies or bodies[-1][3] is None or len(builders) <= bodies[-1][0] \
            or not config.read("jax_auto_pcast"):
        return args
    b = builders[-1]
    tracers = [a for a in args if isinstance(a, core.Tracer)]
    if not tracers:
        return args
    if b is builders[bodies[-1][0]] and all(t.builder is b for t in tracers):
        env = _top_vmas(b, bodies[-1][3], None)      # (the body's own values: at once)
        vmas = [env.get(a._var, ()) if isinstance(a, core.Tracer) else () for a in args]
        vmas = [None if v is None else frozenset(v) for v in vmas]
    else:
        vmas = staged_vmas(args)
    if any(v is None for v in vmas):
        return args
    union = frozenset().union(*vmas)
    if all(v == union for v in vmas):
        return args
    mesh = bodies[-1][1]
    out = []
    for a, v in zip(args, vmas):
        aval = core.get_aval(a) if v != union else None
        if aval is not None and type(aval) is core.ShapedArray:
            a = bind(pvary_p, a, axes=tuple(n for n in mesh.axis_names if n in union - v))
        out.append(a)
    return out


def psum_typing(x, axes):
    """Inside a `check_vma` body, for a psum of `x` over its manual `axes` (and `x`
    not unreduced): the axes `x` varies over (None: not known) -- it binds JAX's
    `psum_invariant` then; else None (`psum_p`)."""
    body = enclosing_body()
    if body is None or _bodies()[-1][3] is None or not set(axes) <= body[2] \
            or len(core._state.builders) <= _bodies()[-1][0] or staged_unreduced(x):
        return None
    vma = staged_vma(x)
    return frozenset() if vma is None else vma


def typed_like(out, x):
    """`out` (a new array made like `x`: `full_like`, `zeros_like`, `ones_like`) typed
    as `x` inside a `check_vma` body: varying over `x`'s manual axes (JAX's implicit
    `pvary`, under `jax_auto_pcast`), so that e.g. a loop carry started from it keeps
    its type."""
    if not isinstance(x, core.Tracer) or not _bodies() or _bodies()[-1][3] is None \
            or not config.read("jax_auto_pcast"):
        return out
    vma = staged_vma(x)
    mesh = _bodies()[-1][1]
    axes = tuple(a for a in mesh.axis_names if vma and a in vma)
    return bind(pvary_p, out, axes=axes) if axes else out


def check_branches(staged, leaves, funs, names, out_tree):
    """JAX's TypeError for a `lax.cond` / `lax.switch` staged inside a `check_vma` body
    whose branches' results vary over different manual axes (`staged`: per branch its
    (jaxpr, consts); `leaves`: the operands; `funs` / `names`: the user's branch
    functions and JAX's names for them, the first compared with each other one). JAX
    inserts no `pvary` there. A Python `if` on a staged value (a `cond` JAX has no
    counterpart for) is not checked: its result varies where a branch's does."""
    if not _bodies() or _bodies()[-1][3] is None or len(staged) < 2:
        return
    outer = staged_vmas(list(leaves))
    if any(v is None for v in outer):
        return
    outs = []
    for jaxpr, consts in staged:
        ins = staged_vmas(list(consts))
        if any(v is None for v in ins):
            return
        env = vma_env(jaxpr.constvars + jaxpr.invars, jaxpr.eqns, ins + outer)
        if any(env.get(v, set()) is None for v in jaxpr.outvars if isinstance(v, core.Var)):
            return
        outs.append([frozenset(env.get(v, set())) if isinstance(v, core.Var) else frozenset()
                     for v in jaxpr.outvars])
    for k in range(1, len(staged)):
        if outs[k] != outs[0]:
            branch_error(staged[0][0], outs[0], outs[k], funs[0], funs[k], names[0],
                         names[k], out_tree, _bodies()[-1][1])


def inputs_key(leaves):
    """() outside a `check_vma` body, else the body's mesh and the varying axes of
    `leaves`: part of the cache key of a function staged for them (an inner `jit`),
    whose staging depends on them (`reverse_typed`)."""
    if not _bodies() or _bodies()[-1][3] is None:
        return ()
    return ((_bodies()[-1][1], _bodies()[-1][2],
             tuple(None if v is None else tuple(sorted(map(str, v)))
                   for v in staged_vmas(leaves))),)


def with_inputs(leaves, stage):
    """`stage` (a function staging a function of `leaves`) run in `staging_inputs`."""
    def staged(*args, **kwargs):
        with staging_inputs(leaves):
            return stage(*args, **kwargs)
    return staged


def _carry_error(eqn, invars, ins, outs, what):
    """`carry_error` on the innermost body's mesh."""
    carry_error(eqn, invars, ins, outs, what, _bodies()[-1][1] if _bodies() else None)


def _vma_loop(eqn, body, consts, carry, xs, what):
    """The varying axes of a loop's carry, which the body must keep: the carry's type
    includes them (JAX's TypeError otherwise, with its message; while `rd_env` follows
    a body's types first, the carry's axes on the way in and out)."""
    out = vma_jaxpr(body, consts + carry + xs)[:len(carry)]
    if getattr(_local, "lenient", False):
        return [set(i) | set(o) for i, o in zip(carry, out)]
    _carry_error(eqn, body.invars[len(consts):], [(i, ()) for i in carry],
                 [(o, ()) for o in out], what)
    return [set(o) for o in out]


def _names(n):
    return tuple(n) if isinstance(n, (tuple, list)) else (n,)


def check_vma_types(jaxpr, mesh, in_specs, out_specs, loc, auto=frozenset(), fun_name="f",
               spec_keys=None, staged=None):
    """JAX's check: a result whose out_spec does not mention a mesh axis must be the
    same on every device along it (it must not vary over that axis); `spec_keys` are
    the out_specs' key paths (JAX's message names them); `staged`: `staging_body`'s
    env of the body, used when it covers every equation from the same arguments' axes
    (the body is not followed again)."""
    ins = in_vmas(mesh, in_specs, frozenset(), True)
    # (reduced and unreduced axes come from the specs and all_gather(to='reduced') only:
    # without them, no pass over the body for them)
    rds = rd_env(jaxpr.invars, jaxpr.eqns, [s.reduced for s in in_specs], ins, mesh) if any(
        s.reduced for s in in_specs) or _uses_reduced(jaxpr) else {}
    env = staged and staged.get("env")
    if not env or ins[len(ins) - len(env[0]):] != env[0] or any(ins[:len(ins) - len(env[0])]) \
            or not all(v in env[1] for e in jaxpr.eqns for v in e.outvars):
        env = (None, vma_env(jaxpr.invars, jaxpr.eqns, ins))
    env = env[1]
    urs = ur_env(jaxpr.invars, jaxpr.eqns, in_urs(in_specs, True), mesh, env) if any(
        s.unreduced for s in in_specs) else {}
    msgs = []
    for k, (out, spec) in enumerate(zip(jaxpr.outvars, out_specs)):
        var = isinstance(out, core.Var)
        vma = env.get(out, set()) if var else set()
        vur = set(vma) | (urs.get(out, frozenset()) | rds.get(out, frozenset()) if var
                          else set())
        left_out = [a for a in unmentioned(mesh, spec, auto) if a not in spec.reduced]
        if not vur & set(left_out):
            continue
        key = spec_keys[k] if spec_keys else ""

        def ordered(xs):
            return ",".join(str(a) for a in mesh.axis_names if a in xs)
        if len(left_out) > 1:
            named = {a for e in spec.partitions for a in shd.PartitionSpec._axes(e)}
            msgs.append(f"* out_specs{key} is {spec!r} which implies that the corresponding "
                        f"output value is only varying across mesh axes {{{ordered(named)}}} "
                        f"and not {{{ordered(set(left_out) & vma)}}}, but it was inferred "
                        f"to be possibly varying over {{{ordered(vma)}}}")
        else:
            msgs.append(f"* out_specs{key} is {spec!r} which implies that the corresponding "
                        f"output value is replicated across mesh axis '{left_out[0]}', "
                        f"but could not infer replication over any axes")
    if msgs:
        if len(msgs) == 1:
            msgs = [msgs[0][2:]]
        raise ArgumentValueError(
            f"shard_map applied to the function '{fun_name}' was given out_specs which "
            f"require replication which can't be statically inferred given the mesh:\n\n"
            f"The mesh given has shape {tuple(mesh.shape.values())} with corresponding axis "
            f"names {mesh.axis_names}.\n\n" + "\n\n".join(msgs) + "\n\nCheck if these "
            "output values are meant to be replicated over those mesh axes. If not, consider "
            "revising the corresponding out_specs entries. If so, consider disabling the "
            "check by passing the check_vma=False argument to `jax.shard_map`.",
            hint="mention those axes in the out_spec, reduce over them (lax.psum / "
                 "pmean), or pass check_vma=False", loc=loc)
    for out, spec in zip(jaxpr.outvars, out_specs):
        rd = rds.get(out, frozenset()) if isinstance(out, core.Var) else frozenset()
        if rd != spec.reduced:
            vma = env.get(out, set()) if isinstance(out, core.Var) else set()
            raise ArgumentValueError(
                "out_specs passed to shard_map should be equal to the reduced present on the "
                f"out_aval. Got out_specs={spec!r} and out_aval="
                f"{vma_str(out.aval, vma, mesh, reduced=rd)}", loc=loc,
                hint="reduced={...} in an out_spec needs a value typed reduced over those "
                     "axes (lax.all_gather(..., to='reduced')), and such a value needs it")


def _uses_reduced(jaxpr):
    """Whether `jaxpr` (or a body inside it) gathers to a reduced value."""
    return any(e.primitive is all_gather_reduced_p for e in core.all_eqns(jaxpr))


#: JAX's n-ary elementwise operations (their reduced rule: `_nary_reduced`)
_NARY = frozenset({"nextafter", "atan2", "and", "or", "xor", "add", "sub", "mul", "mulhi",
                   "div", "rem", "max", "min", "shift_left", "shift_right_arithmetic",
                   "shift_right_logical", "eq", "ne", "ge", "gt", "le", "lt", "polygamma",
                   "igamma", "igamma_grad_a", "igammac", "zeta"})


def rd_env(invars, eqns, in_rds, vmas_in=None, mesh=None):
    """Var -> the mesh axes a value inside a shard_map body is reduced over (JAX's
    Reduced: the same on every device along them, its cotangent unreduced):
    `all_gather(..., to='reduced')` makes its result reduced over its axes, an n-ary
    elementwise operation needs every operand reduced alike (`_nary_reduced`, with the
    operands' varying axes `vmas_in` known), loop and branch bodies are followed (a
    carry keeps its type, branches agree: JAX's TypeErrors), any other operation keeps
    its operands'."""
    vmas = None
    if vmas_in is not None:
        _local.lenient = True       # (a body's types first: its carry checked after it)
        try:
            vmas = vma_env(invars, eqns, vmas_in)
        finally:
            _local.lenient = False
    env = {v: frozenset(r) for v, r in zip(invars, in_rds)}
    for eqn in eqns:
        ins = [env.get(a, frozenset()) if isinstance(a, core.Var) else frozenset()
               for a in eqn.invars]
        env.update(zip(eqn.outvars, _rd_eqn(eqn, ins, vmas, mesh)))
    return env


def _rd_eqn(eqn, ins, vmas, mesh):
    p, params, name = eqn.primitive, eqn.params, eqn.primitive.name
    union = frozenset().union(*ins)

    def vma(a):
        return (vmas.get(a) or set()) if vmas is not None and isinstance(a, core.Var) else set()

    def body(jaxpr, rds, operands):     # the reduced axes of a body's results
        env = rd_env(jaxpr.invars, jaxpr.eqns, rds,
                     None if vmas is None else [vma(a) for a in operands], mesh)
        return [env.get(v, frozenset()) if isinstance(v, core.Var) else frozenset()
                for v in jaxpr.outvars]

    def carry(out, lo, hi, jaxpr, first, what):
        if vmas is not None and out[:hi - lo] != ins[lo:hi]:
            outs = vma_jaxpr(jaxpr, [vma(a) for a in eqn.invars[first:]])
            _carry_error(eqn, jaxpr.invars[lo - first:hi - first],
                         [(vma(a), r) for a, r in zip(eqn.invars[lo:hi], ins[lo:hi])],
                         list(zip(outs, out)), what)
        return out[:hi - lo]
    if name == "cond":
        outs = [body(br.jaxpr, ins[1:], eqn.invars[1:]) for br in params["branches"]]
        if vmas is not None and any(o != outs[0] for o in outs[1:]):
            _branch_error(eqn, outs, [vma(a) for a in eqn.invars[1:]], mesh)
        return [frozenset().union(*o) for o in zip(*outs)]
    if name == "scan":
        k, c = params["num_consts"], params["num_carry"]
        out = body(params["jaxpr"].jaxpr, ins, eqn.invars)
        return carry(out, k, k + c, params["jaxpr"].jaxpr, 0, "scan") + out[c:]
    if name == "while":
        cn, bn = params["cond_nconsts"], params["body_nconsts"]
        body(params["cond_jaxpr"].jaxpr, ins[:cn] + ins[cn + bn:],
             eqn.invars[:cn] + eqn.invars[cn + bn:])
        out = body(params["body_jaxpr"].jaxpr, ins[cn:], eqn.invars[cn:])
        return carry(out, cn + bn, len(ins), params["body_jaxpr"].jaxpr, cn, "while_loop")
    call = params.get(_CALLS.get(name, ""))
    call = getattr(call, "jaxpr", call)
    if isinstance(call, core.Jaxpr) and len(call.invars) == len(ins):
        return body(call, ins, eqn.invars)
    if p is all_gather_reduced_p:
        return [union | frozenset(params["axis_name"])]
    if name in _NARY and union and vmas is not None:
        return [_nary_reduced(eqn, ins, [vma(a) for a in eqn.invars], mesh)]
    return [union] * len(eqn.outvars)


def _branch_error(eqn, rds, vmas, mesh):
    """JAX's TypeError for branches whose results are reduced over different axes."""
    brs = eqn.params["branches"]
    names = (["false_fun", "true_fun"] if len(brs) == 2
             else [f"branch {k}" for k in range(len(brs))])
    types = [[_vma_str(v.aval, m, mesh, r) for v, m, r in zip(
        br.jaxpr.outvars, vma_jaxpr(br.jaxpr, vmas), rd)] for br, rd in zip(brs, rds)]
    k = next(k for k in range(1, len(brs)) if rds[k] != rds[0])
    j = next(j for j, (a, b) in enumerate(zip(rds[0], rds[k])) if a != b)
    first, other = (k, 0) if len(brs) == 2 else (0, k)
    raise JAXTypeError(
        f"{'cond' if len(brs) == 2 else 'switch'} branches must have equal output types but "
        f"they differ.\n\nThe output of {names[first]} has type {types[first][j]} but the "
        f"corresponding output of {names[other]} has type {types[other][j]}, so the manual "
        "axis types do not match.", loc=eqn.source_info,
        hint="make every branch's result reduced alike (lax.all_gather(..., to='reduced'))")


def _nary_reduced(eqn, ins, vmas, mesh):
    """JAX's reduced rule of an n-ary elementwise operation: its operands made to vary
    alike first (the implicit pvary: an operand reduced over an axis another varies over
    varies there), then each reduced over the same axes, which the result is."""
    union = set().union(*vmas)
    rs = [frozenset(r - union) for r in ins]
    specs = {r for r in rs if r}
    if len(specs) > 1:
        raise shd.ShardingTypeError("All inputs should be reduced across the same mesh axes. "
                                    f"Got specs: {specs}", loc=eqn.source_info)
    if not specs:
        return frozenset()
    red, = specs
    for a, r in zip(eqn.invars, rs):
        if red - r:
            raise shd.ShardingTypeError(
                "Inputs cannot be replicated on the same axes that another input is reduced "
                f"on. Got input type: {_vma_str(a.aval, union, mesh, r)} and reduced spec: "
                f"{red}", loc=eqn.source_info,
                hint="make every operand reduced alike (lax.all_gather(..., to='reduced') "
                     "of it), or reduce the reduced one first")
    return red
