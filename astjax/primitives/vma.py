"""Varying manual axes (JAX's `vma`): inside a `shard_map` body (`primitives/spmd.py`)
a value *varies* over the manual mesh axes along which devices may hold different
values: an argument over the axes its in_spec names, `axis_index`, `all_gather`,
`ppermute`, `all_to_all` and `lax.pcast(to='varying')` over theirs; `psum` / `pmax`
/ `pmin` make a value invariant over the axes they reduce; anything else varies
where an operand does, followed into `cond` / `scan` / `while` bodies.

Used three ways, all computed beside the IR from the jaxpr (astjax's avals carry no
vma):
- `check_vma_types` is shard_map's `check_vma`: a result whose out_spec leaves a
  mesh axis out must not vary over it, and a loop carry must keep its varying axes
  (JAX's errors, word for word);
- `staged_vma` answers `jax.typeof(x).mat.varying` for a value staged inside a body
  (the body's equations so far; `staging_body` marks the body being staged);
- `vma_env` / `vma_str` give the printed types of a body's variables
  (`f32[2,2]{V:(x,y)}`, shard_map's `pp_types`).
"""
from __future__ import annotations

import contextlib

from .. import core
from .. import sharding as shd
from ..errors import ArgumentValueError, LoopCarryError
from .collectives import (all_gather_p, all_to_all_p, axis_index_p, pmax_p, pmin_p,
                          ppermute_p, psum_p, pvary_p)

__all__ = ["unmentioned", "vma_jaxpr", "vma_env", "in_vmas", "vma_str", "staged_vma",
           "current_manual_mesh", "staging_body", "check_vma_types"]

def unmentioned(mesh, spec, auto=frozenset()):
    """The manual mesh axes `spec` does not mention (the ones a value laid out by it
    is replicated over inside the manual computation)."""
    used = {a for e in spec for a in shd.PartitionSpec._axes(e)}
    return tuple(a for a in mesh.axis_names if a not in used and a not in auto)


# ---------------------------------------------------- the rules of varying axes


def _vma_eqn(eqn, ins):
    """The mesh axes an equation's results vary over, given its operands' (JAX's
    rules: a reduction over axes makes its result invariant over them; `axis_index`,
    `all_gather`, `ppermute` and `all_to_all` make it vary over theirs; control flow
    is followed into its bodies; anything else varies where an operand does)."""
    p, params = eqn.primitive, eqn.params
    union = set().union(*ins) if ins else set()
    if p in (psum_p, pmax_p, pmin_p):
        return [union - set(params["axes"])] * len(eqn.outvars)
    if p is axis_index_p:
        return [{params["axis_name"]}]
    if p in (all_gather_p, ppermute_p, all_to_all_p):
        return [union | set(_names(params["axis_name"]))] * len(eqn.outvars)
    if p is pvary_p:
        return [union | set(params["axes"])]
    name = p.name
    if name == "cond":
        outs = [set(ins[0]) for _ in eqn.outvars]
        for br in params["branches"]:
            for o, v in zip(outs, vma_jaxpr(br.jaxpr, ins[1:])):
                o |= v
        return outs
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
    return env


def in_vmas(mesh, specs, auto, check_vma):
    """The varying axes of a shard_map body's inputs: the manual axes their specs
    name (none without check_vma: JAX then tracks nothing)."""
    if not check_vma:
        return [set() for _ in specs]
    return [{a for e in spec for a in shd.PartitionSpec._axes(e) if a not in auto}
            for spec in specs]


def vma_str(aval, vma, mesh):
    """JAX's printed type of a value inside a manual computation: `f32[2,2]{V:(x,y)}`,
    the axes in mesh order."""
    names = [a for a in mesh.axis_names if a in vma]
    if not names:
        return aval.str_short()
    return (aval.str_short() + "{V:" + (names[0] if len(names) == 1
                                         else "(" + ",".join(names) + ")") + "}")



# ---- jax.typeof(x) inside a shard_map body: the varying manual axes so far

_bodies: list = []   # (builder depth, mesh, auto, in_vmas) of the bodies being staged


def current_manual_mesh(tracer):
    """(mesh, auto) of the innermost shard_map body `tracer` is staged in, or None."""
    if not _bodies or not isinstance(tracer, core.Tracer):
        return None
    _, mesh, auto, _ = _bodies[-1]
    return mesh, auto


def staged_vma(tracer):
    """The mesh axes a value staged inside the innermost shard_map body varies over
    (JAX's `typeof(x).mat.varying`), from the body's equations so far; None when it
    depends on a nested body's inputs (a loop carry), whose axes are not known here."""
    depth, mesh, auto, in_vmas = _bodies[-1]
    builders = core._state.builders
    if in_vmas is None or len(builders) <= depth:
        return frozenset()
    top = builders[depth]
    envs = {id(top): vma_env(top.invars, top.eqns, in_vmas)}

    inside = builders[depth:]

    def vma_of(x):      # (values from outside the body are invariant)
        if not isinstance(x, core.Tracer) or not any(x.builder is b for b in inside):
            return set()
        return env_of(x.builder).get(x.var, set())

    def env_of(b):
        if id(b) not in envs:
            outer = {v: vma_of(o) for v, o in b.captures.values()}
            envs[id(b)] = vma_env(b.invars, b.eqns, [None] * len(b.invars), outer)
        return envs[id(b)]
    m = vma_of(tracer)
    return None if m is None else frozenset(m)


@contextlib.contextmanager
def staging_body(mesh, auto, specs, check_vma):
    # (without check_vma JAX tracks no varying axes: in_vmas None says so)
    _bodies.append((len(core._state.builders), mesh, auto,
                    in_vmas(mesh, specs, auto, True) if check_vma else None))
    try:
        yield
    finally:
        _bodies.pop()


def _vma_loop(eqn, body, consts, carry, xs, what):
    """The varying axes of a loop's carry, which the body must keep: the carry's type
    includes them (JAX's TypeError otherwise, with its message)."""
    out = vma_jaxpr(body, consts + carry + xs)[:len(carry)]
    diffs, fixes = [], []
    for k, (v, i, o) in enumerate(zip(body.invars[len(consts):], carry, out)):
        if set(i) == set(o):
            continue
        name = (f"the input carry {v.hint}" if getattr(v, "hint", None)
                else f"the input carry component [{k}]")
        diffs.append(f"{name} has type {_vma_str(v.aval, i)} but the corresponding output "
                     f"carry component has type {_vma_str(v.aval, o)}, so the manual axis "
                     f"types do not match")
        more = tuple(a for a in sorted(map(str, set(o) - set(i))))
        if more:
            fixes.append(f"applying `jax.lax.pcast(..., {more!r}, to='varying')`, to the "
                         f"initial carry value corresponding to {name}")
    if not diffs:
        return [set(o) for o in out]
    differences = (diffs[0][0].upper() + diffs[0][1:] + ".\n" if len(diffs) == 1 else
                   "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n")
    fix = ""
    if fixes:
        fix = (f"This might be fixed by {fixes[0]}.\n" if len(fixes) == 1 else
               "This might be fixed by:\n" + "\n".join(f"  * {d};\n" for d in fixes[:-1])
               + f"  * {fixes[-1]}.\n")
        fix += ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for "
                "more information.\n\n")
    raise LoopCarryError(
        f"{what} body function carry input and carry output must have equal types, but "
        f"they differ:\n\n{differences}\n{fix}Revise the function so that all output "
        "types match the corresponding input types.", loc=eqn.source_info)


def _vma_str(aval, vma):
    """JAX's `float32[2,4]{V:x}`."""
    base = f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"
    names = sorted(map(str, vma))
    return base + ("" if not names else "{V:" + (names[0] if len(names) == 1 else
                                                 "(" + ",".join(names) + ")") + "}")


def _names(n):
    return tuple(n) if isinstance(n, (tuple, list)) else (n,)


def check_vma_types(jaxpr, mesh, in_specs, out_specs, loc, auto=frozenset(), fun_name="f",
               spec_keys=None):
    """JAX's check: a result whose out_spec does not mention a mesh axis must be the
    same on every device along it (it must not vary over that axis); `spec_keys` are
    the out_specs' key paths (JAX's message names them)."""
    ins = [{a for e in spec for a in shd.PartitionSpec._axes(e)} for spec in in_specs]
    msgs = []
    for k, (vma, spec) in enumerate(zip(vma_jaxpr(jaxpr, ins), out_specs)):
        left_out = unmentioned(mesh, spec, auto)
        if not vma & set(left_out):
            continue
        key = spec_keys[k] if spec_keys else ""

        def ordered(xs):
            return ",".join(str(a) for a in mesh.axis_names if a in xs)
        if len(left_out) > 1:
            named = {a for e in spec for a in shd.PartitionSpec._axes(e)}
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
