"""The `shard_map` primitive, with every rule, and its wrapper `astjax.shard_map`.

`shard_map(f, mesh, in_specs, out_specs)`: `f` runs once per device on its shard
(per-shard avals), with the mesh axes in scope as named axes for the collectives.
Staged as one equation whose `jaxpr` is the per-shard body; lowered as Shardy's
`sdy.manual_computation` (its region is the body), or, under GSPMD, as GSPMD's
manual computation: each operand is constrained to its in_spec's layout and cut to
the per-device shape (`SPMDFullToShardShape`, manual sharding), the body is lowered
in place with its collectives over partitions (`collectives`), and each result is
made global again (`SPMDShardToFullShape`) with its out_spec's layout. Its
derivative is a shard_map (JVP, partial evaluation, transpose) and so is its `vmap`.

`SPMD_PRIMITIVES` lists the partitioning primitives (this one and
`primitives/spmd.py`'s `sharding_constraint`): a jaxpr containing one is compiled as
a partitioned program, and an eager bind of one runs as such.
"""
from __future__ import annotations

import contextlib
import math
import threading

import numpy as np

from .. import core, tree_util
from ..config import config
from .. import sharding_impls as shd
from ..core import ShapedArray, bind
from ..errors import (ArgumentTypeError, ArgumentValueError, AstjaxError,
                      NotImplementedInAstjaxError, caller_location)
from . import effects
from .base import lax_ops, mark_unsupported, moveaxis, register
from .collectives import all_gather_p, all_to_all_p, axis_index_p, ppermute_p, psum_p
from .elementwise import div_p
from .spmd import is_layout, layouts_per_leaf, sharding_constraint_p, shardy_lowering
from .vma import (check_vma_types, enclosing_body, in_urs, in_vmas, staging_body,
                  unmentioned, ur_env, vma_env_nested, vma_str)

__all__ = ["shard_map_p", "shard_map", "SPMD_PRIMITIVES", "axes_in_scope",
           "platform_index_operand"]

shard_map_p = core.new_primitive("shard_map", multiple_results=True, higher_order=True)


def _factor(mesh, entry):
    return math.prod(mesh.shape[a] for a in shd.PartitionSpec._axes(entry))


def _local_aval(aval, spec, mesh, what="shard_map"):
    shape = list(aval.shape)
    for d, entry in enumerate(spec._normalized(aval.ndim)):
        f = _factor(mesh, entry)
        if shape[d] % f:
            raise ArgumentValueError(
                f"{what}: dimension {d} of an argument of shape {tuple(aval.shape)} has size "
                f"{shape[d]}, which the mesh axes {shd.PartitionSpec._axes(entry)} of "
                f"in_specs {spec!r} (total size {f}) do not evenly divide",
                hint="pick a spec whose mesh axes divide the dimension, or pad the argument")
        shape[d] //= f
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def _global_aval(aval, spec, mesh):
    shape = list(aval.shape)
    for d, entry in enumerate(spec._normalized(aval.ndim)):
        shape[d] *= _factor(mesh, entry)
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)




def _manual_names(mesh, auto):
    return tuple(a for a in mesh.axis_names if a not in auto)


def _inlined(mesh, auto) -> bool:
    """Whether every manual axis has size 1: then, as JAX, the body is lowered in place
    without a manual computation."""
    return math.prod(mesh.shape[a] for a in _manual_names(mesh, auto)) == 1


def _sm_abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, auto=frozenset()):
    return [_global_aval(a, s, mesh) for a, s in zip(jaxpr.out_avals, out_specs)]


def _manual_op(ctx, target, x, aval_out, text, config=""):
    return ctx.op1("stablehlo.custom_call", [x], aval_out, attrs={
        "call_target_name": f'"{target}"', "backend_config": f'"{config}"',
        "mhlo.sharding": f'"{text}"'})


def _manual_text(mesh, auto, ndim):
    """GSPMD's sharding of a value inside a manual computation that is manual over
    the mesh axes not in `auto`: `{manual}`, or, partially manual, tiles over the
    auto axes (replicated) then the manual axes, as JAX's `manual_proto`."""
    if not auto:
        return "{manual}"
    names = mesh.axis_names
    manual = sorted((a for a in names if a not in auto), key=str)
    rep = [a for a in names if a in auto]
    perm = [names.index(a) for a in rep] + [names.index(a) for a in manual]
    ids = np.arange(mesh.size).reshape(tuple(mesh.shape.values())).transpose(perm)
    dims = [1] * ndim + [math.prod(mesh.shape[a] for a in rep),
                         math.prod(mesh.shape[a] for a in manual)]
    return ("{devices=[" + ",".join(map(str, dims)) + "]"
            + ",".join(str(int(i)) for i in ids.reshape(-1))
            + " last_tile_dims={replicated, manual}}")


def axes_in_scope(mesh, auto=frozenset()):
    """A context in which the mesh axes not in `auto` are named axes of kind
    'shard_map' (what a shard_map body is staged and lowered in)."""
    stack = contextlib.ExitStack()
    for name, size in mesh.shape.items():
        if name not in auto:
            stack.enter_context(core.extend_axis_env(name, size, kind="shard_map"))
    return stack


def _sm_lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma,
                 auto=frozenset()):
    devs = shd.current_assignment()
    if devs is None:
        raise ArgumentValueError("shard_map is lowered outside a partitioned program")
    if _inlined(mesh, auto):
        # (XLA has no host rule for Shardy's shape ops around a callback there)
        with shd.manual_axes(mesh, _free_axes(auto)), axes_in_scope(mesh, auto):
            return ctx.lower_jaxpr(jaxpr.jaxpr, [], list(args))
    if shardy_lowering():
        return _sm_lowering_sdy(ctx, args, jaxpr, mesh, in_specs, out_specs, auto, devs)

    def config(ndim):   # partially manual: the auto axes' dimensions stay XLA's choice
        return ("unspecified_dims=[" + ",".join(map(str, range(ndim))) + "]"
                if auto and ndim else "")
    ins = []
    for x, a, spec, local in zip(args, ctx.avals_in, in_specs, jaxpr.in_avals):
        text = shd.hlo_sharding(shd.NamedSharding(mesh, spec), a.ndim, devs)
        y = _manual_op(ctx, "Sharding", x, a, text, config(a.ndim))
        ins.append(_manual_op(ctx, "SPMDFullToShardShape", y, local,
                              _manual_text(mesh, auto, a.ndim), config(a.ndim)))
    with shd.manual_axes(mesh), axes_in_scope(mesh, auto):
        outs = ctx.lower_jaxpr(jaxpr.jaxpr, [], ins)
    res = []
    for o, a, spec, local in zip(outs, ctx.avals_out, out_specs, jaxpr.out_avals):
        y = _manual_op(ctx, "Sharding", o, local, _manual_text(mesh, auto, a.ndim),
                       config(a.ndim))
        text = shd.hlo_sharding(shd.NamedSharding(mesh, spec), a.ndim, devs)
        res.append(_manual_op(ctx, "SPMDShardToFullShape", y, a, text, config(a.ndim)))
    return res


_lowered_index = threading.local()


@contextlib.contextmanager
def platform_index_operand(name):
    """While a module whose `@main` takes JAX's platform index (SSA value `name`, or
    None) is lowered: a shard_map passes it into its manual computation, replicated,
    as JAX threads the index into inner computations (the body does not read it)."""
    previous = getattr(_lowered_index, "name", None)
    _lowered_index.name = name
    try:
        yield
    finally:
        _lowered_index.name = previous


def _free_axes(auto):
    """The axes of `auto` left automatic in the body: nested, the axes manual outside
    are not."""
    outer = shd.current_manual_mesh()
    return auto - (set(outer.axis_names) - shd.current_auto_axes() if outer else set())


def _sm_lowering_sdy(ctx, args, jaxpr, mesh, in_specs, out_specs, auto, devs):
    """Shardy's manual computation: `sdy.manual_computation` over the manual axes,
    its region the per-device body (values of per-device shape along the manual
    axes); partially manual, every dimension stays open to the auto axes."""
    index = getattr(_lowered_index, "name", None)
    extra = [ShapedArray((), np.int32)] if index is not None else []

    def layouts(specs, avals):
        return "#sdy.sharding_per_value<[" + ", ".join(
            shd.sdy_sharding(shd.NamedSharding(mesh, s), a.ndim, devs,
                             open_dims=range(a.ndim) if auto else ())
            for s, a in zip(specs, avals)) + "]>"
    manual = ", ".join(f'"{a}"' for a in _manual_names(mesh, auto))

    free = _free_axes(auto)
    effs = effects.threaded(ctx, jaxpr)   # (their tokens in and out first, replicated)
    toks, k = effects.token_avals(effs), len(extra)

    def body(*xs):
        with shd.manual_axes(mesh, free), axes_in_scope(mesh, auto):
            return effects.around(ctx, effs, xs[k:], jaxpr.jaxpr)
    region = ctx.region([*extra, *toks, *jaxpr.in_avals], body, terminator="sdy.return")
    rep, ops = [shd.PartitionSpec()] * (k + len(toks)), [index] * k + effects.current(ctx, effs)
    return effects.results(ctx, effs, ctx.op("sdy.manual_computation", ops + list(args),
                                             toks + list(ctx.avals_out), attrs={
            "in_shardings": layouts([*rep, *in_specs], [*extra, *toks, *ctx.avals_in]),
            "out_shardings": layouts([*rep[k:], *out_specs], [*toks, *ctx.avals_out]),
            "manual_axes": f"#sdy<manual_axes{{{manual}}}>"}, regions=[region]))


def _sm_jvp(tx, primals, tangents, *, jaxpr, mesh, in_specs, out_specs, check_vma,
            auto=frozenset()):
    nz = [not isinstance(t, core.Zero) for t in tangents]
    with axes_in_scope(mesh, auto), staging_body(   # (the tangents vary as the primals)
            mesh, auto, list(in_specs) + [s for s, z in zip(in_specs, nz) if z], check_vma):
        body, out_nz = tx.jvp_jaxpr(jaxpr, nz, instantiate=False)
    body, consts = core.split_consts(body)
    nz_ts = [t for t in tangents if not isinstance(t, core.Zero)]
    rep = shd.PartitionSpec()
    specs = ([rep] * len(consts) + list(in_specs)
             + [s for s, z in zip(in_specs, nz) if z])
    outs = bind(shard_map_p, *consts, *primals, *nz_ts, jaxpr=body, mesh=mesh,
                in_specs=tuple(specs), check_vma=check_vma, auto=auto,
                out_specs=tuple(out_specs) + tuple(s for s, z in zip(out_specs, out_nz) if z))
    n = len(out_specs)
    it = iter(outs[n:])
    avals = _sm_abstract_eval(jaxpr=jaxpr, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                              check_vma=check_vma, auto=auto)
    return outs[:n], [next(it) if z else core.Zero(a) for z, a in zip(out_nz, avals)]


def _sm_transpose(tx, cts, *args, jaxpr, mesh, in_specs, out_specs, check_vma,
                  auto=frozenset()):
    """The transpose runs per device too. A replicated result's cotangent is split
    evenly over the devices that replicate it, and an operand replicated over some
    axes gets the sum of its devices' cotangents (JAX's rule without `check_vma`)."""
    lin = [core.is_undefined(a) for a in args]
    zero = [isinstance(c, core.Zero) for c in cts]
    if all(zero):
        return [None] * len(args)
    nl_specs = [s for s, l in zip(in_specs, lin) if not l]
    ct_specs = [s for s, z in zip(out_specs, zero) if not z]
    with axes_in_scope(mesh, auto), staging_body(mesh, auto, nl_specs + ct_specs, check_vma):
        t = tx.transpose_jaxpr(jaxpr, lin, zero)   # (a custom rule's grad inside: typed)
    lin_specs = [s for s, l in zip(in_specs, lin) if l]
    n_nl = len(nl_specs)

    def body(*xs):
        nl, cs = list(xs[:n_nl]), list(xs[n_nl:])
        cs = [c if not unmentioned(mesh, s, auto) else
              bind(div_p, c, np.asarray(math.prod(mesh.shape[a] for a in
                                                  unmentioned(mesh, s, auto)),
                                        core.get_aval(c).dtype)[()])
              for c, s in zip(cs, ct_specs)]
        outs = core.inline_jaxpr(t.jaxpr, t.consts, nl + cs)
        return [o if not unmentioned(mesh, s, auto) else
                bind(psum_p, o, axes=unmentioned(mesh, s, auto), axis_index_groups=None)
                for o, s in zip(outs, lin_specs)]
    avals = [v.aval for v in t.jaxpr.invars]
    new = core.stage(body, avals)
    new, consts = core.split_consts(new)
    nl_args = [a for a, l in zip(args, lin) if not l]
    outs = bind(shard_map_p, *consts, *nl_args, *[c for c in cts if not isinstance(c, core.Zero)],
                jaxpr=new, mesh=mesh, check_vma=check_vma, auto=auto,
                in_specs=tuple([shd.PartitionSpec()] * len(consts) + nl_specs + ct_specs),
                out_specs=tuple(lin_specs))
    it = iter(outs)
    return [next(it) if l else None for l in lin]


def _sm_partial_eval(tx, eqn, in_uk):
    """Known part and unknown part, each a shard_map. Residuals are per-device
    values: each gets a leading axis of size 1 in the known body, laid out over
    all mesh axes (global: one row per device), and loses it in the unknown body."""
    p = eqn.params
    mesh, in_specs, out_specs = p["mesh"], p["in_specs"], p["out_specs"]
    auto = p.get("auto", frozenset())
    with axes_in_scope(mesh, auto):
        known, unknown, out_uk, nres = tx.partial_eval_jaxpr(p["jaxpr"], in_uk,
                                                             instantiate=False)
    lax = lax_ops()
    k_avals = [v.aval for v, u in zip(p["jaxpr"].jaxpr.invars, in_uk) if not u]
    res_avals = [v.aval for v in known.jaxpr.outvars[len(known.jaxpr.outvars) - nres:]]

    def kfn(*args):
        outs = tx.inline(known, args)
        res = outs[len(outs) - nres:]
        return list(outs[:len(outs) - nres]) + [lax.expand_dims(r, (0,)) for r in res]
    kj = core.stage(kfn, k_avals)
    uk_avals = [v.aval for v, u in zip(p["jaxpr"].jaxpr.invars, in_uk) if u]

    def ufn(*args):
        res = [lax.squeeze(r, (0,)) for r in args[:nres]]
        return tx.inline(unknown, res + list(args[nres:]))
    uj = core.stage(ufn, [a.update(shape=(1,) + a.shape) for a in res_avals] + uk_avals)
    if kj.consts or uj.consts:
        return [], [eqn], [True] * len(eqn.outvars)
    manual = _manual_names(mesh, auto)
    res_spec = shd.PartitionSpec(manual)
    n_manual = math.prod(mesh.shape[a] for a in manual)
    res_vars = [core.Var(a.update(shape=(n_manual,) + a.shape)) for a in res_avals]
    known_out = [v for v, u in zip(eqn.outvars, out_uk) if not u]
    k_eqn = core.Eqn(shard_map_p, [a for a, u in zip(eqn.invars, in_uk) if not u],
                     known_out + res_vars, dict(
                         jaxpr=kj, mesh=mesh, check_vma=p["check_vma"], auto=auto,
                         in_specs=tuple(s for s, u in zip(in_specs, in_uk) if not u),
                         out_specs=tuple(s for s, u in zip(out_specs, out_uk) if not u)
                         + (res_spec,) * nres), eqn.source_info)
    uk_out = [v for v, u in zip(eqn.outvars, out_uk) if u]
    u_eqn = core.Eqn(shard_map_p, res_vars + [a for a, u in zip(eqn.invars, in_uk) if u],
                     uk_out, dict(
                         jaxpr=uj, mesh=mesh, check_vma=p["check_vma"], auto=auto,
                         in_specs=(res_spec,) * nres
                         + tuple(s for s, u in zip(in_specs, in_uk) if u),
                         out_specs=tuple(s for s, u in zip(out_specs, out_uk) if u)),
                     eqn.source_info)
    return [k_eqn], [u_eqn] if uk_out else [], out_uk


def _sm_batch(tx, args, dims, *, jaxpr, mesh, in_specs, out_specs, check_vma,
              auto=frozenset()):
    """vmap of a shard_map is a shard_map of the vmapped body: the batch axis goes
    first and stays whole on every device (a leading `None` in each spec)."""
    frame = core.axis_frame()
    ops = [a if d is None else moveaxis(a, d, 0) for a, d in zip(args, dims)]
    in_dims = [None if d is None else 0 for d in dims]
    body, consts, mapped = tx.batch_subjaxpr(jaxpr, in_dims, frame.size, frame.name)
    rep = shd.PartitionSpec()
    specs = [rep] * len(consts) + [s if d is None else s.update(partitions=(None,) + s.partitions)
                                   for s, d in zip(in_specs, in_dims)]
    outs = [s if not m else s.update(partitions=(None,) + s.partitions)
            for s, m in zip(out_specs, mapped)]
    res = bind(shard_map_p, *consts, *ops, jaxpr=body, mesh=mesh, in_specs=tuple(specs),
               out_specs=tuple(outs), check_vma=check_vma, auto=auto)
    return res, [0 if m else None for m in mapped]


register(shard_map_p, abstract_eval=_sm_abstract_eval, lowering=_sm_lowering, jvp=_sm_jvp,
         transpose=_sm_transpose, partial_eval=_sm_partial_eval, batch=_sm_batch)
mark_unsupported(shard_map_p, "impl", "the body runs once per device with collectives "
                 "between them; there is no single NumPy reference")

def _sm_pp_types(eqn):
    """The shard_map body's variables (those of the bodies inside it too) printed with
    their varying manual axes."""
    p = eqn.params
    if not p["check_vma"]:
        return None
    body = p["jaxpr"].jaxpr
    auto = p.get("auto", frozenset())
    env, urs = {}, {}
    try:        # (printing never raises: the checks ran where it was staged)
        env = vma_env_nested(body.invars, body.eqns,
                             in_vmas(p["mesh"], p["in_specs"], auto, True))
        urs = ur_env(body.invars, body.eqns, in_urs(p["in_specs"], True), p["mesh"], env)
    except AstjaxError:
        pass
    return {v: vma_str(v.aval, env.get(v) or (), p["mesh"], urs.get(v, ()))
            for v in set(env) | set(urs) if env.get(v) or urs.get(v)}


shard_map_p.pp_types = _sm_pp_types


def _sm_shown(params):
    """The params JAX prints: the axes the body makes manual (`newly_manual_axes`, in
    mesh order) where astjax keeps those it leaves automatic (`auto`)."""
    out = {k: v for k, v in params.items() if k != "auto"}
    manual = _manual_names(params["mesh"], params.get("auto", frozenset()))
    out["newly_manual_axes"] = ("frozenset({" + ", ".join(map(repr, manual)) + "})"
                                if manual else "frozenset()")
    return out


shard_map_p.pp_shown = _sm_shown

# ---- the wrapper


def _spec_keys(specs, out_tree):
    """Per output leaf, the key path (`keystr`) of its entry in the out_specs prefix."""
    paths = tree_util.tree_flatten_with_path(specs, is_leaf=is_layout)[0]
    tree = tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
    try:
        subtrees = tree_util._flatten_up_to(tree_util.tree_structure(specs, is_leaf=is_layout),
                                            tree)
    except ValueError:
        return None
    out = []
    for (path, _), sub in zip(paths, subtrees):
        out += [tree_util.keystr(path)] * len(tree_util.tree_leaves(sub))
    return out


def _specs_for(specs, tree, what, loc):
    """One PartitionSpec per leaf of `tree` from the prefix `specs` (None: `P()`)."""
    out = []
    for s in layouts_per_leaf(specs, tree, f"shard_map {what}", loc):
        s = shd.PartitionSpec() if s is None else s
        if not isinstance(s, shd.PartitionSpec):
            raise ArgumentTypeError(f"shard_map {what} entries must be PartitionSpecs, got "
                                    f"{s!r:.60}", loc=loc)
        out.append(s)
    return out


# collectives a partially manual body may not use under GSPMD (see `shard_map`)
_NOT_PARTIAL = (axis_index_p, all_gather_p, ppermute_p, all_to_all_p)


def _uses(jaxpr, prim) -> bool:
    """Whether `jaxpr` (or a jaxpr nested in it) binds `prim`."""
    return any(eqn.primitive is prim for eqn in core.all_eqns(jaxpr))


def _auto_axes(mesh, axis_names, loc):
    """The mesh axes a shard_map leaves automatic: those not in `axis_names` (an empty
    `axis_names` makes every axis manual)."""
    names = frozenset(axis_names or ())
    unknown = sorted(str(a) for a in names if a not in mesh.axis_names)
    if unknown:
        raise ArgumentValueError(f"shard_map axis_names {sorted(map(str, names))} must be "
                                 f"axes of the mesh {mesh.axis_names}, got {unknown}",
                                 loc=loc)
    if not names:
        return frozenset()
    return frozenset(a for a in mesh.axis_names if a not in names)


def _check_spec(mesh, spec, aval, what, loc, auto=frozenset(), own_auto=None):
    if spec.reduced and any(t != shd.AxisType.Explicit for t in mesh.axis_types):
        raise ArgumentValueError(
            f"reduced in {what} {spec!r} can only be used when the mesh passed to shard_map "
            f"contains axis names all of type `Explicit`. Got mesh {mesh!r}", loc=loc,
            hint="make the mesh's axes Explicit (jax.make_mesh's default axis_types)")
    shd.NamedSharding(mesh, spec)   # unknown / repeated axis names: JAX's errors
    named = [a for e in spec.partitions for a in shd.PartitionSpec._axes(e) if a in auto]
    if named:
        manual = frozenset(a for a in mesh.axis_names   # (as axis_names= says)
                           if a not in (auto if own_auto is None else own_auto))
        raise ArgumentValueError(
            f"shard_map {what} argument must refer to an axis marked as manual "
            f"({manual}), but:\n\n  {what} refers to {named[0]!r}\n\nCheck the {what} "
            f"values passed to shard_map.", loc=loc)
    if len(spec) > aval.ndim:
        raise ArgumentValueError(
            f"shard_map {what} {spec!r} has {len(spec)} entries, more than the rank "
            f"{aval.ndim} of the value of shape {tuple(aval.shape)}", loc=loc)


def _check_explicit_in_specs(mesh, specs, leaves, layout_of, loc):
    """JAX's check on a mesh whose axes are all Explicit and all manual here: an
    argument's layout (part of its type) must be what its in_spec says."""
    for x, spec in zip(leaves, specs):
        t = layout_of(x, mesh)
        if t is None:       # a staged value whose layout astjax does not know
            continue
        want = spec.update(partitions=spec._normalized(t.ndim))
        if config.read("jax_remove_size_one_mesh_axis_from_type"):   # (as the types then)
            want = want.update(
                partitions=[_drop_size_one(mesh, e) for e in want.partitions],
                unreduced=frozenset(a for a in spec.unreduced if mesh.shape[a] != 1),
                reduced=frozenset(a for a in spec.reduced if mesh.shape[a] != 1))
        if want != t.sharding.spec:
            raise ArgumentValueError(
                f"in_specs passed to shard_map: {want!r} does not match the specs of the "
                f"input: {t.sharding.spec!r} for arg: {t}. `in_specs` is an optional "
                "argument so you can omit specifying it and shard_map will infer the "
                "in_specs from the arguments. If you want to reshard your inputs, you can "
                "use `jax.reshard` on the arguments and then pass those args to shard_map.",
                hint="omit in_specs, pass the arguments' own specs, or `jax.reshard` them",
                loc=loc)


def _concrete(abstract):
    """The concrete mesh of an `AbstractMesh` passed as shard_map's mesh: inside a body
    (JAX's `get_abstract_mesh()` there: its manual axes typed Manual) the body's mesh,
    checked against it by `_nested`; elsewhere the context mesh when it is that one's."""
    outer = enclosing_body()
    if outer is not None:
        return outer[0]
    ctx = shd.get_mesh()
    return ctx if isinstance(ctx, shd.Mesh) and ctx.abstract_mesh == abstract else abstract


def _nested(mesh, given, loc):
    """Inside another shard_map's body: the axes already manual there (the nested
    body's own manual axes are the others), and JAX's ValueError for a mesh passed in
    (the context mesh there types those axes Manual)."""
    outer = enclosing_body()
    if outer is None:
        return frozenset()
    ctx = shd.manual_abstract_mesh(outer[0], frozenset(outer[0].axis_names) - outer[2])
    if given is not None and (given if isinstance(given, shd.AbstractMesh)
                              else given.abstract_mesh) != ctx:
        raise ArgumentValueError(f"The context mesh {ctx} should match the mesh passed to "
                                 f"shard_map {given}", loc=loc,
                                 hint="inside a shard_map body leave mesh= out: the body's "
                                      "mesh is the context")
    return frozenset(a for a in outer[2] if a in mesh.axis_names)


def _drop_size_one(mesh, entry):
    if entry is None or entry is shd.PartitionSpec.UNCONSTRAINED:
        return None
    axes = tuple(a for a in shd.PartitionSpec._axes(entry) if mesh.shape[a] != 1)
    return None if not axes else axes[0] if len(axes) == 1 else axes


def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=frozenset(),
              check_vma=True, layout_of=None):
    """`jax.shard_map`: run `f` once per device of `mesh` on that device's shard of
    each argument (laid out by `in_specs`), with the mesh axes as named axes for
    `lax.psum`, `all_gather`, `ppermute`, `axis_index`, ...; the per-device results
    form global values laid out by `out_specs`.

    `layout_of(x, mesh)` (given by the public `astjax.shard_map`) is an argument's type
    with its layout over Explicit axes (`jax.typeof`'s, with `.sharding`), or
    None where it is not known: on an all-Explicit mesh in_specs must match it, and
    without in_specs they are read from it."""
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                   axis_names=axis_names, check_vma=check_vma,
                                   layout_of=layout_of)
    if not callable(f):
        raise ArgumentTypeError(f"shard_map needs a function, got {type(f).__name__}",
                                loc=caller_location())

    def mapped(*args):
        loc = caller_location()
        m = mesh if mesh is not None else shd.get_mesh()
        if isinstance(m, shd.AbstractMesh):     # (the body's: `get_abstract_mesh()` in one)
            m = _concrete(m)
        if not isinstance(m, shd.Mesh) or m.empty:
            raise ArgumentValueError("shard_map needs a mesh: pass mesh=... or call it under "
                                     "`with jax.set_mesh(mesh):`", loc=loc)
        own_auto = _auto_axes(m, axis_names, loc)
        outer = _nested(m, mesh, loc)
        auto = own_auto | outer
        leaves, in_tree = tree_util.flatten_for_staging(args)
        avals = [core.get_aval(x) for x in leaves]
        explicit = (layout_of is not None and not auto and all(
            t == shd.AxisType.Explicit for t in m.axis_types))
        if in_specs is None:
            specs = [getattr(getattr(x, "sharding", None), "spec", None) for x in leaves]
            if explicit:
                specs = [s if s is not None or (t := layout_of(x, m)) is None
                         else t.sharding.spec for x, s in zip(leaves, specs)]
            if any(s is None for s in specs):
                raise ArgumentValueError("shard_map without in_specs infers them from the "
                                         "arguments' shardings, but an argument has none",
                                         hint="pass in_specs=...", loc=loc)
        else:
            specs = _specs_for(in_specs if isinstance(in_specs, tuple) else (in_specs,)
                               if len(args) == 1 else in_specs, tuple(args), "in_specs", loc)
        for s, a in zip(specs, avals):
            _check_spec(m, s, a, "in_specs", loc, auto, own_auto)
        if explicit and in_specs is not None:
            _check_explicit_in_specs(m, specs, leaves, layout_of, loc)
        local = [_local_aval(a, s, m) for a, s in zip(avals, specs)]
        with axes_in_scope(m, auto), \
                staging_body(m, auto, specs, check_vma, leaves) as staged, \
                shd.use_abstract_mesh(shd.manual_abstract_mesh(m, own_auto - outer)):
            jaxpr, consts, out_tree = core.stage_callable(f, in_tree, local)
        out_flat_specs = _specs_for(out_specs, tree_util.tree_unflatten(
            out_tree, list(range(len(jaxpr.outvars)))), "out_specs", loc)
        for s, v in zip(out_flat_specs, jaxpr.outvars):
            _check_spec(m, s, v.aval, "out_specs", loc, auto, own_auto)
        body = core.closure_convert(jaxpr)
        bad = [p.name for p in _NOT_PARTIAL if auto and not shardy_lowering()
               and not _inlined(m, auto) and _uses(body.jaxpr, p)]
        if bad:
            raise NotImplementedInAstjaxError(
                f"{bad[0]} inside a partially manual shard_map (axis_names= a subset of "
                "the mesh axes) needs the Shardy partitioner (psum, pmean, pmax and pmin "
                "do not; XLA's GSPMD partitioner aborts on the others' lowering)",
                hint="leave jax_use_shardy_partitioner on (the default), or make every "
                     "mesh axis manual (omit axis_names)", loc=loc)
        rep = shd.PartitionSpec()
        all_specs = [rep] * len(consts) + specs
        if check_vma:
            check_vma_types(body.jaxpr, m, all_specs, out_flat_specs, loc, auto,
                            getattr(f, "__name__", str(f)), _spec_keys(out_specs, out_tree),
                            staged)
        outs = bind(shard_map_p, *consts, *leaves, jaxpr=body, mesh=m,
                    in_specs=tuple(all_specs), out_specs=tuple(out_flat_specs),
                    check_vma=bool(check_vma), auto=auto)
        return tree_util.tree_unflatten(out_tree, outs)
    mapped.__wrapped__ = f
    mapped.__name__ = getattr(f, "__name__", "mapped")   # (JAX's wraps: `jit_<lambda>`)
    return mapped


# The primitives that make a program a partitioned one (codegen/spmd.py compiles a
# jaxpr containing one with SPMD partitioning over its device assignment).
SPMD_PRIMITIVES = {sharding_constraint_p, shard_map_p}
