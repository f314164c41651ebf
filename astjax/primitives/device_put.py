"""`device_put_p`: `astjax.device_put` inside a staged function (`jit`, `grad`, `vmap`,
`make_jaxpr`), one equation for every leaf of the put pytree, printed as JAX prints it:

    c:f32[6] d:f32[6] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT, ArrayCopySemantics.REUSE_INPUT)
      devices=(None, None)
      srcs=(None, None)
    ] a b

Params, one entry per operand: `devices` (the target Device, a Sharding, a
`memory.Space`, or None for "where it is"; a pinned-host destination types the result
`<host>`, as JAX's), `srcs` (the source, None when unknown) and `copy_semantics` (`ArrayCopySemantics`,
from `donate=` / `may_alias=` as JAX derives it). Inside one program every value is on
the program's devices already, so the lowering is the identity (JAX's own CPU lowering);
eager calls never bind it (the runtime copies the buffers). The block holds the NumPy
reference, abstract evaluation, lowering, JVP (it is linear: the tangents are put the
same way), transpose (the cotangents are put back: `devices` and `srcs` swapped -- an unknown
source of a host-typed input is host memory --, always copied, JAX's ValueError for a
donated input) and batching (batch axes unchanged).
"""
from __future__ import annotations

import enum

from .. import core
from ..core import bind
from ..errors import ArgumentValueError
from ..ir import in_memory_space
from ..memory import MemorySpace, kind_to_space
from .base import is_zero, register, tangent_aval

__all__ = ["device_put_p", "ArrayCopySemantics", "copy_semantics"]


class ArrayCopySemantics(enum.Enum):
    """What a device_put may do with its input buffer (jaxlib's enum of this name)."""
    ALWAYS_COPY = 0
    REUSE_INPUT = 1
    DONATE_INPUT = 2

    def __repr__(self):
        return f"ArrayCopySemantics.{self.name}"

    __str__ = __repr__


def copy_semantics(donate, may_alias):
    """The `ArrayCopySemantics` of one leaf put with these `donate` / `may_alias`
    flags (JAX's table; both True is JAX's ValueError)."""
    if may_alias and donate:
        raise ArgumentValueError("may_alias and donate cannot be True at the same time.",
                                 hint="pass at most one of them")
    if may_alias is None:
        may_alias = not donate
    if may_alias:
        return ArrayCopySemantics.REUSE_INPUT
    return ArrayCopySemantics.DONATE_INPUT if donate else ArrayCopySemantics.ALWAYS_COPY


device_put_p = core.new_primitive("device_put", multiple_results=True)
device_put_p.keeps_memory_space = True   # (its destination says: ir.memory_space_rule)


def _device_put_abstract_eval(*avals, devices, **params):
    out = []
    for a, d in zip(avals, devices):
        kind = (("pinned_host" if d is MemorySpace.Host else "device")
                if isinstance(d, MemorySpace) else getattr(d, "memory_kind", None))
        out.append(a if kind is None else in_memory_space(a, kind_to_space(kind)))
    return out


def _pick(params, keep):
    """`params` for the operands flagged in `keep` only."""
    return {k: tuple(v for v, kp in zip(params[k], keep) if kp)
            for k in ("devices", "srcs", "copy_semantics")}


def _device_put_jvp(primals, tangents, **params):
    outs = bind(device_put_p, *primals, **params)
    nz = [not is_zero(t) for t in tangents]
    moved = iter(bind(device_put_p, *[t for t, k in zip(tangents, nz) if k],
                      **_pick(params, nz)) if any(nz) else [])
    return outs, [next(moved) if k else core.Zero(tangent_aval(o)) for o, k in zip(outs, nz)]


def _device_put_transpose(cts, *args, devices, srcs, copy_semantics):
    linear = [core.is_undefined(a) and not is_zero(ct) for a, ct in zip(args, cts)]
    if not any(linear):
        return [None] * len(args)
    if any(cs is ArrayCopySemantics.DONATE_INPUT for cs, k in zip(copy_semantics, linear)
           if k):
        raise ArgumentValueError("donate=True is not allowed during tranposition of "
                                 "device_put.", hint="put the value without donate=True")
    keep = _pick(dict(devices=devices, srcs=srcs, copy_semantics=copy_semantics), linear)
    # (JAX's: an unknown source of a host-typed input is host memory; another unknown
    # source leaves the cotangent where it is)
    to = tuple(MemorySpace.Host if s is None and a.aval.memory_space is MemorySpace.Host
               else s for s, a in zip(keep["srcs"], [a for a, k in zip(args, linear) if k]))
    back = iter(bind(device_put_p, *[ct for ct, k in zip(cts, linear) if k],
                     devices=to, srcs=keep["devices"],
                     copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * sum(linear)))
    return [next(back) if k else None for k in linear]


register(device_put_p,
         impl=lambda *xs, **params: list(xs),
         abstract_eval=_device_put_abstract_eval,
         lowering=lambda ctx, *xs, **params: list(xs),
         jvp=_device_put_jvp, transpose=_device_put_transpose,
         batch=lambda args, dims, **params: (bind(device_put_p, *args, **params), list(dims)))
