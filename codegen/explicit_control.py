"""Sharding in types (`codegen/explicit.py`) through the bodies of control flow and
calls, as JAX 0.10.2's `cond` / `while` / `scan` / call primitives type theirs on a
mesh of Explicit axes: a body's arguments have its operands' types (a `scan` body's
`xs` without their scanned axis), its equations are typed by the same rules (an
error inside is JAX's, located at the body's line), and the results have the
body's result types. JAX's checks on them:

- a loop's carry keeps its type: the layout the body gives a carry component must
  be the initial one (JAX's TypeError "... carry input and carry output must have
  equal types"); `cond` branches must agree (JAX's "cond branches must have equal
  output types");
- a `scan`'s `xs` are unsharded along the scanned axis (JAX's ValueError "0th
  dimension of all xs should be replicated").

A value whose layout the rules do not know (None) is never reported as a mismatch.

While a function of some values is being staged -- a control-flow body or branch,
an inner `jit`, a transform's or `custom_jvp`'s function (`vma.staging_inputs`'
`input_hooks`) -- its arguments' types are registered for `jax.typeof` inside it
(`staging_body`).
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from astjax import core
from astjax import sharding_impls as shd
from astjax.errors import ArgumentValueError, JAXTypeError, LoopCarryError
from astjax.primitives import vma
from astjax.primitives.structural import broadcast_in_dim
from astjax.primitives.untyped_made import is_untyped_made, staging_untyped
from astjax.primitives.while_loop import eagerly_staged
from astjax.sharding_impls import PartitionSpec

from . import explicit, sharded
from .explicit import NESTED, Typed

__all__ = ["staging_body", "mapped", "check_mapped", "mapped_axis", "broadcast_mapped"]


def _run(closed, ts, env, propagate):
    """Type the body `closed` (a ClosedJaxpr or Jaxpr) from its arguments' types `ts`;
    its variables' types go into `env`; -> its results' types."""
    jaxpr = getattr(closed, "jaxpr", closed)
    inner = {v: t for v, t in zip(jaxpr.invars, ts) if t is not None}
    if inner:
        propagate(jaxpr.eqns, inner)
        env.update(inner)
    return [inner.get(o) if isinstance(o, core.Var) else None for o in jaxpr.outvars]


def _differ(a, b) -> bool:
    return (a is not None and b is not None and a.mesh == b.mesh
            and (a.spec, a.unreduced, a.reduced) != (b.spec, b.unreduced, b.reduced))


def _carry(what, body, ins, outs, skip):
    """JAX's check that a loop body gives each carry component its initial type;
    -> the carry's types (the initial ones where known)."""
    for k, (v, i, o) in enumerate(zip(body.invars[skip:], ins, outs)):
        if _differ(i, o):
            hint = getattr(v, "hint", None)
            name = f"c{hint[1:]}" if hint and hint.startswith("c[") else (
                hint or f"component [{k}]")
            raise LoopCarryError(
                f"{what} body function carry input and carry output must have equal types, "
                f"but they differ:\n\nThe input carry {name} has type {i.str_short()} but "
                f"the corresponding output carry component has type {o.str_short()}.\n\n"
                "Revise the function so that all output types match the corresponding input "
                "types.", hint="reshard the body's result to the carry's layout "
                               "(`jax.reshard(v, P(...))`), or start from that layout")
    return [i if i is not None else o for i, o in zip(ins, outs)]


def _cond(ts, params, env, propagate):
    branches = params["branches"]
    results = [_run(br, ts[1:], env, propagate) for br in branches]
    out = list(results[0])
    for k in range(len(out)):
        for i, r in enumerate(results):
            if _differ(out[k], r[k]):
                first, other = (("true_fun", "false_fun") if len(branches) == 2
                                else ("branch 0", f"branch {i}"))
                a, b = (r[k], out[k]) if len(branches) == 2 else (out[k], r[k])
                raise JAXTypeError(
                    f"{'cond' if len(branches) == 2 else 'switch'} branches must have equal "
                    f"output types but they differ.\n\nThe output of {first} has type "
                    f"{a.str_short()} but the corresponding output of {other} has type "
                    f"{b.str_short()}.\n\nRevise {first} and/or {other} so that all output "
                    "types match.", hint="reshard one branch's result to the other's layout")
            out[k] = out[k] if out[k] is not None else r[k]
    return out


def _while(ts, params, env, propagate):
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    carry = list(ts[nc + nb:])
    _run(params["cond_jaxpr"], list(ts[:nc]) + carry, env, propagate)
    body = params["body_jaxpr"]
    outs = _run(body, list(ts[nc:nc + nb]) + carry, env, propagate)
    return _carry("while_loop", getattr(body, "jaxpr", body), carry, outs, nb)


def _scan(ts, params, env, propagate):
    nc, nk = params["num_consts"], params["num_carry"]
    xs = ts[nc + nk:]
    body = params["jaxpr"]
    jaxpr = getattr(body, "jaxpr", body)
    if any(t is not None and t.spec and t.spec[0] is not None for t in xs):
        specs = [repr(t.pspec) if t is not None else repr(PartitionSpec(
            *[None] * (v.aval.ndim + 1))) for t, v in zip(xs, jaxpr.invars[nc + nk:])]
        raise ArgumentValueError("0th dimension of all xs should be replicated. Got "
                                 + ", ".join(specs), hint="reshard xs with the scanned axis "
                                 "unsharded, or scan over another axis")
    slices = [None if t is None else _sliced(t, v.aval)
              for t, v in zip(xs, jaxpr.invars[nc + nk:])]
    outs = _run(body, list(ts[:nc + nk]) + slices, env, propagate)
    carry = _carry("scan", jaxpr, list(ts[nc:nc + nk]), outs[:nk], nc)
    return carry + [None if t is None else
                    Typed(t.aval.update(shape=(params["length"],) + t.aval.shape),
                          (None,) + t.spec, t.mesh, t.unreduced, reduced=t.reduced)
                    for t in outs[nk:]]


def _sliced(t, aval):
    """The type of one `scan` step's slice of `t` (of `aval`)."""
    return Typed(aval, t.spec[1:], t.mesh, t.unreduced, reduced=t.reduced)


def _call(param):
    """The rule of a call primitive computing its body `params[param]` on its operands."""
    def rule(ts, params, env, propagate):
        return _run(params[param], ts, env, propagate)
    return rule


NESTED.update({"cond": _cond, "while": _while, "scan": _scan, "jit": _call("jaxpr"),
               "remat2": _call("jaxpr"), "custom_jvp_call": _call("call_jaxpr"),
               "custom_vjp_call": _call("call_jaxpr"), "closed_call": _call("call_jaxpr"),
               "custom_vmap_call": _call("call_jaxpr"), "remat_opt": _call("fwd_jaxpr")})

# ------------------------------------------ jax.typeof inside a function being staged


_mapping = threading.local()


@contextlib.contextmanager
def mapped(dims):
    """While `vmap` stages its function: the mapped dimension of each argument leaf
    (None: not mapped), dropped from its type for `jax.typeof` inside."""
    _mapping.dims = list(dims)
    try:
        yield
    finally:
        _mapping.dims = None


def _unmapped(t, aval, d):
    """The type of one slice (of `aval`) of `t` along its dimension `d`."""
    return Typed(aval, t.spec[:d] + t.spec[d + 1:], t.mesh, t.unreduced, reduced=t.reduced)


def check_mapped(closed, leaves, dims):
    """`vmap`'s function as staged (`closed`, one value of the batch) typed from its
    argument leaves' types without their mapped dimension `dims`, as JAX traces it:
    JAX's errors there, with the types JAX names (before any batching rule)."""
    if not shd.explicit_meshes[0] or len(closed.jaxpr.invars) != len(leaves):
        return
    types = explicit.types_of(list(leaves))
    if all(t is None for t in types) and explicit.made_mesh() is None:
        return
    explicit.propagate(closed.jaxpr.eqns, {
        v: t if d is None else _unmapped(t, v.aval, d)
        for v, t, d in zip(closed.jaxpr.invars, types, dims)
        if t is not None and (d is None or t.aval.ndim == v.aval.ndim + 1)})


@contextlib.contextmanager
def staging_body(leaves, unknown=0):
    """While a function of `leaves` (after `unknown` arguments) is staged -- a loop
    body, a branch, an inner `jit`, a transform's function (`vma.staging_inputs`) --:
    their types, for `jax.typeof` on the values staged inside, computed only when
    asked (an argument with one axis fewer than its leaf is a scanned slice)."""
    dims, _mapping.dims = getattr(_mapping, "dims", None), None   # (vmap's, this once)
    state = explicit._staging
    if (getattr(state, "types", None) is None and not getattr(state, "nested", None)
            and not any(type(a) is sharded.GlobalArray for a in leaves)):
        yield
        return

    def types(invars):
        got = [None] * unknown + explicit.types_of(list(leaves))
        along = [None] * unknown + dims if dims is not None else [0] * len(got)
        return [None if t is None or len(got) != len(invars) else
                _unmapped(t, v.aval, d) if d is not None and t.aval.ndim == v.aval.ndim + 1
                else t for t, v, d in zip(got, invars, along)]
    with explicit.nested_frame(types):
        yield


vma.input_hooks.append(staging_body)


def mapped_axis(leaves, dims, spmd_axis_name=None, loc=None):
    """JAX's `explicit_mesh_axis` of a `vmap` of argument `leaves` mapped along `dims`:
    the (mesh, spec entry) their mapped dimension is laid out with over Explicit axes,
    or None; JAX's ValueErrors where the mapped leaves disagree, an unmapped one is
    sharded along that axis, or `spmd_axis_name` names other axes."""
    types = explicit.types_of(list(leaves)) if shd.explicit_meshes[0] else []
    found, count = None, 0
    for t, d in zip(types, dims):
        if d is None:
            continue
        entry = (t.mesh, t.spec[d]) if t is not None and t.aval.ndim > d else None
        if count and (found and found[1]) != (entry and entry[1]):
            raise ArgumentValueError(
                "Mapped away dimension of inputs passed to vmap should be sharded the same. "
                f"Got inconsistent axis specs: {found and found[1]} vs {entry and entry[1]}",
                hint="reshard the mapped arguments alike along their mapped dimension",
                loc=loc)
        found, count = entry, count + 1
    if found is None or found[1] is None:
        return None
    axes = (found[1],) if isinstance(found[1], str) else tuple(found[1])
    for t, d in zip(types, dims):
        if d is None and t is not None and set(axes) & {
                a for e in t.spec for a in PartitionSpec._axes(e)}:
            raise ArgumentValueError(
                "Unmapped values passed to vmap cannot be sharded along the mesh axis you "
                f"are vmapping over. Got type: {t.str_short(True)}, in_axes: None and vmapped "
                f"mesh axis: {axes}",
                hint="reshard the unmapped argument off that mesh axis", loc=loc)
    if spmd_axis_name is not None:
        names = (spmd_axis_name,) if isinstance(spmd_axis_name, str) else tuple(
            spmd_axis_name)
        if names != axes:
            raise ArgumentValueError(
                "Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis type "
                f"is allowed. Got spmd_axis_name={names} and arrays sharded on "
                f"explicit_mesh_axis={axes}",
                hint="leave spmd_axis_name out: the arrays' layout names the axis", loc=loc)
    return found


def broadcast_mapped(x, dim, size, axis):
    """`vmap`'s broadcast of its unbatched result `x` along a new dimension `dim` of
    `size`: laid out over `axis` (`mapped_axis`: (mesh, spec entry)) when `x` is typed on
    that mesh (or staged under `set_mesh` of it, its layout unknown: replicated), as JAX's
    batching lays it out; else untyped -- also that of a constant inside `jit` (JAX's
    broadcast keeps its operand's mesh: none), which no enclosing `vmap` lays out
    either (outside `jit` JAX computes it: an array on the mesh)."""
    shape = list(core.get_aval(x).shape)
    shape.insert(dim, size)
    dims = [i for i in range(len(shape)) if i != dim]
    if not isinstance(x, core.Tracer) and shd.explicit_meshes[0] and not eagerly_staged():
        with staging_untyped():
            return broadcast_in_dim(x, tuple(shape), tuple(dims))
    t = explicit.types_of([x])[0] if axis is not None else None
    if t is None and axis is not None and isinstance(x, core.Tracer) and (
            explicit.made_mesh() == axis[0]) and not _constant_in_jax(x):
        # (under `set_mesh` JAX types every staged value over its mesh: one whose layout
        # the rules do not know is replicated there, as JAX's broadcast reads it)
        aval = core.get_aval(x)
        t = Typed(aval, [None] * aval.ndim, axis[0]) if type(aval) is core.ShapedArray \
            else None
    if t is None or t.mesh != axis[0]:
        return broadcast_in_dim(x, tuple(shape), tuple(dims))
    spec = list(t.spec)
    spec.insert(dim, axis[1])
    return broadcast_in_dim(x, tuple(shape), tuple(dims), out_sharding=shd.NamedSharding(
        t.mesh, PartitionSpec(*spec, unreduced=t.unreduced, reduced=t.reduced)))


def _constant_in_jax(x) -> bool:
    """Whether staged `x` is typed over no mesh in JAX: made untyped from no operand
    (`primitives/untyped_made.py`: e.g. a `vmap`'s broadcast of a constant), or a loop's
    carry the body passes on unchanged from a constant initial value (a literal, a host
    array): JAX's `scan` / `while_loop` return that initial value itself there."""
    eqn = x.builder.producer.get(x._var)
    name = eqn.primitive.name if eqn is not None else None
    if eqn is not None and is_untyped_made(eqn) and not any(
            isinstance(a, core.Var) for a in eqn.invars):
        return True
    if name not in ("scan", "while"):
        return False
    k, p = eqn.outvars.index(x._var), eqn.params
    if name == "scan":
        if k >= p["num_carry"]:
            return False
        skip = first = p["num_consts"]
        body = p["jaxpr"]
    else:
        skip, first, body = p["body_nconsts"], p["cond_nconsts"] + p["body_nconsts"], \
            p["body_jaxpr"]
        cond = getattr(p["cond_jaxpr"], "jaxpr", p["cond_jaxpr"])
        read = {a for e in cond.eqns for a in e.invars} | set(cond.outvars)
        if cond.invars[p["cond_nconsts"] + k] in read:
            return False        # (JAX moves out only a carry its condition does not read)
    body = getattr(body, "jaxpr", body)
    init = eqn.invars[first + k]
    return body.outvars[k] is body.invars[skip + k] and (isinstance(init, core.Literal) or any(
        v is init and isinstance(c, (np.ndarray, np.generic))
        for v, c in x.builder.consts.values()))
