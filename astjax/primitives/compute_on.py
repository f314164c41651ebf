"""`compute_on_p`: a call of a nested jaxpr run on another compute of the device,
its results put in chosen memory spaces (JAX 0.10.2's `compute_on2(f,
compute_type=..., out_memory_spaces=...)`; the public function is
`astjax/compat/experimental/compute_on.py`). Printed as JAX prints it:

    b:f32<host>[3] c:f32[3] = compute_on[
      compiler_options_json=None
      compute_type=device_host
      jaxpr={ lambda ; d:f32[3]. let ... in (f, g) }
      out_memory_spaces=(MemorySpace.Host, MemorySpace.Device)
    ] a

Params: `jaxpr` (a ClosedJaxpr whose equations carry the compute type, so they are
lowered marked `_xla_compute_type`), `compute_type`, `out_memory_spaces` (one
`MemorySpace` per result: its type's), `compiler_options_json`. The block holds:

- impl / abstract_eval: the body's values and types, each result in its space;
- lowering, as JAX's (a `compute_on` inside the body: JAX's ValueError): the body a
  private function `@compute_on` (`compute_on_0`, ...
  for the next ones), called by `func.call` with `mhlo.frontend_attributes =
  {_xla_compute_type = "host"}` (`"dense", inlineable = "false"` for `'device'`;
  `backend_config` carries `compiler_options_json`), each result then placed in its
  memory by the `annotate_device_placement` custom call;
- jvp: the body's JVP, inlined (its equations keep the compute type, so they are
  still lowered marked), each primal result and its tangent put in its memory space
  by a `device_put` (a program with one has committed results, as one with a
  `compute_on`; a cotangent arriving in host memory is JAX's ValueError), and each
  tangent entering put in its own space (so the transpose places the cotangents in
  the inputs' spaces, as JAX's transposed `compute_on`)
  -- JAX keeps one `compute_on` equation of the JVP instead; linear parts are then
  transposed as ordinary equations;
- batch: a `compute_on` of the batched body; dce: the body pruned to the used results;
- source: the body printed inline.
"""
from __future__ import annotations

from contextlib import contextmanager

from .. import core
from ..core import bind
from ..errors import ArgumentValueError
from ..ir import in_memory_space
from ..memory import space_to_kind
from .base import call_source, matchaxis, private_function, register
from .device_put import ArrayCopySemantics, device_put_p

__all__ = ["compute_on_p", "XLA_COMPUTE_TYPES", "outside_staging", "tagged", "marked", "top_level",
           "program_key", "in_block"]

# the compute type of the `compute_on` block entered outside staging, if any (its
# `jit` programs are marked and cached apart: `outside_staging`)
top_level = [None]


@contextmanager
def outside_staging(compute_type):
    """While a `compute_on(compute_type)` block runs outside staging: the programs `jit`
    stages then are `compute_type`'s as a whole (JAX traces them in the block's
    context), cached apart from the same function's others (`api.Jitted` keys them by
    `top_level`)."""
    before = top_level[0]
    top_level[0] = compute_type
    try:
        yield
    finally:
        top_level[0] = before


def program_key() -> tuple:
    """What a `compute_on` block entered outside staging adds to the cache keys of the
    programs `jit` stages in it (() outside one)."""
    return ("compute_on", top_level[0]) if top_level[0] else ()


def in_block(closed):
    """`closed`, staged by a `jit` call outside staging: in a `compute_on` block, all
    of it marked with the block's compute type."""
    return tagged(closed, top_level[0]) if top_level[0] else closed


def tagged(p, compute_type):
    """Param value `p` with the sub-jaxprs in it copied, their equations marked."""
    if isinstance(p, core.ClosedJaxpr):
        return core.ClosedJaxpr(tagged(p.jaxpr, compute_type), p.consts)
    if isinstance(p, core.Jaxpr):
        return core.Jaxpr(p.constvars, p.invars, p.outvars,
                          [marked(e, compute_type) for e in p.eqns])
    if isinstance(p, tuple):
        return tuple(tagged(q, compute_type) for q in p)
    return p


def marked(eqn, compute_type):
    """A copy of `eqn` staged under `compute_type` (an inner block's own type kept), its
    sub-jaxprs' equations too (they may be shared with other programs: copied)."""
    if getattr(eqn.source_info, "compute_type", None) is not None:
        return eqn
    params = eqn.params
    if any(True for _ in core.sub_jaxprs(params)):
        params = {k: tagged(v, compute_type) for k, v in params.items()}
    return eqn.replace(source_info=eqn.source_info.replace(compute_type=compute_type),
                       params=params)


# JAX's compute types and XLA's names for them (`_xla_compute_type`)
XLA_COMPUTE_TYPES = {"device_host": "host", "device": "dense", "tpu_sparsecore": "sparseoffload"}

compute_on_p = core.new_primitive("compute_on", multiple_results=True, higher_order=True)
compute_on_p.keeps_memory_space = True   # (its out_memory_spaces say: ir.memory_space_rule)


def _abstract_eval(*avals, jaxpr, out_memory_spaces, **params):
    return [in_memory_space(a, s) for a, s in zip(jaxpr.out_avals, out_memory_spaces)]


def _impl(*args, jaxpr, **params):
    return core.eval_closed(jaxpr, *args)


def _nests(jaxpr) -> bool:
    """Whether `jaxpr` (nested jaxprs too) has a `compute_on` equation."""
    return any(e.primitive is compute_on_p for e in core.all_eqns(jaxpr))


def _lowering(ctx, *args, jaxpr, compute_type, out_memory_spaces, compiler_options_json):
    if _nests(jaxpr.jaxpr):
        raise ArgumentValueError("Nesting `compute_on` with different compute types is not "
                                 "allowed.", hint="call compute_on2 outside the other one")
    mb = ctx.mb
    taken = sum(f.startswith("func.func private @compute_on") for f in mb.functions)
    name = private_function(ctx, jaxpr, lambda slot: "compute_on" if not taken
                            else f"compute_on_{taken - 1}")
    attrs = {"_xla_compute_type": f'"{XLA_COMPUTE_TYPES[compute_type]}"'}
    if compiler_options_json is not None:
        attrs["backend_config"] = '"' + compiler_options_json.replace('"', '\\"') + '"'
    elif compute_type == "device":
        attrs["inlineable"] = '"false"'
    front = "{" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"
    results = mb.op("func.call", list(args), ctx.avals_out,
                    {"callee": f"@{name}", "mhlo.frontend_attributes": front})
    return [mb.op("stablehlo.custom_call", [r], [a], {
        "call_target_name": '"annotate_device_placement"', "has_side_effect": "true",
        "backend_config": '""', "mhlo.frontend_attributes":
            f'{{_xla_buffer_placement = "{space_to_kind(s)}"}}'})[0]
            for r, a, s in zip(results, ctx.avals_out, out_memory_spaces)]


def _jvp(tx, primals, tangents, *, jaxpr, out_memory_spaces, **params):
    nz = [not isinstance(t, core.Zero) for t in tangents]
    jv, out_nz = tx.jvp_jaxpr(jaxpr, nz, instantiate=False)
    # each tangent put in its own space from there: the transpose places the cotangents
    # in the inputs' spaces, as JAX's transposed `compute_on` does
    outs = core.inline_jaxpr(jv.jaxpr, list(jv.consts), list(primals) + [
        _put(t, core.get_aval(t).memory_space, core.get_aval(t).memory_space)
        for t in tangents if not isinstance(t, core.Zero)])
    n = len(jaxpr.out_avals)
    placed = [_put(o, s) for o, s in zip(outs[:n], out_memory_spaces)]
    # the tangents in the same spaces, as JAX's JVP `compute_on` places them (a
    # cotangent arriving in host memory stays there: JAX's ValueError at the body)
    it = iter(_put(t, s) for t, s in zip(outs[n:], [s for s, z in zip(out_memory_spaces,
                                                                      out_nz) if z]))
    return placed, [next(it) if z else core.Zero(a) for z, a in zip(out_nz, jaxpr.out_avals)]


def _put(x, space, src=None):
    return bind(device_put_p, x, devices=(space,), srcs=(src,),
                copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,))[0]


def _batch(tx, args, dims, *, jaxpr, **params):
    frame = core.axis_frame()
    args = [matchaxis(x, d, 0, frame.size) if d is not None else x for x, d in zip(args, dims)]
    dims = [0 if d is not None else None for d in dims]
    body, extra, mapped = tx.batch_subjaxpr(jaxpr, dims, frame.size, frame.name)
    closed, consts = core.split_consts(body)
    outs = bind(compute_on_p, *consts, *extra, *args, jaxpr=closed, **params)
    return outs, [0 if m else None for m in mapped]


def _dce(tx, eqn, used_outputs):
    body = eqn.params["jaxpr"]
    j, used_in = tx.dce_jaxpr(body.jaxpr, used_outputs, prune_invars=True)
    spaces = tuple(s for s, u in zip(eqn.params["out_memory_spaces"], used_outputs) if u)
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, used_in) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                      params=dict(eqn.params, jaxpr=core.ClosedJaxpr(j, body.consts),
                                  out_memory_spaces=spaces))
    return new, used_in


register(compute_on_p, impl=_impl, abstract_eval=_abstract_eval, lowering=_lowering,
         jvp=_jvp, batch=_batch, dce=_dce, source=call_source("jaxpr", "compute_on"))
