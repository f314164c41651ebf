"""Batch rules for the autodiff call primitives (`astjax.primitives.ad_prims`):
`checkpoint`, `custom_jvp_call`, `custom_vjp_call`; `custom_lin` is marked
unsupported (it only exists between linearization and transposition).

Scheme: every operand is brought to batch dim 0 (so that the Python rules kept in
params, which were written for per-example values, can be batched uniformly); the
nested jaxpr is batched with `batch_subjaxpr` (the values it captures become
leading consts); the Python rules (`jvp`, `fwd`, `bwd`) are wrapped so that, called
on batched values, they stage the per-example rule and batch that jaxpr."""
from __future__ import annotations

from astjax import core
from astjax.core import bind

from .batching import (axis_frame, batch_jaxpr, batch_subjaxpr, matchaxis, unmapped_aval)


def _all_front(args, dims, size):
    return [matchaxis(x, d, 0, size) for x, d in zip(args, dims)]


class _Vmapped:
    """A Python rule `fn(*lists) -> lists` (per-example) applied to values batched
    at dim 0; returns lists batched at 0."""
    __slots__ = ("fn", "size", "name", "single")

    def __init__(self, fn, size, name, single=False):
        self.fn, self.size, self.name, self.single = fn, size, name, single

    def __repr__(self):
        return f"vmap({self.fn!r})"

    def __call__(self, *lists):
        from astjax.primitives.collectives import extend_axis_env
        lens = [len(lst) for lst in lists]
        flat = [x for lst in lists for x in lst]
        avals = [unmapped_aval(core.get_aval(x), 0) for x in flat]
        struct = [None]

        def body(*xs):
            parts, k = [], 0
            for n in lens:
                parts.append(list(xs[k:k + n]))
                k += n
            res = self.fn(*parts)
            groups = [res] if self.single else list(res)
            groups = [[_zeros_if_none(x) for x in g] for g in groups]
            struct[0] = [len(g) for g in groups]
            return [x for g in groups for x in g]

        with extend_axis_env(self.name, self.size):
            closed = core.stage(body, avals)
        outs, dims = batch_jaxpr(closed, [0] * len(flat), self.size, self.name, flat)
        outs = [matchaxis(o, d, 0, self.size) for o, d in zip(outs, dims)]
        groups, k = [], 0
        for n in struct[0]:
            groups.append(outs[k:k + n])
            k += n
        return groups[0] if self.single else tuple(groups)


def _zeros_if_none(x):
    if x is None:  # a symbolic-zero cotangent from a user bwd: kept as None
        raise NotImplementedError("None cotangents are not supported under vmap")
    return x


def _checkpoint_batch(args, dims, *, jaxpr, **params):
    frame = axis_frame()
    args = _all_front(args, dims, frame.size)
    body, consts, _ = batch_subjaxpr(jaxpr, [0] * len(args), frame.size, frame.name,
                                     force_out=[True] * len(jaxpr.out_avals))
    outs = bind(core.primitives["checkpoint"], *consts, *args, jaxpr=body, **params)
    return outs, [0] * len(outs)


def _custom_jvp_batch(args, dims, *, call_jaxpr, jvp, num_consts, **params):
    frame = axis_frame()
    args = _all_front(args, dims, frame.size)
    body, consts, _ = batch_subjaxpr(call_jaxpr, [0] * len(args), frame.size, frame.name,
                                     force_out=[True] * len(call_jaxpr.out_avals))
    outs = bind(core.primitives["custom_jvp_call"], *consts, *args, call_jaxpr=body,
                jvp=_Vmapped(jvp, frame.size, frame.name), num_consts=num_consts + len(consts),
                **params)
    return outs, [0] * len(outs)


def _custom_vjp_batch(args, dims, *, call_jaxpr, fwd, bwd, num_consts, **params):
    frame = axis_frame()
    args = _all_front(args, dims, frame.size)
    body, consts, _ = batch_subjaxpr(call_jaxpr, [0] * len(args), frame.size, frame.name,
                                     force_out=[True] * len(call_jaxpr.out_avals))
    outs = bind(core.primitives["custom_vjp_call"], *consts, *args, call_jaxpr=body,
                fwd=_Vmapped(fwd, frame.size, frame.name),
                bwd=_Vmapped(bwd, frame.size, frame.name, single=True),
                num_consts=num_consts + len(consts), **params)
    return outs, [0] * len(outs)


def _register():
    for name, rule in (("checkpoint", _checkpoint_batch), ("custom_jvp_call", _custom_jvp_batch),
                       ("custom_vjp_call", _custom_vjp_batch)):
        p = core.primitives.get(name)
        if p is not None:
            core.batch_rules.setdefault(p, rule)
    p = core.primitives.get("custom_lin")
    if p is not None and p not in core.batch_rules:
        core.unsupported["batch"][p] = (
            "the linear part of a custom_vjp exists only inside autodiff; apply vmap to "
            "the differentiated function instead")


_register()
